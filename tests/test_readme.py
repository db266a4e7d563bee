"""The README stays what a new user needs (the project's charter): the two commands (the main job
and the tests, the latter exactly what CI runs), a tour of the layout whose paths exist, how to
write a card, and the sections a frontend or bot author looks for."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SECTIONS = ["## Set up and run", "## Play", "## Bots", "## Use it from Python", "## Embedding",
            "## Tools", "## Layout", "## Write a card"]


def test_the_readme_keeps_its_sections_in_order():
    where = [README.find(s) for s in SECTIONS]
    assert -1 not in where, [s for s, i in zip(SECTIONS, where, strict=True) if i == -1]
    assert where == sorted(where)


def test_the_main_job_is_the_printed_board_simulation():
    assert "pip install . && nemesis simulate --games 100\n" in README


def test_ci_runs_the_readme_test_command():
    command = re.search(r"pip install -e '\.\[test\]' && ruff check \. && pytest[^\n`]*", README).group(0)
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_every_path_in_the_layout_table_exists():
    table = README[README.index("## Layout"):README.index("## Write a card")]
    missing = []
    for row in re.findall(r"^\| (.+?) \| (.+) \|$", table, flags=re.M)[2:]:
        paths = re.findall(r"`([^`]+)`", row[0])
        missing += [p for p in paths if not (ROOT / p).exists()]
        if paths == ["rulesets/"]:             # the module folders it names
            missing += [m for m in re.findall(r"`(\w+)/`", row[1]) if not (ROOT / "rulesets" / m).is_dir()]
    assert not missing, missing
    assert len(re.findall(r"^\| `", table, flags=re.M)) >= 10


# ---- every python and sh block of README.md and docs/*.md runs as written ----
# A block that cannot run as written on CI says so in an HTML comment just before it, with its
# reason: `<!-- doc-test: skip — REASON -->`, or `<!-- doc-test: shorten — REASON` followed by
# lines `` `OLD` => `NEW` `` (each OLD must be in the block) and `-->`. Keep them few.
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(python|sh)\n(.*?)^```", re.M | re.S)
DIRECTIVE = re.compile(r"<!-- doc-test: (skip|shorten) — ([^\n]+?)\s*(?:-->\s*$|\n(.*?)^-->\s*$)", re.M | re.S)
REPLACEMENT = re.compile(r"^`(.+)` => `(.*)`$")


def doc_blocks() -> list[tuple[str, str, str, re.Match | None]]:
    """(where, language, code, directive) of each fenced python or sh block."""
    blocks = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for m in BLOCK.finditer(text):
            where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
            before = text[:m.start()]
            directive = next((d for d in DIRECTIVE.finditer(before) if d.end() == len(before)), None)
            blocks.append((where, m[1], m[2], directive))
    return blocks


BLOCKS = doc_blocks()


def _as_run(code: str, directive: re.Match | None) -> str | None:
    """The code to run: as written, shortened by the directive's replacements, or None (skip)."""
    if directive is None:
        return code
    if directive[1] == "skip":
        return None
    for line in (directive[3] or "").strip().splitlines():
        old, new = REPLACEMENT.match(line.strip()).groups()
        assert old in code, f"the shortened form replaces `{old}`, which the block does not have"
        code = code.replace(old, new)
    return code


@pytest.fixture(scope="module")
def shims(tmp_path_factory) -> dict[str, str]:
    """The environment a block runs in: `nemesis` and `nemesis-lint` run this checkout's code."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for name, module in (("nemesis", "nemesis_rules.cli.main"), ("nemesis-lint", "nemesis_rules.lint.cli")):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m {module} "$@"\n')
        script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT),
            "NEMESIS_PROGRESS": "", "COLUMNS": "100"}


@pytest.mark.parametrize(("where", "lang", "code", "directive"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_every_doc_block_runs_as_written(where, lang, code, directive, shims, monkeypatch):
    run = _as_run(code, directive)
    if run is None:
        pytest.skip(f"{where}: {directive[2]}")
    if lang == "python":
        monkeypatch.chdir(ROOT)
        exec(compile(run, where, "exec"), {"__name__": "__doc_block__"})
    else:
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", run], cwd=ROOT, env=shims, text=True,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
        assert done.returncode == 0, f"{where} exits {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def test_the_doc_blocks_are_found_and_their_exceptions_are_few():
    assert {b[0].split(":")[0] for b in BLOCKS} >= {"README.md", "docs/scenarios.md", "docs/editor.md"}
    marked = [b for b in BLOCKS if b[3] is not None]
    assert len(marked) <= 5, [b[0] for b in marked]  # README install, editor, performance, simulate.md (2)
    assert all(b[3][2].strip() for b in marked)  # each says why
    stray = len(re.findall(r"<!-- doc-test:", "".join(p.read_text(encoding="utf-8") for p in DOCS)))
    assert stray == len(marked), "a doc-test comment that is not just before a block"


def test_an_illegal_option_is_refused_and_changes_nothing():
    """What the README's Python example says of game.apply(99)."""
    from nemesis_rules import Game, IllegalMoveError, load_ruleset
    assert "game.apply(99)                    # an illegal option: a clear error, the game unchanged" in README
    game = Game.new(load_ruleset("base"), players=3, seed=7)
    before, decision = game.to_json(), game.decision.text
    for bad in (99, -1, "x", None, 1.5):
        with pytest.raises(IllegalMoveError, match="not an option|option"):
            game.apply(bad)
        assert game.to_json() == before and game.decision.text == decision

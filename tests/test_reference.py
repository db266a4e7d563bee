"""The reference of what a card can call (issue #38 point 3): `##` docs kept beside definitions,
docs/reference.md generated from them and covering every public name, `nemesis explain --search`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nemesis_rules.cli.main import main
from nemesis_rules.dsl.parse import parse_module
from nemesis_rules.fmt import format_text
from nemesis_rules.paths import write_generated

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("nemesis_core", "base_characters", "base", "lockdown", "retaliation")
DEFINITION = re.compile(r"^(proc|fn|event|action) (\w+)\(", re.M)
LISTED = re.compile(r"^\* `(proc|fn|event|action) (\w+)\(", re.M)


def _public_names() -> set[tuple[str, str, str]]:
    """(module, keyword, name) of every definition in the shipped modules' .nem files, read as text."""
    return {(m, keyword, name) for m in MODULES for path in (ROOT / "rulesets" / m / "rules").glob("*.nem")
            for keyword, name in DEFINITION.findall(path.read_text(encoding="utf-8"))}


def _listed_names() -> set[tuple[str, str, str]]:
    found, module = set(), None
    for line in (ROOT / "docs" / "reference.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            module = line[3:]
        elif m := LISTED.match(line):
            found.add((module, m.group(1), m.group(2)))
    return found


def test_reference_page_is_generated_from_the_modules() -> None:
    done = subprocess.run([sys.executable, "tools/gen_reference.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr


def test_a_generated_page_is_written_or_named_stale(tmp_path: Path, capsys) -> None:
    """The gen tools' shared write-or-check: `--check` never writes, and names the command that remakes the page."""
    page = tmp_path / "page.md"
    assert write_generated(page, "new\n", True, "python tools/gen_x.py") == 1 and not page.exists()
    assert "page.md is stale: run python tools/gen_x.py" in capsys.readouterr().err
    assert write_generated(page, "new\n", False, "python tools/gen_x.py") == 0
    assert write_generated(page, "new\n", True, "python tools/gen_x.py") == 0
    assert write_generated(page, "newer\n", True, "python tools/gen_x.py") == 1 and page.read_text() == "new\n"


def test_reference_page_lists_every_public_name_of_the_shipped_modules() -> None:
    public, listed = _public_names(), _listed_names()
    assert len(public) > 900
    assert public - listed == set() and listed - public == set()


def test_every_public_name_has_a_doc() -> None:
    text = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line.endswith(": (no doc)")] == []


def test_a_doc_is_the_comment_lines_starting_with_two_hashes_right_above() -> None:
    tree, diags = parse_module("# a note\n## Adds one.\n## Never below 0.\nfn up(x) = x + 1\n\n"
                               "## Not above anything\n\nfn down(x) = x - 1\n# plain\nevent told(who)\n")
    assert diags == []
    assert [(d.name, d.doc) for d in tree.decls] == [("up", "Adds one. Never below 0."), ("down", ""), ("told", "")]


def test_the_formatter_keeps_a_doc() -> None:
    text = "## Adds one.\nfn  up( x )=x+1\n"
    assert format_text(text).text == "## Adds one.\nfn up(x) = x + 1\n"


def test_explain_search_finds_names_and_docs(capsys) -> None:
    assert main(["explain", "--search", "flee"]) == 0
    out = capsys.readouterr().out
    assert "intruder_flee(i): procedure (nemesis_core, combat.nem:" in out
    assert main(["explain", "--search", "slime"]) == 0
    assert "give_slime(who)" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "says"), [
    (["explain", "--search", "zzzq"], "mentions `zzzq`"),
    (["explain"], "name one ID, or search with --search WORD"),
    (["explain", "intruder_flee", "--search", "flee"], "name one ID, or search with --search WORD"),
])
def test_explain_search_errors_are_one_line(capsys, argv, says) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.parametrize(("lang", "name", "label"), [
    ("pl", "intruder_flee", "Wycofanie się intruza"),
    ("pl", "noise_roll", "Rzut na szmery"),
    ("ru", "noise_roll", "Бросок на Шум"),
])
def test_explain_names_a_procedure_in_the_chosen_language(capsys, lang, name, label) -> None:
    assert main(["explain", name, "--lang", lang]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name}: procedure ({label})")

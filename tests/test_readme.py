"""The README stays what a new user needs (the project's charter): the two commands (the main job
and the tests, the latter exactly what CI runs), a tour of the layout whose paths exist, how to
write a card, and the sections a frontend or bot author looks for."""

from __future__ import annotations

import re
from pathlib import Path

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
    command = re.search(r"pip install -e '\.\[test\]' && ruff check \. && pytest[^\n]*", README).group(0)
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

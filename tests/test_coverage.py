"""The card-coverage report (nemesis_rules/coverage.py, tools/coverage_report.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nemesis_rules.coverage import END, START, CoverageError, render, report, splice

ROOT = Path(__file__).resolve().parents[1]

MODULE = """\
id: cov
name: Coverage test
version: 0.1.0
engine: ">=0.1,<1"
players: {min: 1, max: 2}
entry: main
"""

COMPONENTS = """\
kinds:
  card: {props: {colour: symbol}}
  token: {}
symbols: [red, blue]
zones:
  deck: {visibility: hidden}
  box: {visibility: secret}
components:
  - {id: red_card, kind: card, count: 3, zone: deck, props: {colour: red}}
  - {id: blue_card, kind: card, count: 2, zone: deck, props: {colour: blue}}
  - {id: odd_card, kind: card, zone: box}
  - {id: chip, kind: token, count: 4}
"""

RULES = "proc main():\n    pass\n"


def make_module(tmp_path: Path, coverage: str) -> Path:
    folder = tmp_path / "cov"
    folder.mkdir()
    (folder / "module.yaml").write_text(MODULE)
    (folder / "components.yaml").write_text(COMPONENTS)
    (folder / "rules.nem").write_text(RULES)
    (folder / "coverage.toml").write_text(coverage)
    return folder


GOOD = """\
[[decks]]
name = "Red"
size = 5
source = "rules L1"
select = {kind = "card", props = {colour = "red"}}
unknown = [{name = "two more red cards", count = 2, source = "rules L2"}]

[[decks]]
name = "Other cards"
source = "rules L3"
select = {zone = "deck", props = {colour = "blue"}, components = ["odd_card"]}
unknown = [{name = "what the odd card does", components = ["odd_card"], source = "rules L4"}]
"""


def test_counts_entities_and_components_per_deck(tmp_path):
    rep = report(make_module(tmp_path, GOOD))
    assert rep.module == "cov"
    assert rep.problems == ()
    red, other = rep.decks
    assert (red.entities, red.components, red.accounted) == (3, ("red_card",), 5)
    assert (other.entities, other.components) == (3, ("blue_card", "odd_card"))
    table = render(rep)
    assert "| Red | 5 | 3 / 1 | two more red cards (2) | rules L1 |" in table
    assert "| Other cards | unknown | 3 / 2 | what the odd card does (1 encoded) | rules L3 |" in table
    assert "what the odd card does (encoded as `odd_card`): rules L4" in table


@pytest.mark.parametrize("coverage, problem", [
    (GOOD.replace("count = 2", "count = 1"), "make 4, but the deck has 5"),
    (GOOD.replace(', components = ["odd_card"]}', "}"), "`odd_card` (kind `card`) is in no deck"),
    (GOOD.replace('props = {colour = "blue"}, ', ""), "`red_card` is in two decks"),
    (GOOD.replace('components = ["odd_card"], source = "rules L4"', 'components = ["chip"], source = "rules L4"'),
     "names `chip`, which is not one of the deck's components"),
    (GOOD.replace('components = ["odd_card"]}', 'components = ["ghost"]}'), "selects component `ghost`"),
])
def test_reports_where_the_file_and_the_components_disagree(tmp_path, coverage, problem):
    rep = report(make_module(tmp_path, coverage))
    assert any(problem in p for p in rep.problems), rep.problems
    assert problem.split("`")[0] in render(rep)


@pytest.mark.parametrize("coverage, message", [
    ("decks = 3\n", "only `[[decks]]` tables"),
    ("[[decks]]\nname = 'x'\nsource = 's'\n", "`select` needs"),
    ("[[decks]]\nname = 'x'\nselect = {kind = 'card'}\n", "source: needs a non-empty text"),
    ("[[decks]]\nname = 'x'\nsource = 's'\nselect = {kinds = 'card'}\n", "unknown select keys ['kinds']"),
    ("[[decks]]\nname = 'x'\nsource = 's'\nsize = -1\nselect = {kind = 'card'}\n", "whole number"),
    ("[[decks]]\nname = 'x'\nsource = 's'\nselect = {kind = 'card'}\nunknown = [{name = 'n', source = 's', "
     "count = 1, components = ['odd_card']}]\n", "not both"),
    ("[[decks]\n", "coverage.toml"),
])
def test_malformed_coverage_files_are_errors(tmp_path, coverage, message):
    with pytest.raises(CoverageError, match=message.replace("[", r"\[").replace("(", r"\(")):
        report(make_module(tmp_path, coverage))


def test_splice_replaces_only_between_the_markers():
    text = f"# Title\n\nintro\n\n{START}\nold table\n{END}\n\nafter\n"
    assert splice(text, "new") == f"# Title\n\nintro\n\n{START}\nnew\n{END}\n\nafter\n"
    with pytest.raises(CoverageError, match="markers"):
        splice("no markers here", "new")


def test_the_tool_writes_then_checks_a_module_readme(tmp_path):
    folder = make_module(tmp_path, GOOD)
    (folder / "README.md").write_text(f"# Cov\n\n{START}\n{END}\n")
    tool = [sys.executable, str(ROOT / "tools" / "coverage_report.py")]
    stale = subprocess.run([*tool, "--check", str(folder)], capture_output=True, text=True)
    assert stale.returncode == 1 and "is stale" in stale.stderr
    wrote = subprocess.run([*tool, str(folder)], capture_output=True, text=True)
    assert wrote.returncode == 0, wrote.stderr
    assert "| Red | 5 | 3 / 1 |" in (folder / "README.md").read_text()
    fresh = subprocess.run([*tool, "--check", str(folder)], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr


def test_shipped_readmes_have_fresh_coverage_tables():
    done = subprocess.run([sys.executable, "tools/coverage_report.py", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + "\n(run: python tools/coverage_report.py)"


def test_base_coverage_has_no_problems():
    rep = report("base")
    assert rep.problems == ()
    names = [d.deck.name for d in rep.decks]
    assert {"Event", "Intruder attack", "Contamination", "Action cards", "Room tiles"} <= set(names)


DECIDED = GOOD + """
[[decks]]
name = "Chips"
size = 4
source = "rules L5"
select = {kind = "token"}
decided = [{name = "the chips' colour", components = ["chip"], source = "DECISIONS D1"}, {name = "the order", source = "DECISIONS D2"}]
"""


def test_decided_entries_make_a_third_column(tmp_path):
    rep = report(make_module(tmp_path, DECIDED))
    assert rep.problems == ()
    table = render(rep)
    assert "| deck | size | encoded (entities / components) | decided | content unknown | source |" in table
    assert "| Chips | 4 | 4 / 1 | the chips' colour (1 encoded); the order (the deck) | none | rules L5 |" in table
    assert "| Red | 5 | 3 / 1 | none | two more red cards (2) | rules L1 |" in table
    assert "* Chips: the chips' colour (encoded as `chip`): DECISIONS D1" in table


def test_a_decided_entry_must_name_the_decks_components(tmp_path):
    bad = DECIDED.replace('components = ["chip"]', 'components = ["red_card"]')
    rep = report(make_module(tmp_path, bad))
    assert any("decided entry `the chips' colour` names `red_card`" in p for p in rep.problems)

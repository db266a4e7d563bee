"""The example mod of docs/modding.md (tests/fixtures/mod_example): three new cards written only
with documented features. It lints clean, loads with base and with each intruder race, hooks only
declared moments, and the walk-through shows its files as they are. Its scenarios are
tests/scenarios/mod_example/ (run by tests/test_scenarios.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules import load_ruleset
from nemesis_rules.dsl import ast
from nemesis_rules.ruleset.check_api import check_paths

ROOT = Path(__file__).resolve().parents[1]
MOD = ROOT / "tests" / "fixtures" / "mod_example"
BOARD = ROOT / "tests" / "fixtures" / "base_testboard"
CARDS = {"event_coolant_vent": "event_card", "item_signal_flare": "item_card",
         "weakness_fear_of_fire": "weakness_card"}
RACES = ((), ("carnomorphs",), ("void_seeders",), ("chytrids",))


def test_the_mod_lints_clean() -> None:
    diagnostics, _ = check_paths([MOD])
    assert [d for d in diagnostics if "mod_example" in d.span.file] == []


@pytest.mark.parametrize("race", RACES, ids=lambda r: "+".join(("base", *r)))
def test_the_mod_loads_with_base_and_each_race(race) -> None:
    rules = load_ruleset("base", *race, BOARD, MOD)
    components = rules.composition.components
    assert {cid: components[cid].spec.kind for cid in CARDS} == CARDS
    assert [d for d in rules.warnings if "mod_example" in d.span.file] == []


def test_the_mod_hooks_only_declared_moments() -> None:
    rules = load_ruleset("base", BOARD, MOD)
    comp = rules.composition
    moments = {n for n, d in comp.events.items() if d.module in ("base", "nemesis_core")}
    mine = [d.value for d in (*comp.hooks, *comp.triggers) if d.module == "mod_example"]
    assert mine, "the weakness is a hook"
    for d in mine:
        assert (d.target if isinstance(d, ast.HookDef) else d.event) in moments
    assert not [d for d in comp.procs.values() if d.module == "mod_example" and d.value.replace]
    assert "replace proc" not in (MOD / "rules.nem").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["module.yaml", "cards.yaml", "rules.nem", "i18n/en.yaml"])
def test_the_walk_through_shows_the_files_as_they_are(name: str) -> None:
    doc = (ROOT / "docs" / "modding.md").read_text(encoding="utf-8")
    assert (MOD / name).read_text(encoding="utf-8").rstrip("\n") in doc


@pytest.mark.parametrize("card", ["coolant_vent", "signal_flare", "fear_of_fire"])
def test_each_card_has_a_scenario_with_base_and_each_race(card: str) -> None:
    folder = ROOT / "tests" / "scenarios" / "mod_example"
    found = {p.stem.removeprefix(card + "_") for p in folder.glob(f"{card}_*.yaml")}
    assert {"base", "carnomorphs", "void_seeders", "chytrids"} <= found

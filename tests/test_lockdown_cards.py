"""Lockdown reads well to a new user (issue #34 point 4): every component of Lockdown and of its
adapters has an English name, and a card whose effect our sources do not give says so, in every
language, instead of reading as a plausible effect such as "Do nothing."."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules.lint.runner import lint_paths

ROOT = Path(__file__).resolve().parents[1]
LOCKDOWN_MODULES = ["lockdown", "aftermath_lockdown", "base_characters_lockdown", "carnomorphs_lockdown",
                    "chytrids_lockdown", "void_seeders_lockdown", "lockdown_medic"]


@pytest.mark.parametrize("module", LOCKDOWN_MODULES)
def test_every_component_has_an_english_name(module):
    findings, _ = lint_paths([ROOT / "rulesets" / module])
    missing = [f.message for f in findings if f.code == "W600" and "has no name in en" in f.message]
    assert missing == []


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from nemesis_rules.cli.main import main
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_catalog_shows_printed_names(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    code, out, err = cli(capsys, "cards", "--modules", "lockdown")
    assert code == 0, err
    names = {line.split()[0]: line for line in out.splitlines()[2:] if line.strip()}
    for cid, name in (("ns_attack_blood_rage_3", "Blood Rage"), ("hacker_neuralink", "Neuralink"),
                      ("ns_event_leaving_the_shell_a", "Leaving the Shell"), ("computer_lockdown", "Lock-down"),
                      ("ns_event_thats_hot", "That's Hot"), ("sentry_smg", "SMG")):
        assert name in names[cid], names[cid]
    assert "ns attack blood rage 3" not in out and "hacker neuralink" not in out


# the module sets that hold cards whose content our sources do not give
UNKNOWN_CONTENT_SETS = [("lockdown",), ("base", "chytrids"), ("lockdown", "chytrids"), ("base", "aftermath"),
                        ("lockdown", "aftermath")]


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
@pytest.mark.parametrize("modules", UNKNOWN_CONTENT_SETS, ids="+".join)
def test_a_card_of_unknown_content_reads_effect_unknown_never_do_nothing(modules, lang):
    from nemesis_rules.cli.catalog import browse, effect_summary, explain
    from nemesis_rules.cli.render import effect_unknown, words
    from nemesis_rules.dsl.describe import phrases
    from nemesis_rules.dsl.diagnostics import RulesError

    try:
        rules = browse(list(modules), lang)
    except RulesError as error:  # Lockdown ships no ru catalog (module.yaml `languages`)
        assert lang != "en" and "lockdown" in modules, error
        pytest.skip(f"{'+'.join(modules)} has no {lang} catalog")
    marked = [c for cid, c in rules.composition.components.items() if effect_unknown(rules, cid)]
    assert marked
    unknown = words(rules, "effect_unknown")
    nothing = phrases(lang).language["pass"]
    assert unknown.startswith("(") and unknown != "(effect unknown)" or lang == "en"
    for c in marked:
        assert effect_summary(rules, c) == unknown, c.spec.id
        text = explain(rules, c.spec.id)
        assert unknown in text and nothing.lower() not in text.lower(), text


def test_no_lockdown_card_reads_do_nothing():
    """A placeholder `pass` (Panic, Leaving the Shell, Blood Trace's empty Darkness part) read as
    "Do nothing.", which looks like printed text; no Lockdown card prints it."""
    from nemesis_rules.cli.catalog import browse, effect_summary

    rules = browse(["lockdown"], "en")
    readings = {cid: effect_summary(rules, c) for cid, c in rules.composition.components.items()}
    assert [cid for cid, text in readings.items() if "do nothing" in text.lower()] == []


def test_the_coverage_table_counts_the_mode_objectives_and_the_reference_cards():
    """pf3 §2.1: 10 Solo/Co-op Objectives; 5 Help, 5 Contingency Reference, 5 Night Stalker
    Reference cards. None is encoded; each is listed as unknown with its count."""
    from nemesis_rules.coverage import report

    rep = report(ROOT / "rulesets" / "lockdown")
    assert rep.problems == ()
    decks = {d.deck.name: d for d in rep.decks}
    objectives = decks["Solo/Co-op Objectives"]
    references = decks["Help, Contingency Reference and Night Stalker Reference cards"]
    assert (objectives.deck.size, objectives.accounted, objectives.exact) == (10, 10, True)
    assert (references.deck.size, references.accounted, references.exact) == (15, 15, True)
    assert [u.count for u in references.deck.unknown] == [5, 5, 5]

"""What a card's face reads to its holder (render.with_text, `nemesis cards`, the page's hand):
sentences from the catalogs' `readings:` (or a `##` doc comment in English), the holder as "you",
never a script call such as "Demolition (who)." nor an id; objectives as their conditions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nemesis_rules import load_ruleset
from nemesis_rules.cli import render
from nemesis_rules.dsl.describe import describe_face, phrases, summary
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.ruleset.check_api import check_paths
from tests.test_ruleset import _mod_on_toy

LANGS = ("en", "pl", "ru")
IDENTIFIER = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")  # `first_room`, `starting_weapon`: an id, no word


def _face(rules, cid: str) -> str:
    c = rules.composition.components[cid]
    ent = {"kind": c.spec.kind, "component": cid, "props": dict(c.spec.props)}
    return render.with_text(rules, ent, rules.label(cid))


def _cards(rules, kinds: tuple[str, ...]) -> list[str]:
    return [cid for cid, c in rules.composition.components.items() if c.spec.kind in kinds]


@pytest.mark.parametrize("lang", LANGS)
def test_every_base_action_card_item_and_objective_reads_as_text(lang: str) -> None:
    rules = cached_rules(("base",), lang)
    cards = _cards(rules, ("action_card", "item_card", "objective_card"))
    assert len(cards) > 100
    faces = {cid: _face(rules, cid) for cid in cards}
    assert [f for f in faces.values() if "(who" in f or IDENTIFIER.search(f)] == []
    assert [cid for cid, f in faces.items() if any(other in f for other in cards)] == []


@pytest.mark.parametrize("lang, demolition, search", [
    ("en", "Destroy a closed door of the room, or put a malfunction in it.",
     "Search the room: draw 2 items of a deck it allows, keep 1."),
    ("pl", "Zniszcz zamknięte drzwi pomieszczenia albo umieść w nim awarię.",
     "Przeszukaj pomieszczenie: dobierz 2 przedmioty z talii, którą ono dopuszcza, zatrzymaj 1."),
    ("ru", "Уничтожьте закрытую Дверь отсека или положите в него Неисправность.",
     "Обыщите отсек: возьмите 2 Предмета из колоды, которую он допускает, оставьте 1."),
])
def test_a_called_procedure_reads_as_its_catalog_reading_for_the_holder(lang, demolition, search) -> None:
    rules = cached_rules(("base",), lang)
    assert _face(rules, "captain_demolition").endswith(f": {demolition}")
    assert _face(rules, "item_flashlight").endswith(f": {search}")


@pytest.mark.parametrize("lang, text", [
    ("en", "You have sent the signal and the weakness of Intruder Carcass is discovered."),
    ("pl", "Wysłałeś sygnał i słabość (Zwłoki intruza) jest odkryta."),
    ("ru", "Вы отправили Сигнал и Слабость (Труп Чужого) раскрыта."),
])
def test_an_objective_reads_as_its_condition(lang: str, text: str) -> None:
    rules = cached_rules(("base",), lang)
    assert _face(rules, "objective_necroscopy").endswith(f": {text}")
    result = phrases(lang).language["return_value"].split("{")[0].strip()  # "the result is"
    objectives = [_face(rules, cid) for cid in _cards(rules, ("objective_card",))]
    assert [f for f in objectives if result.lower() in f.lower()] == []


def test_lockdown_reads_nemesis_cores_procedures_as_base_does() -> None:
    rules = cached_rules(("lockdown",), "en")
    assert _face(rules, "hacker_demolition") == "Demolition: Destroy a closed door of the room, or put a malfunction in it."


def test_a_face_without_a_reading_falls_back_to_the_doc_comment_in_english() -> None:
    rules = cached_rules(("retaliation",), "en")
    assert _face(rules, "recon_taking_aim") == \
        "Taking Aim: Set Taking Aim reroll to 1. The holder chooses to shoot or burst, then fires. Set Taking Aim reroll to 0."


@pytest.mark.parametrize("lang, text", [
    ("en", "Search: Search the room: draw items of its decks, keep 1."),
    ("pl", "Search: Przeszukaj pomieszczenie: dobierz przedmioty z jego talii, zatrzymaj 1."),
])
def test_retaliations_common_cards_read_from_its_readings(lang: str, text: str) -> None:
    rules = cached_rules(("retaliation",), lang)
    assert _face(rules, "officer_search") == text
    faces = [_face(rules, cid) for cid in _cards(rules, ("action_card",))]
    assert [f for f in faces if "(who" in f] == []


def test_a_retaliation_card_shows_its_title_as_its_name_and_no_title_prop() -> None:
    rules = cached_rules(("retaliation",), "en")
    c = rules.composition.components["combat_engineer_computer_skills"]
    ent = {"kind": c.spec.kind, "component": c.spec.id, "props": dict(c.spec.props)}
    label = render.entity_label(rules, {"entities": {"card": ent}}, "card", detail=True)
    assert label.startswith("Computer Skills: ")
    assert "title" not in label.lower() and "use the Computer Room" not in label
    assert "true" not in label  # a set flag reads as its name alone


def _gems(tmp_path: Path, readings: str) -> Path:
    folder = _mod_on_toy(tmp_path, "languages: [en]\n", {"en": f"names:\n  ruby: Ruby\nreadings:\n{readings}"})
    (folder / "cards.yaml").write_text("components:\n  - id: ruby\n    kind: card\n    zone: discard\n"
                                       "    props: {value: 1, suit: boost}\n    effect: |\n"
                                       "      take_turn(who)\n      check_goal()\n")
    return folder


def test_a_reading_fills_the_parameters_and_the_holder_reads_as_you(tmp_path: Path) -> None:
    folder = _gems(tmp_path, '  take_turn: "[{who} takes|take] a turn"\n  check_goal: "see whether someone won"\n')
    assert [d for d in check_paths([folder])[0] if d.is_error] == []
    rules = load_ruleset(folder)
    effect = rules.composition.procs["ruby.effect"].value  # the toy's cards print no `text:`
    assert summary(describe_face(rules, effect, "card", "who"), 99) == "Take a turn. See whether someone won."


@pytest.mark.parametrize("readings, code, words", [
    ('  take_turns: "take a turn"\n', "W601", "reading `take_turns` names no procedure or function"),
    ('  take_turn: "{kto} takes a turn"\n', "E602", "reading `take_turn` fills ['kto'], not parameters"),
])
def test_a_bad_reading_is_reported(tmp_path: Path, readings: str, code: str, words: str) -> None:
    found = [d for d in check_paths([_gems(tmp_path, readings)])[0] if d.code == code]
    assert [d.message for d in found if words in d.message] != [], [d.message for d in found]


def test_a_primitive_the_holder_does_reads_in_the_second_person() -> None:
    rules = cached_rules(("base",), "en")
    assert "You secretly look at card." in _face(rules, "scientist_risk_assessment")
    faces = [_face(rules, cid) for cid in _cards(rules, ("action_card", "item_card"))]
    assert [f for f in faces if re.search(r"\b[Yy]ou (chooses|secretly looks)\b", f)] == []

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


# Every card kind that prints a script on its face, in each module list and language a table plays.
FACES = [(("base",), lang) for lang in LANGS] + [(("retaliation",), "en"), (("retaliation",), "pl"), (("lockdown",), "en")] + [
    (("base", race), lang) for race, langs in (("aftermath", ("en", "pl")), ("carnomorphs", LANGS),
                                                ("void_seeders", LANGS), ("chytrids", ("en", "pl"))) for lang in langs]
ONE_LETTER_WORDS = {"en": {"a"}, "pl": {"a", "i", "o", "u", "w", "z"}, "ru": set()}


def _full_faces(rules) -> dict[str, str]:
    """Each card's whole face text (not cut to the screen's width)."""
    comp, faces = rules.composition, {}
    for cid, c in comp.components.items():
        field = comp.kinds[c.spec.kind].value.text if c.spec.kind in comp.kinds else None
        script = None if field is None else (comp.procs.get(f"{cid}.{field}") or comp.fns.get(f"{cid}.{field}"))
        if script is not None:
            holder = render.face_holder(rules, c.spec.kind, field)
            faces[cid] = " ".join(text for _, text in describe_face(rules, script.value, c.spec.kind, holder))
    return faces


def _one_letter_names(text: str, lang: str) -> list[str]:
    """A variable read as a letter: "choose t", "For each d in", or opening a sentence ("T: ...")."""
    found = re.finditer(r"(?<![\w.'’])([a-z])(?![\w'’])|(?:^|[.:] )([A-Z])(?=:)", text)
    return [m.group(0) for m in found if m.group(2) or m.group(1) not in ONE_LETTER_WORDS[lang]]


def _raw_arguments(text: str, lang: str) -> list[str]:
    """A call read as its name and bracketed arguments, one of them "you" or a letter:
    "gear count (you, Medpack)", "destroyed (c)" (a prompt or an `a if c, else b` is no call)."""
    words = phrases(lang).language
    otherwise = words["if_else"].split("{cond}")[1].split("{orelse}")[0]  # ", else "
    return [m.group(0) for m in re.finditer(r"\(([^()“]*)\)", text) if otherwise not in m.group(1)
            and any(item == words["you"] or re.fullmatch("[a-z]", item) for item in m.group(1).split(", "))]


def _leftovers(text: str, lang: str) -> list[str]:
    return [*_one_letter_names(text, lang), *_raw_arguments(text, lang), *IDENTIFIER.findall(text),
            *re.findall("everything in", text)]


def _untranslated_calls(rules) -> set[str]:
    """`name (` of each procedure and function the catalogs do not name, whose module ships the
    table's language: how a call without a reading shows (a module in English only may); one
    without parameters shows as its English name alone ("Noise roll everyone", base V16)."""
    comp = rules.composition
    ships = {m.id for m in comp.modules if rules.lang in m.manifest.languages}
    props = {p for k in comp.kinds.values() for p in k.value.props}  # `side (ten)` is a prop, read as pl reads one
    return {rules.label(n) + (" (" if d.value.params else "") for n, d in (*comp.procs.items(), *comp.fns.items())
            if d.module in ships and rules.label(n) == n.replace("_", " ") and n not in props
            and (d.value.params or " " in rules.label(n))}


@pytest.mark.parametrize("modules, lang", FACES, ids=lambda v: "+".join(v) if isinstance(v, tuple) else v)
def test_no_face_shows_script_leftovers(modules: tuple[str, ...], lang: str) -> None:
    """No letter for a chosen or looped-over thing, no call with bracketed arguments, no id, no
    "everything in": a card reads as sentences in every module list and language (base V9, V10)."""
    rules = cached_rules(modules, lang)
    faces = _full_faces(rules)
    calls = _untranslated_calls(rules) if lang != "en" else set()  # English reads the ## doc comments
    assert len(faces) > 60
    found = {cid: bad for cid, text in faces.items() if (bad := _leftovers(text, lang) + [c for c in calls if c in text.lower()
                                                                                       or c in text])}
    assert found == {}


@pytest.mark.parametrize("text, lang, bad", [
    ("You choose t from the characters. T: discard a serious wound.", "en", ["t", ". T"]),
    ("For each d in corridors of (c): if destroyed (c): ...", "en", ["d", "c", "c", "(c)", "(c)"]),
    ("If gear count (you, Medpack) is more than 0.", "en", ["(you, Medpack)"]),
    ("A card is one of everything in your Hand.", "en", ["everything in"]),
    ("Wybierasz jedno z listy (ty, jeśli go, w przeciwnym razie nic) w pomieszczeniu.", "pl", []),
    ("Zdrowie (ty) i Section A: first_room.", "pl", ["(ty)", "first_room"]),
])
def test_the_leftover_checks_find_what_they_name(text: str, lang: str, bad: list[str]) -> None:
    assert _leftovers(text, lang) == bad


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
        "Taking Aim: Set Taking Aim reroll to 1. Choose to shoot or burst, then fire. Set Taking Aim reroll to 0."
    assert _full_faces(rules)["event_damage"].endswith(" A hazard for every character in an unsecured room.")


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


@pytest.mark.parametrize("modules, lang, cid, text", [
    (("retaliation",), "en", "medical_support_field_surgery",
     "You choose one of the characters in your room with a serious wound (“Which Character?”). The chosen one: discard a serious wound."),
    (("retaliation",), "pl", "medical_support_first_aid",
     "Wybierasz: odzyskaj zdrowie: 1 albo weź żeton wyposażenia (Medpack)."),
    (("base",), "en", "objective_a_proper_burial", "Character Corpse (blue) is in your Hands."),
    (("base",), "en", "item_plasma_torch", "For each of the door tokens in the chosen one: Set state of that one to closed."),
    (("base",), "ru", "item_smoke_grenade", "Покиньте отсек в бою, не подвергаясь атаке."),
])
def test_what_a_face_chose_or_loops_over_reads_as_words(modules, lang, cid, text) -> None:
    """Issue #36's faces: "You choose t from ... T: discard", "For each d in", "is one of everything
    in Hands of you", "You leaves the room" (base V9, RT255)."""
    assert text in _full_faces(cached_rules(modules, lang))[cid]


def _choice_compared(text: str, lang: str) -> list[str]:
    """A choice's sentence read as an operand: "you choose one of ... (“Restore Health?”) is heal" (base V14)."""
    words = phrases(lang)
    operator = words.language["=="].split("{left}")[1].split("{right}")[0]  # " is ", " = "
    choosing = (words.language["you_choose"].split("{")[0], words.primitives["choose"].split("}", 1)[1].split("{")[0])
    return [m.group(1) for m in re.finditer(rf"(?:{'|'.join(map(re.escape, choosing))})[^.]*?([”»]\){re.escape(operator)})",
                                            text, re.IGNORECASE)]


def _a_verb_after_a_verb(text: str, lang: str) -> list[str]:
    """A phrase that reads a sentence where a noun belongs: "Put that one chooses one of" (base V14)."""
    return re.findall(r"\b(?:Put|put|Move|move|Discard|discard) \w+(?: \w+)? chooses\b", text) if lang == "en" else []


PLURALS = {"en": r"\b1 (?:\w+ )?(?:cards|intruders|injuries|hits|wounds|tokens|eggs)\b",
           "pl": r"\b1 (?:kart|intruzów|obrażeń)\b", "ru": r"(?!)"}  # ru writes the number after a colon


def _plural_of_one(text: str, lang: str) -> list[str]:
    """"1 contamination cards", "1 intruzów": a reading's number read by a plural noun (base V15)."""
    return re.findall(PLURALS[lang], text)


@pytest.mark.parametrize("modules, lang", FACES, ids=lambda v: "+".join(v) if isinstance(v, tuple) else v)
def test_no_face_reads_a_choice_as_a_value_or_a_plural_of_one(modules: tuple[str, ...], lang: str) -> None:
    faces = _full_faces(cached_rules(modules, lang))
    found = {cid: bad for cid, text in faces.items()
             if (bad := _choice_compared(text, lang) + _a_verb_after_a_verb(text, lang) + _plural_of_one(text, lang))}
    assert found == {}


@pytest.mark.parametrize("text, lang, bad", [
    ("If you choose one of heal (“Restore Health?”) is restore 1 Health: Restore 1 health.", "en", ["”) is "]),
    ("Jeśli wybierasz jedno z listy (x) („Które?”) = leczenie: ...", "pl", ["”) = "]),
    ("Put that one chooses one of the contents of Hand.", "en", ["Put that one chooses"]),
    ("The chosen one gains 1 contamination cards; 2 intruders appear.", "en", ["1 contamination cards"]),
    ("You choose: restore 1 health, or take a Medpack token.", "en", []),
    ("1 intruzów typu Truteń pojawia się w: ten.", "pl", ["1 intruzów"]),
])
def test_the_choice_and_plural_checks_find_what_they_name(text: str, lang: str, bad: list[str]) -> None:
    assert _choice_compared(text, lang) + _a_verb_after_a_verb(text, lang) + _plural_of_one(text, lang) == bad


@pytest.mark.parametrize("cid, text", [
    ("medical_support_first_aid", "You choose: restore 1 health, or take a Medpack token."),
    ("medical_support_field_surgery",
     "You choose one of the characters in your room with a serious wound (“Which Character?”). The chosen one: "
     "discard a serious wound. If how many Medpack tokens you have is more than 0, you choose: spend a Medpack "
     "token, or the chosen one gains 1 contamination card; otherwise: the chosen one gains 1 contamination card."),
])
def test_medical_supports_choices_read_as_a_choice_between_their_effects(cid: str, text: str) -> None:
    """`if choose(...) == X: A else: B` reads "you choose: A, or B" (base V14, RT260)."""
    assert _full_faces(cached_rules(("retaliation",), "en"))[cid] == text


@pytest.mark.parametrize("modules, lang, cid, text", [
    (("base", "carnomorphs"), "pl", "event_emergency_protocol_failure", "odlatuje: z postaciami na pokładzie startuje"),
    (("base", "void_seeders"), "ru", "void_event_evacuation_pod_ejection", "отстыковывается: с персонажами на борту"),
    (("retaliation",), "pl", "event_egg_protection", "Każda postać wykonuje rzut na hałas."),
])
def test_a_call_with_no_argument_or_of_an_english_only_module_reads_in_the_tables_language(modules, lang, cid, text):
    """`noise_roll_everyone()`, `eject_pod(...)` (carnomorphs_base, void_seeders_base) read from the
    shipped module's `readings:`, not as "Noise roll everyone", "Eject pod (...)" (base V16, RT261)."""
    assert text in _full_faces(cached_rules(modules, lang))[cid]

"""Scripts read back as sentences (nemesis_rules/dsl/describe.py): the toy cards in en/pl/ru,
every node kind, every script of the shipped rulesets, random trees, and the phrase tables."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings

from nemesis_rules import load_ruleset
from nemesis_rules.dsl import ast
from nemesis_rules.dsl.describe import (
    as_lines,
    describe_decl,
    describe_script,
    fill,
    phrases,
    summary,
)
from nemesis_rules.dsl.parse import parse_module
from nemesis_rules.engine.primitives import ENTITY_ATTRS, REGISTRY
from nemesis_rules.paths import phrases_dir
from tests.strategies import modules

FIXTURES = Path(__file__).parent / "fixtures"
TOY = FIXTURES / "toy"
LANGS = ("en", "pl", "ru")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
TOYS = {lang: load_ruleset(TOY, lang=lang) for lang in LANGS}


@pytest.fixture(params=LANGS)
def toy(request):
    return TOYS[request.param]


def read_card(rules, card: str) -> list[str]:
    comp = rules.composition
    return as_lines(describe_script(rules, comp.procs[f"{card}.effect"].value, comp.components[card].spec.kind))


# ---- the toy cards ----
SPRINT = {
    "en": "Increase position of who by value of this card.",
    "pl": "Pozycja (who) rośnie o wartość tego elementu.",
    "ru": "Позиция (who) увеличивается на значение этого элемента.",
}


def test_a_prop_increase_reads_as_a_sentence_naming_the_translated_prop(toy):
    assert read_card(toy, "sprint") == [SPRINT[toy.lang]]


def test_shove_reads_step_by_step_with_its_prompt_in_the_language(toy):
    lines = read_card(toy, "shove")
    assert len(lines) == 5 and lines[2].startswith("  - ")  # `return` nested under the `if`
    expected = {
        "en": ["Let others be: every p in the players where p is not who.",
               "If the number of others is 0:",
               "  - Stop here.",
               "who chooses target from others (“Whom do you shove?”).",
               "Announce: attacked (who, target, value of this card)."],
        "pl": ["Niech others będzie: każdy p z listy (gracze), dla którego p ≠ who.",
               "Jeśli liczba elementów listy (others) = 0:",
               "  - Zakończ tutaj.",
               "who wybiera target z listy (others) („Kogo pchasz?”).",
               "Ogłoś: attacked (who, target, wartość tego elementu)."],
        "ru": ["Пусть others будет: каждый p из списка (игроки), для которого p ≠ who.",
               "Если число элементов списка (others) = 0:",
               "  - На этом закончить.",
               "who выбирает target из списка (others) («Кого толкнуть?»).",
               "Объявить: attacked (who, target, значение этого элемента)."],
    }
    assert lines == expected[toy.lang]


# ---- a card whose scripts are not called `effect`: choices, loops, moves, announcements ----
GADGETS = {lang: load_ruleset(FIXTURES / "toy_gadgets", lang=lang) for lang in LANGS}
MAGNET_USE = {
    "en": ["who chooses target from every p in the players where p is not who (“Whose hand do you pull?”), "
           "or passes.",
           "If there is no target:",
           "  - Stop here.",
           "For each c in the contents of hand of target:",
           "  - Put c on top of hand of who.",
           "Announce: an attack (who, target, charges of this gadget).",
           "Decrease charges of this gadget by 1."],
    "pl": ["who wybiera target z listy (każdy p z listy (gracze), dla którego p ≠ who) („Czyją rękę przyciągasz?”) "
           "lub pasuje.",
           "Jeśli brak target:",
           "  - Zakończ tutaj.",
           "Dla każdego c z listy (zawartość (hand (target))):",
           "  - Połóż c na wierzch: hand (who).",
           "Ogłoś: atak (who, target, ładunki tego elementu).",
           "Ładunki tego elementu maleje o 1."],
    "ru": ["who выбирает target из списка (каждый p из списка (игроки), для которого p ≠ who) («Чью руку притянуть?») "
           "или пасует.",
           "Если нет target:",
           "  - На этом закончить.",
           "Для каждого c из списка (содержимое (hand (target))):",
           "  - Положить c наверх: hand (who).",
           "Объявить: атака (who, target, заряды этого элемента).",
           "Заряды этого элемента уменьшается на 1."],
}
MAGNET_DROPPED = {
    "en": ["Repeat charges of this gadget times:", "  - Deal 1 from the top of deck to hand of who.",
           "Put this gadget at the bottom of discard."],
    "pl": ["Powtórz ładunki tego elementu razy:", "  - Przenieś 1 z wierzchu (deck) do: hand (who).",
           "Połóż ten element na spód: discard."],
    "ru": ["Повторить заряды этого элемента раз:", "  - Переложить 1 сверху (deck) в: hand (who).",
           "Положить этот элемент под низ: discard."],
}


@pytest.mark.parametrize("lang", LANGS)
def test_any_script_field_reads_in_the_language(lang):
    rules = GADGETS[lang]
    procs = rules.composition.procs
    assert as_lines(describe_script(rules, procs["magnet.use"].value, "gadget")) == MAGNET_USE[lang]
    assert as_lines(describe_script(rules, procs["magnet.dropped"].value, "gadget")) == MAGNET_DROPPED[lang]


def test_flags_defaults_messages_and_owned_zones():
    rules = TOYS["en"]
    read = {d.value.event: as_lines(describe_decl(rules, d.value)) for d in rules.composition.triggers}
    assert read["attacked"][2] == "  - target chooses blocked from shields (“Block with a shield?”), or passes."
    assert read["attacked"][5] == "    - Tell everyone: “target blocks”."  # the message, its placeholder filled
    play = as_lines(describe_decl(rules, rules.composition.actions["play"].value))
    assert play[0] == "The action Play a card of who, cost 1:"
    assert "  - who chooses card from the contents of hand of who." in play
    assert "      - Put c on top of deck." in play
    assert "    - Deal 1 from the top of deck to hand of who." in play


def test_summary_cuts_at_a_word():
    reading = [(0, "Let others be: every p in the players where p is not who."), (1, "Stop here.")]
    assert summary(reading, width=200) == "Let others be: every p in the players where p is not who. Stop here."
    assert summary(reading, width=30) == "Let others be: every p in the…"


def test_fill_settles_optional_parts():
    template = "put {what} [at the bottom{bottom}|on top] of {to}[ ({why})]"
    assert fill(template, {"what": "x", "to": "z"}, "?") == "put x on top of z"
    assert fill(template, {"what": "x", "to": "z", "bottom": "", "why": "y"}, "?") == "put x at the bottom of z (y)"
    assert fill(template, {"to": "z"}, "…") == "put … on top of z"


# ---- every node kind ----
SNIPPETS = """
proc snippet(xs, n):
    let first_two = xs[0] + xs[1] * -n
    while n > 0:
        n -= 1
    pass
"""


def test_every_node_kind_has_a_reading():
    trees = [parse_module(path.read_text(encoding="utf-8"), str(path))[0]
             for path in sorted(FIXTURES.glob("rows/*/rules.nem")) + [TOY / "rules.nem"]]
    trees.append(parse_module(SNIPPETS)[0])
    kinds = set(typing.get_args(ast.Expr)) | set(typing.get_args(ast.Stmt)) | set(typing.get_args(ast.Decl))
    assert kinds <= {type(n) for tree in trees for n in ast.walk(tree)}  # the trees hold every kind
    for rules in TOYS.values():
        for tree in trees:
            for d in tree.decls:
                for line in as_lines(describe_decl(rules, d)):
                    assert "…" not in line and not PLACEHOLDER.search(line), line


@settings(max_examples=150, deadline=None)
@given(modules)
def test_any_tree_reads_in_every_language(module):
    for lang in LANGS:
        rules = TOYS[lang]
        for d in module.decls:
            assert all(isinstance(line, str) for line in as_lines(describe_decl(rules, d)))


# ---- every script the shipped rulesets hold ----
EXPANSIONS = ("carnomorphs", "void_seeders", "chytrids")


def _declarations(comp) -> list:
    found = [d.value for table in (comp.procs, comp.fns, comp.actions, comp.events) for d in table.values()]
    found += [d.value for d in (*comp.hooks, *comp.triggers, *comp.modifiers)]
    return found + [ast.PhaseDef(name, d.value) for name, d in comp.phases.items()]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("expansion", EXPANSIONS)
def test_every_ruleset_script_reads_without_error(expansion, lang):
    rules = load_ruleset("base", FIXTURES / "base_testboard", expansion, lang=lang)
    decls = _declarations(rules.composition)
    assert len(decls) > 200
    for d in decls:
        lines = as_lines(describe_decl(rules, d))
        assert lines and all(line.strip() for line in lines)


# ---- the phrase tables ----
def test_every_language_has_every_phrase():
    english = phrases("en")
    assert {p.stem for p in phrases_dir().glob("*.yaml")} == set(LANGS)
    assert set(english.attributes) == set(ENTITY_ATTRS)
    for lang in LANGS:
        table = phrases(lang)
        assert set(table.language) == set(english.language), lang
        assert set(table.attributes) == set(english.attributes), lang
        missing = set(REGISTRY) - set(table.primitives)
        assert not missing, f"primitives with no {lang} phrase: {sorted(missing)}"
        assert set(table.primitives) == set(REGISTRY), lang
        for key, template in table.language.items():
            assert set(PLACEHOLDER.findall(template)) <= set(PLACEHOLDER.findall(english.language[key])), (lang, key)


@pytest.mark.parametrize("lang", LANGS)
def test_primitive_phrases_name_their_parameters(lang):
    for name, template in phrases(lang).primitives.items():
        prim = REGISTRY[name]
        used = set(PLACEHOLDER.findall(template))
        assert used <= {p.name for p in prim.params}, (lang, name, template)
        assert {p.name for p in prim.params if p.required} <= used, (lang, name, template)
        assert template.count("[") == template.count("]"), (lang, name, template)


def test_an_unknown_language_reads_in_english():
    assert phrases("xx") == phrases("en")


CHOICES = """
proc pick(who, n):
    if choose(who, [1, 2], prompt="which") == 1:
        pass
    else:
        return
    if n > 0 and choose(who, [1, 2]) == 2:
        pass
    else:
        return
    if n > 1 or choose(who, [1, 2]) == 1:
        pass
    match choose(who, [1, 2]):
        case 1:
            pass
"""


def test_a_choice_compared_to_a_value_reads_as_a_choice_between_the_branches():
    """base V14: `if [c and] choose(...) == X: A else: B` reads "who chooses: A, or B"; inside a
    longer condition "who chooses X"; `match choose(...)` "who chooses one of ..., then:"."""
    rules = TOYS["en"]
    proc = next(d for d in parse_module(CHOICES)[0].decls if isinstance(d, ast.ProcDef))
    assert as_lines(describe_script(rules, proc)) == [
        "who chooses: do nothing, or stop here.",
        "If n is more than 0, who chooses: do nothing, or stop here; otherwise: stop here.",
        "If n is more than 1 or who chooses 1:",
        "  - Do nothing.",
        "who chooses one of 1, 2, then:",
        "  - If it is 1:",
        "    - Do nothing.",
    ]

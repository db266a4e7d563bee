"""Every decision a player meets asks its question in words (render.question): its prompt has a
message in each language the modules ship, and the question shows no raw id (`Movement: which
to?` was the fallback for an action's parameter without a message).

Two sources of prompts: random games of each shipped root (with `ask_forced`, so a choice of one
option is asked too), and every declared action's parameters (`movement.to`), which cover the
actions random games rarely reach. A `choose(..., prompt="...")` in a script needs no list here:
the checker refuses a prompt with no English message (E307), and the language check is W600's."""

from __future__ import annotations

import pytest

from nemesis_rules import Game
from nemesis_rules.bots import make_bot, play_turn
from nemesis_rules.cli import render
from nemesis_rules.openspiel import cached_rules

PLAYERS = 3
MOVES = 250
SEEDS = (1, 2)

# Catalogs that translate names but not yet the messages (base DECISIONS N4 counts them; V12, RT259):
# in them only the actions' parameters are asked, the prompts this file was written for.
NAMES_ONLY = {("lockdown", "pl"), ("retaliation", "pl"), ("neosoma", "pl")}

ROOTS = [
    (("base",), {}),
    (("lockdown",), {"board": "provisional"}),
    (("retaliation",), {}),
    (("neosoma",), {}),
    (("base", "aftermath"), {}),
    (("base", "carnomorphs"), {}),
    (("base", "void_seeders"), {}),
    (("base", "chytrids"), {}),
]


def shipped(rules, modules: tuple[str, ...]) -> set[str]:
    """The languages the listed modules ship (`languages:`): no other is asked."""
    manifests = {m.id: m.manifest for m in rules.composition.modules}
    return {lang for m in modules for lang in (manifests[m].languages or ())}


def missing(rules, modules: tuple[str, ...], key: str) -> list[str]:
    """The languages asked for in which prompt `key` has no message: those both the module list
    and the module holding the English message ship (a module's own languages, as W600 asks)."""
    catalogs = rules.composition.catalogs
    english = catalogs["en"].get(f"messages.{key}")
    if english is None:
        return ["en"]
    owner = next(m for m in rules.composition.modules if m.id == english.module)
    asked = shipped(rules, modules) & set(owner.manifest.languages or shipped(rules, modules))
    if "." not in key:  # not an action's parameter
        asked -= {lang for root, lang in NAMES_ONLY if root == modules[0]}
    return sorted(lang for lang in asked if f"messages.{key}" not in catalogs.get(lang, {}))


def game_prompts(rules, options: dict) -> set[str]:
    """The prompts met in random games (every decision, a forced one too)."""
    prompts: set[str] = set()
    for seed in SEEDS:
        game = Game.new(rules, PLAYERS, seed, ask_forced=True, **options)
        bots = {s: make_bot("random", f"{seed}:{s}") for s in range(PLAYERS)}
        for _ in range(MOVES):
            if game.over:
                break
            d = game.decision
            if d.prompt:
                prompts.add(d.prompt)
            assert "_" not in render.question(rules, d), (d.prompt, render.question(rules, d))
            play_turn(game, bots)
    return prompts


def action_prompts(rules) -> set[str]:
    """Every declared action's parameters, as the compiled action asks them (`movement.to`)."""
    return {f"{name}.{p.name}" for name, d in rules.composition.actions.items() for p in d.value.params}


@pytest.mark.parametrize(("modules", "options"), ROOTS, ids=["+".join(m) for m, _ in ROOTS])
def test_every_prompt_has_a_message_in_each_shipped_language(modules, options):
    rules = cached_rules(modules, "en")
    prompts = game_prompts(rules, options) | action_prompts(rules)
    gaps = {key: langs for key in sorted(prompts) if (langs := missing(rules, modules, key))}
    assert not gaps, gaps


@pytest.mark.parametrize("lang", ["en", "pl", "ru"])
def test_an_action_parameter_reads_as_a_question_with_no_raw_id(lang):
    rules = cached_rules(("base",), lang)
    decision = Game.new(rules, PLAYERS, 1).decision  # a real decision, asked again with each parameter's prompt
    for key in action_prompts(rules):
        asked = type(decision)(decision.player, key, None, decision.options, decision.optional, rules)
        text = render.question(rules, asked)
        assert text == rules.message(key) and "_" not in text, (key, text)


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", "Movement: choose some param"),
    ("pl", "Ruch: wybierz (some param)"),
    ("ru", "Перемещение: выберите (some param)"),
])
def test_a_parameter_without_a_message_reads_as_the_action_and_the_parameter(lang, expected):
    """A modder's action parameter with no prompt message (lint W604) still reads as words: the
    action's name and the parameter's label, not `drop item.thing` or `Movement: which to?`."""
    rules = cached_rules(("base",), lang)
    decision = Game.new(rules, PLAYERS, 1).decision
    asked = type(decision)(decision.player, "movement.some_param", None, decision.options, decision.optional, rules)
    assert render.question(rules, asked) == expected

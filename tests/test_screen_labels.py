"""Every label of the `nemesis play` screen and menu comes from the catalogs (issue #36 point 7):
a base game in Polish and Russian, and Lockdown in English, show no action, prop or kind by
its id (`shoot`, `movement`, `item class quest`)."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from nemesis_rules import Game
from nemesis_rules.bots import make_bot, play_turn
from nemesis_rules.cli import render
from nemesis_rules.openspiel import cached_rules

PLAYERS = 3
MOVES = 120


def raw_forms(rules, ids) -> set[str]:
    """How an id the catalog does not name would read: as it is, or with spaces for `_`."""
    return {form for i in ids if i not in rules.names for form in (i, i.replace("_", " "))}


def screens(modules: tuple[str, ...], lang: str, **options):
    """(screen text, option labels) of the deciding seat every few moves of a heuristic game."""
    rules = cached_rules(modules, lang)
    game = Game.new(rules, PLAYERS, 3, **options)
    bots = {s: make_bot("heuristic", s) for s in range(PLAYERS)}
    for move in range(MOVES):
        if game.over:
            break
        d = game.decision
        view = game.view(d.player)
        out = io.StringIO()
        if move % 10 == 0:
            render.view_screen(Console(file=out, width=200, highlight=False), rules, view)
        yield out.getvalue(), [render.option_label(rules, view, o) for o in d.options] + [render.question(rules, d)]
        play_turn(game, bots)


@pytest.mark.parametrize(("modules", "lang", "options"), [
    (("base",), "pl", {}),
    (("base",), "ru", {}),
    (("lockdown",), "en", {"board": "provisional"}),
])
def test_no_action_or_prop_shows_its_id(modules, lang, options):
    rules = cached_rules(modules, lang)
    actions = raw_forms(rules, [a.name for a in rules.program.actions])
    props = raw_forms(rules, {p for kind in rules.composition.kinds.values() for p in kind.value.props})
    menus = 0
    for screen, labels in screens(modules, lang, **options):
        assert not actions & set(labels), labels
        menus += "" != screen
        for details in re.findall(r" \[([^\]]*)\]", screen):  # an own entity's props: `[cost 1, when ...]`
            shown = [part.rsplit(" ", 1)[0] for part in details.split(", ")]
            assert not props & set(shown), details
    assert menus > 3

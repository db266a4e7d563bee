"""A pending decision tells its seat no more than the zones do (issue #39, point 1): an option
naming a card the seat may not identify (a contamination card face down in its own hand) shows
the zone's placeholder, never the card's id, and its label never its name."""

from __future__ import annotations

import random

from nemesis_rules import Game, load_ruleset
from nemesis_rules.cli import render


def _entity_ids(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _entity_ids(v)


def test_no_option_names_an_entity_its_seat_does_not_see() -> None:
    rules = load_ruleset("base")
    placeholders = 0
    for seed in (1, 2):
        game, rng = Game.new(rules, players=4, seed=seed), random.Random(seed)
        for _ in range(400):
            if game.over:
                break
            d = game.decision
            if d.player >= 0:
                seen = game.view(d.player)
                table_ids = game.state.entities
                for shown, option in zip(seen["decision"]["options"], d.options, strict=False):
                    for eid in _entity_ids(shown):
                        assert eid not in table_ids or eid in seen["entities"], (seed, d.prompt, eid)
                    if shown != option.value:
                        placeholders += 1
                        label = render.option_label(rules, seen, option)
                        assert option.value not in label and "infected" not in label.lower(), label
                        assert label == render.option_label(rules, seen, option)
            game.apply(rng.randrange(len(d)))
    assert placeholders > 0  # the games did reach a decision over hidden cards


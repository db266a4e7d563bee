"""The API hands out copies or immutable data, and refuses bools and floats where it means a seat
or an integer outcome (issue 14)."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import Game, IllegalMoveError, RulesError


def _played(rules, explicit_chance: bool = False) -> Game:
    game = Game.new(rules, players=3, seed=2, explicit_chance=explicit_chance)
    rnd = random.Random(0)
    for _ in range(8):
        if game.is_chance_node:
            game.apply_chance(game.chance_outcomes()[0][0])
        elif not game.over:
            game.apply(rnd.randrange(len(game.decision.options)))
    return game


def _scribble(value) -> None:
    """Change every mutable container reachable from `value`."""
    if isinstance(value, dict):
        for k in list(value):
            _scribble(value[k])
            value[k] = "scribbled"
        value["new"] = 1
    elif isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append("scribbled")


def test_editing_what_the_api_returns_changes_nothing(toy_rules) -> None:
    game = _played(toy_rules)
    while not game.over:
        game.apply(0)
    before = game.to_json()
    for seat in (None, 0, 1, 2):
        _scribble(game.view(seat))
    _scribble(game.log)
    _scribble(game.result)
    assert game.to_json() == before


def test_decision_options_are_immutable(toy_rules) -> None:
    game = _played(toy_rules)
    options = game.decision.options
    with pytest.raises((TypeError, AttributeError)):
        options.append(options[0])  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        options[0].value = "x"  # type: ignore[misc]


@pytest.mark.parametrize("seat", [True, False, 1.0, "0", -1, 3])
def test_view_refuses_what_is_not_a_seat(toy_rules, seat) -> None:
    with pytest.raises(RulesError):
        _played(toy_rules).view(seat)


def test_chance_outcomes_must_match_in_type(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=4, explicit_chance=True)
    while not game.is_chance_node:
        game.apply(0)
    before = game.to_json()
    outcome = game.chance_outcomes()[0][0]
    for bad in (True, float(outcome) if isinstance(outcome, int) else 1.0, "x", None):
        with pytest.raises(IllegalMoveError):
            game.apply_chance(bad)
    with pytest.raises(IllegalMoveError, match="chance node"):
        game.apply(0)
    assert game.to_json() == before
    game.apply_chance(outcome)


@pytest.mark.parametrize("seed", [10**5000, 10**50, -1, 2**64, True, 1.5], ids=["10**5000", "10**50", "-1", "2**64", "True", "1.5"])
def test_seeds_are_64_bit_integers(toy_rules, seed) -> None:
    with pytest.raises(RulesError):
        Game.new(toy_rules, players=2, seed=seed)
    Game.new(toy_rules, players=2, seed=2**64 - 1)


def test_a_template_substitutes_names_only(toy_rules) -> None:
    rules = toy_rules
    rules.messages["probe"] = "{who.__class__.__mro__} {who:>999999999} {who[0]} {{who}} {who} {missing}"
    try:
        text = rules.message("probe", {"who": "player0"})
    finally:
        del rules.messages["probe"]
    who = rules.label("player0")
    assert text == f"{{who.__class__.__mro__}} {{who:>999999999}} {{who[0]}} {{who}} {who} {{missing}}"


def test_message_texts_are_kept_exactly(toy_rules, monkeypatch) -> None:
    """A text is written once per message and arguments (Ruleset._texts), telling True from 1 and
    (True,) from (1,) as labels do; the store is emptied when full."""
    import nemesis_rules.api as api

    rules = toy_rules
    rules.messages["probe"] = "{what}"
    try:
        for value in (True, 1, (True,), (1,), "player1", None):
            assert rules.message("probe", {"what": value}) == rules._message("probe", {"what": value})
            assert rules.message("probe", {"what": value}) == rules._message("probe", {"what": value})
        assert rules.message("probe", {"what": True}) != rules.message("probe", {"what": 1})
        monkeypatch.setattr(api, "MAX_TEXTS", 3)
        for n in range(10):
            rules.message("probe", {"what": n})
            assert len(rules._texts) <= 3
    finally:
        del rules.messages["probe"]
        rules._texts.clear()


def test_a_decision_made_lazily_equals_one_made_whole(toy_rules) -> None:
    """Game.decision makes its texts and options at their first read; it must equal the record
    made from them whole, and `len` / `value_of` must agree with its options."""
    from nemesis_rules.api import Decision, Option
    rules = toy_rules
    game = Game.new(rules, players=2, seed=1)
    seen = 0
    while not game.over and seen < 40:
        d = game.decision
        whole = Decision(d.player, d.prompt, rules.message(d.prompt) if d.prompt else "",
                         [Option(o.index, o.value, rules.label(o.value)) for o in d.options], d.optional)
        assert d == whole and repr(d) == repr(whole) and list(d.options) == list(whole.options)
        assert len(d) == len(d.options) and [d.value_of(i) for i in range(len(d))] == [o.value for o in d.options]
        game.apply(seen % len(d))
        seen += 1
    assert seen > 3

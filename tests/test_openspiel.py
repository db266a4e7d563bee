"""The OpenSpiel-shaped adapter: random playouts through integer actions and chance outcomes."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import IllegalMoveError, load_ruleset
from nemesis_rules.openspiel import CHANCE_PLAYER, TERMINAL_PLAYER, SpielState
from tests.conftest import TOY

BOARD = TOY.parent / "base_testboard"


def playout(state: SpielState, rng: random.Random) -> tuple[int, int]:
    chance = decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            assert state.current_player() == CHANCE_PLAYER
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1) < 1e-9 and list(outcomes) == state.legal_actions()
            state.apply_action(rng.choices(outcomes, probs)[0])
            chance += 1
        else:
            assert 0 <= state.current_player() < state.num_players()
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return chance, decisions


@pytest.mark.parametrize(("modules", "players"), [((TOY,), 3), (("base", BOARD), 2)])
def test_random_playouts_end_with_returns(modules, players):
    rules = load_ruleset(*modules)
    for seed in range(3):
        state = SpielState.new(rules, players, seed)
        chance, decisions = playout(state, random.Random(seed))
        assert chance > 0 and decisions > 0
        assert state.current_player() == TERMINAL_PLAYER and state.legal_actions() == []
        assert sorted(set(state.returns())) <= [0.0, 1.0] and len(state.returns()) == players
        assert len(state.history()) == decisions


def test_clone_is_independent_and_illegal_actions_change_nothing():
    rules = load_ruleset(TOY)
    state = SpielState.new(rules, 2, 5)
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    copy = state.clone()
    before = str(state)
    assert state.action_to_string(CHANCE_PLAYER, 0)           # the outcome's label
    with pytest.raises(IllegalMoveError):
        state.apply_action(len(state.legal_actions()))
    assert str(state) == before
    state.apply_action(0)
    assert str(copy) == before and str(state) != before
    assert '"seat": 0' in copy.observation_string(0)

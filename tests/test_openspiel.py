"""The OpenSpiel-shaped adapter: random playouts through integer actions and chance outcomes."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from nemesis_rules import IllegalMoveError, Ruleset, load_ruleset
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


# ---- the real OpenSpiel: its own checks and bots (the `openspiel` extra) ----

def _pyspiel():
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (the `openspiel` extra)")
    from nemesis_rules.openspiel import register_games
    register_games()
    return pyspiel


def _spiel_game(modules: str, players: int, seed: int = 0):
    """The generic game over a whole module list (a test fixture among them)."""
    pyspiel = _pyspiel()
    return pyspiel, pyspiel.load_game("nemesis_modules", {"modules": modules, "players": players, "seed": seed})


SPIEL_GAMES = [(str(TOY), 3), (f"base+{BOARD}", 2)]
ROOT_NAMES = ["nemesis", "nemesis_lockdown", "nemesis_retaliation"]
RESEARCH = (Path(__file__).resolve().parents[1] / "docs" / "research.md").read_text(encoding="utf-8")
DOCUMENTED = re.findall(r"^\| `(nemesis\w*\(.*?\))` \|", RESEARCH, flags=re.M)  # the tested game strings


def test_only_playable_root_games_are_registered():
    from nemesis_rules.openspiel import root_games
    assert [g.name for g in root_games()] == ROOT_NAMES  # no library, expansion or adapter module
    pyspiel = _pyspiel()
    names = {g.short_name for g in pyspiel.registered_games() if g.short_name.startswith("nemesis")}
    assert names == {*ROOT_NAMES, "nemesis_modules"}


# Every registered name loads as it is; the random games are played with 1 player, which keeps the
# default suite short (the slow test below plays the defaults, 2 players, with serialization).
@pytest.mark.parametrize("name", [*ROOT_NAMES, "nemesis_modules"])
def test_every_registered_name_loads_and_passes_random_sim_test(name):
    pyspiel = _pyspiel()
    game = pyspiel.load_game(name)
    assert game.num_players() == 2 and game.get_type().short_name == name
    one = pyspiel.load_game(name, {"players": 1})
    pyspiel.random_sim_test(one, num_sims=1, serialize=name == "nemesis_retaliation", verbose=False)


def test_the_documented_game_strings_are_the_tested_ones():
    assert len(DOCUMENTED) >= 6 and any("modules=" in g and "+" in g for g in DOCUMENTED)


@pytest.mark.parametrize("game_string", DOCUMENTED)
def test_every_documented_game_string_passes_random_sim_test(game_string):
    pyspiel = _pyspiel()
    game = pyspiel.load_game(game_string)
    params = game.get_parameters()
    state = game.new_initial_state().spiel.game.state
    assert state.players == params["players"]
    assert all(state.options[name] == params[name] for name in ("mode", "board") if name in params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("game_string", [*ROOT_NAMES, *DOCUMENTED])
def test_registered_and_documented_games_many_random_sims(game_string):
    pyspiel = _pyspiel()
    pyspiel.random_sim_test(pyspiel.load_game(game_string), num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize(("game_string", "says"), [
    ("nemesis(modules=nope)", "no module `nope`"),
    ("nemesis(mode=xyz)", "option `mode` takes one of"),
    ("nemesis(players=9)", "players must be from 1 to 5"),
    ("nemesis(modules=carnomorphs+void_seeders)", "cannot be combined"),
    ("nemesis(options=mode)", "name:value pairs"),
    ("nemesis_modules(modules=)", "needs modules"),
])
def test_a_bad_game_string_is_a_clear_error(game_string, says):
    pyspiel = _pyspiel()
    with pytest.raises(Exception, match=re.escape(says)):
        pyspiel.load_game(game_string)


def test_a_root_game_loads_its_root_under_the_modules():
    pyspiel = _pyspiel()
    game = pyspiel.load_game("nemesis_lockdown(players=1,modules=lockdown_medic)")
    played = game.new_initial_state().spiel.game
    assert {"lockdown", "lockdown_medic"} <= set(played.rules.modules)
    assert played.state.options["board"] == "provisional"


@pytest.mark.parametrize(("modules", "players"), SPIEL_GAMES)
def test_pyspiel_mcts_plays_full_games_against_random(modules, players):
    pyspiel, game = _spiel_game(modules, players, seed=1)
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots, mcts
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    sims = 8 if "toy" in modules else 2
    bots = [mcts.MCTSBot(game, uct_c=2, max_simulations=sims, evaluator=evaluator, random_state=rng),
            *(pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(1, players))]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert len(returns) == players and set(returns) <= {0.0, 1.0}


def test_pyspiel_observations_come_from_the_seat_view():
    pyspiel, game = _spiel_game(str(TOY), 2, seed=4)
    state = game.new_initial_state()
    while state.is_chance_node() or not state.legal_actions():
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    other = 1 - seat
    spiel = SpielState(state.spiel.game)
    assert state.observation_string(seat) == spiel.observation_string(seat)
    assert state.observation_string(seat) != state.observation_string(other)  # hands are the seat's own
    assert '"own_actions": []' in state.information_state_string(other)
    tensor = state.observation_tensor(seat)
    assert len(tensor) == game.observation_tensor_size() and tensor[seat] == 1.0
    hand = state.spiel.game.view(other)["zones"][f"hand@player{seat + 1}"]
    assert "entities" not in hand  # the other seat only counts this seat's hand
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(copy) == str(state)


def test_pyspiel_game_parameters_reach_the_game():
    pyspiel, _ = _spiel_game(str(TOY), 2)
    game = pyspiel.load_game("nemesis_modules", {"modules": str(TOY), "players": 3, "seed": 8,
                                              "options": "length:short"})
    state = game.new_initial_state()
    assert game.num_players() == 3 and state.spiel.game.state.options == {"length": "short"}
    assert state.spiel.game.state.seed == 8


def test_actions_that_read_alike_get_distinct_names(monkeypatch):
    rules = load_ruleset(TOY)
    state = SpielState.new(rules, 2, 5)
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    monkeypatch.setattr(Ruleset, "label", lambda self, value: "Same")  # every outcome reads alike
    names = [state.action_to_string(CHANCE_PLAYER, a) for a in state.legal_actions()]
    assert len(names) > 1 and names == [f"Same ({i + 1})" for i in range(len(names))]


def test_shaped_rewards_are_off_by_default_and_add_up_to_the_returns():
    pyspiel = _pyspiel()
    for shaped in (False, True):
        game = pyspiel.load_game(f"nemesis(players=2,seed=2,shaped_rewards={shaped})")
        terminal = game.get_type().reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert terminal != shaped  # OpenSpiel's MCTS asks for end rewards only: the default
        state, rng = game.new_initial_state(), random.Random(2)
        totals = [0.0, 0.0]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            rewards = state.rewards()
            totals = [t + r for t, r in zip(totals, rewards, strict=True)]
        assert totals == pytest.approx(state.returns())  # the rewards of every move add up to the returns
        end = state.spiel.returns()
        assert (state.returns() == end) != shaped  # shaping moves the returns off the plain 1/0
    pyspiel.random_sim_test(pyspiel.load_game("nemesis(players=1,shaped_rewards=True)"), num_sims=1,
                            serialize=True, verbose=False)

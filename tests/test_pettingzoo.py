"""The PettingZoo environments, judged by PettingZoo's own `api_test`, `parallel_api_test` and
`seed_test`, with every warning they give turned into an error."""

from __future__ import annotations

import pytest

from tests.conftest import TOY

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (the `pettingzoo` extra)")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, parallel_api_test, seed_test  # noqa: E402

from nemesis_rules import IllegalMoveError  # noqa: E402
from nemesis_rules import pettingzoo as nemesis_zoo  # noqa: E402

BOARD = TOY.parent / "base_testboard"
# base and two expansions on the printed board; Retaliation: a board laid in play; the toy ruleset
GAMES = [(("base",), 2), (("base", "aftermath"), 2), (("base", "carnomorphs"), 1), (("retaliation",), 2),
         ((TOY,), 3)]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("modules", "players"), GAMES)
def test_api_test_passes_without_warnings(modules, players):
    env = nemesis_zoo.env(modules, players, render_mode="ansi")
    api_test(env, num_cycles=1000)  # 1000 cycles: the game is played to its end


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("modules", "players"), GAMES)
def test_parallel_api_test_passes_without_warnings(modules, players):
    parallel_api_test(nemesis_zoo.parallel_env(modules, players), num_cycles=1000)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize(("modules", "players"), GAMES)
def test_seed_test_passes_without_warnings(modules, players):
    seed_test(lambda: nemesis_zoo.env(modules, players), num_cycles=60)


def _legal(info: dict) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


def test_play_to_the_end_gives_end_rewards_and_renders_the_play_screen():
    env = nemesis_zoo.env((TOY,), 2, render_mode="ansi")
    env.reset(seed=11)
    screen = env.render()
    assert "Player" in screen and "1." in screen  # the seat's table and the numbered menu
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        assert env.observation_space(agent).contains(obs)
        if terminated:
            env.step(None)
            continue
        assert info["action_mask"].sum() >= 1
        env.step(_legal(info))
    assert env.agents == [] and env.game.over  # every agent stepped out at the end
    winners = set(env.game.result["winners"])
    assert totals == {f"player_{s}": 1.0 if s in winners else 0.0 for s in range(2)}


def test_masked_off_action_is_refused_and_changes_nothing():
    env = nemesis_zoo.env((TOY,), 2)
    env.reset(seed=2)
    before = env.game.to_json()
    info = env.infos[env.agent_selection]
    with pytest.raises(IllegalMoveError):
        env.step(int(info["action_mask"].sum()) + 5)
    assert env.game.to_json() == before
    other = next(a for a in env.possible_agents if a != env.agent_selection)
    assert env.infos[other]["action_mask"].sum() == 0  # only the seat to act has options


def test_parallel_env_plays_the_seat_to_act_and_refuses_a_missing_action():
    par = nemesis_zoo.parallel_env((TOY,), 2)
    obs, infos = par.reset(seed=5)
    mover = par.aec.agent_selection
    assert obs[mover]["action_mask"].sum() >= 1 and np.array_equal(infos[mover]["action_mask"], obs[mover]["action_mask"])
    before = par.aec.game.to_json()
    with pytest.raises(IllegalMoveError, match=f"{mover} is to act"):
        par.step({a: 0 for a in par.agents if a != mover})
    assert par.aec.game.to_json() == before
    totals = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) if obs[a]["action_mask"].any() else 0
                   for a in par.agents}
        obs, rewards, terminated, truncated, infos = par.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
    winners = set(par.aec.game.result["winners"])
    assert all(terminated.values()) and totals == {f"player_{s}": float(s in winners) for s in range(2)}
    with pytest.raises(IllegalMoveError, match="the game is over"):
        par.step({})


def test_the_same_seed_replays_the_same_game():
    runs = []
    for _ in range(2):
        env = nemesis_zoo.env((TOY,), 2)
        env.reset(seed=9)
        for _ in range(30):
            if env.game.over:
                break
            env.step(_legal(env.infos[env.agent_selection]))
        runs.append(env.game.to_json())
    assert runs[0] == runs[1]


def test_permuting_hidden_content_leaves_a_seats_observation_unchanged():
    """Player 2's hand and action deck are hidden from player 1 (base.md L716): swapping a card
    between them and reordering every zone player 1 only counts changes nothing player 1 observes,
    while player 2 (who sees its hand) observes the swap."""
    from nemesis_rules.engine.state import E_ZONE
    from nemesis_rules.openspiel import SpielState
    env = nemesis_zoo.env(("base",), 2)
    env.reset(seed=3)
    game = env.game
    while not game.state.zones["hand@player2"]:
        game.apply(0)
    seen = ("player_0", "player_1")
    before = [env.observe(a) for a in seen]
    text = SpielState(game).observation_string(0)
    counted_only = [z for z, shown in game.view(0)["zones"].items() if "entities" not in shown]
    assert {"hand@player2", "action_deck@player2"} <= set(counted_only)
    state = game.state
    hand, deck = state.zones["hand@player2"], state.zones["action_deck@player2"]
    hand[0], deck[0] = deck[0], hand[0]
    state.entities[hand[0]][E_ZONE], state.entities[deck[0]][E_ZONE] = "hand@player2", "action_deck@player2"
    for zone in counted_only:
        state.zones[zone].reverse()
    assert np.array_equal(env.observe("player_0"), before[0])
    assert SpielState(game).observation_string(0) == text
    assert not np.array_equal(env.observe("player_1"), before[1])

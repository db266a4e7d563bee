"""The PettingZoo AEC environment, judged by PettingZoo's own `api_test` and `seed_test`."""

from __future__ import annotations

import pytest

from tests.conftest import TOY

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (the `pettingzoo` extra)")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from nemesis_rules import IllegalMoveError  # noqa: E402
from nemesis_rules import pettingzoo as nemesis_zoo  # noqa: E402

BOARD = TOY.parent / "base_testboard"
GAMES = [((TOY,), 3), (("base", BOARD), 2), (("retaliation",), 2)]  # Retaliation: a board laid in play


# A dict observation with an action mask is PettingZoo's own way for masked games (its classic
# environments have one too); api_test only warns that it is not a plain array.
@pytest.mark.filterwarnings("ignore:Observation space for each agent", "ignore:Observation is not a NumPy array")
@pytest.mark.parametrize(("modules", "players"), GAMES)
def test_api_test_passes(modules, players):
    env = nemesis_zoo.env(modules, players, render_mode="ansi")
    api_test(env, num_cycles=1000)  # 1000 cycles: the game is played to its end


@pytest.mark.parametrize(("modules", "players"), GAMES)
def test_seed_test_passes(modules, players):
    seed_test(lambda: nemesis_zoo.env(modules, players), num_cycles=60)


def test_play_to_the_end_gives_end_rewards_and_renders_the_play_screen():
    env = nemesis_zoo.env((TOY,), 2, render_mode="ansi")
    env.reset(seed=11)
    screen = env.render()
    assert "Player" in screen and "1." in screen  # the seat's table and the numbered menu
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated:
            env.step(None)
            continue
        assert obs["action_mask"].sum() >= 1
        env.step(int(obs["action_mask"].argmax()))
    assert env.agents == [] and env.game.over  # every agent stepped out at the end
    winners = set(env.game.result["winners"])
    assert totals == {f"player_{s}": 1.0 if s in winners else 0.0 for s in range(2)}


def test_masked_off_action_is_refused_and_changes_nothing():
    env = nemesis_zoo.env((TOY,), 2)
    env.reset(seed=2)
    before = env.game.to_json()
    obs = env.observe(env.agent_selection)
    with pytest.raises(IllegalMoveError):
        env.step(int(obs["action_mask"].sum()) + 5)
    assert env.game.to_json() == before
    other = next(a for a in env.possible_agents if a != env.agent_selection)
    assert env.observe(other)["action_mask"].sum() == 0  # only the seat to act has options

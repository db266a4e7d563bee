"""Shaped rewards (module.yaml `rewards:`, nemesis_rules/rewards.py): off by default, the module's
terms when a learner asks, and a bad term is a lint finding at its place."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from nemesis_rules import RulesError
from nemesis_rules.ruleset.compose import compose
from nemesis_rules.ruleset.validate import validate
from tests.conftest import TOY

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (the `pettingzoo` extra)")

import numpy as np  # noqa: E402

from nemesis_rules import pettingzoo as nemesis_zoo  # noqa: E402

TOY_REWARDS = """rewards:
  progress: {player: position, weight: 0.5}
  advances: {message: advanced, weight: 0.1}
  rounds: {counter: round, weight: 0.01}
"""


def toy_with(tmp_path: Path, rewards: str) -> Path:
    """A copy of the toy module whose module.yaml ends with `rewards`."""
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    (folder / "module.yaml").write_text((TOY / "module.yaml").read_text() + rewards)
    (folder / "rewards.nem").write_text("fn position(p) = p.pos\n")
    return folder


def play(env, seed: int, facts=None) -> tuple[dict[str, list[float]], object]:
    """A random game to its end: every reward each agent was given, in order, and `facts` of the
    game's first position."""
    env.reset(seed=seed)
    first = facts(env.game.state) if facts else None
    rng = random.Random(seed)
    given = {a: [] for a in env.possible_agents}
    for agent in env.agent_iter():
        _, reward, terminated, _, info = env.last()
        given[agent].append(reward)
        env.step(None if terminated else rng.choice(np.flatnonzero(info["action_mask"]).tolist()))
    return given, first


def toy_facts(state) -> list[float]:
    """The toy terms: each seat's position (0 until set, its kind's default), the `advanced` log
    entries and the round, times their weights."""
    advanced = sum(1 for e in state.log if e["msg"] == "advanced")
    return [0.5 * state.entities[f"player{seat + 1}"][2].get("pos", 0) + 0.1 * advanced + 0.01 * state.counters["round"]
            for seat in range(state.players)]


def test_shaped_rewards_are_the_terms_change_and_off_by_default(tmp_path):
    folder = toy_with(tmp_path, TOY_REWARDS)
    plain, _ = play(nemesis_zoo.env((folder,), 2), seed=4)
    assert all(r == 0.0 for rewards in plain.values() for r in rewards[:-1])  # only the end rewards
    env = nemesis_zoo.env((folder,), 2, shaped_rewards=True)
    shaped, first = play(env, seed=4, facts=toy_facts)
    last = toy_facts(env.game.state)
    winners = set(env.game.result["winners"])
    assert last != first
    for seat, agent in enumerate(env.possible_agents):
        assert sum(shaped[agent]) == pytest.approx(float(seat in winners) + last[seat] - first[seat])
        assert sum(plain[agent]) == float(seat in winners)


def test_base_shaped_rewards_follow_its_terms():
    """Base's terms (nemesis_core and base module.yaml): alive 0.1, survived 0.3, each intruder's
    death 0.05 to every seat, and each weakness found or own Signal sent 0.1; at the start every
    character is alive, none is safe, nothing is dead, found or sent."""
    env = nemesis_zoo.env(("base",), 2, shaped_rewards=True)
    shaped, _ = play(env, seed=6)
    state = env.game.state
    winners = set(env.game.result["winners"])
    deaths = sum(1 for e in state.log if e["msg"] == "intruder_dies")
    found = sum(1 for e, rec in state.entities.items() if rec[0] == "weakness_space" and rec[2].get("discovered"))
    for seat, agent in enumerate(env.possible_agents):
        props = state.entities[f"player{seat + 1}"][2]
        alive, safe = props["status"] != "killed", props["status"] in ("asleep", "launched")
        expected = (float(seat in winners) + 0.1 * (alive - 1) + 0.3 * safe + 0.05 * deaths
                    + 0.1 * (found + props.get("signal", False)))
        assert sum(shaped[agent]) == pytest.approx(expected)
    assert any(r not in (0.0, 1.0) for rewards in shaped.values() for r in rewards)


def test_shaped_rewards_need_declared_terms():
    with pytest.raises(RulesError, match="declare no `rewards:` terms"):
        nemesis_zoo.env((TOY,), 2, shaped_rewards=True)


@pytest.mark.parametrize(("rewards", "code", "text"), [
    ("  a: {player: positon, weight: 1}\n", "E302", "unknown function `positon`"),
    ("  a: {counter: rund, weight: 1}\n", "E300", "unknown counter `rund`"),
    ("  a: {message: advance, weight: 1}\n", "E307", "unknown message key `advance`"),
    ("  a: {weight: 1}\n", "E201", "names 0 sources"),
    ("  a: {counter: round, message: advanced, weight: 1}\n", "E201", "names 2 sources"),
])
def test_a_bad_reward_term_is_a_diagnostic(tmp_path, rewards, code, text):
    comp = compose([toy_with(tmp_path, "rewards:\n" + rewards)])
    validate(comp)
    found = [d for d in comp.diagnostics if d.is_error]
    assert [(d.code, d.span.line) for d in found] == [(code, len((TOY / "module.yaml").read_text().splitlines()) + 2)]
    assert text in found[0].message

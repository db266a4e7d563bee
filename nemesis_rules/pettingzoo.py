"""A ruleset as PettingZoo environments (the `pettingzoo` extra): turn by turn (AEC) or parallel.

    from nemesis_rules import pettingzoo
    env = pettingzoo.env(modules=("base",), players=4, render_mode="ansi")
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated else env.action_space(agent).sample(info["action_mask"])
        env.step(action)

Agents are `player_0` .. `player_<n-1>`, one a seat. The agent to act is the seat of the current
decision (a seat may act several times in a row). An action is the index of an option. The
observation is the seat's view as a float32 vector (`openspiel.ViewEncoder`, layout in
docs/research.md), built from `Game.view(seat)` only, in a `Box` with finite bounds; the info's
`action_mask` has 1 for each option of the seat's current decision (all 0 for the others).
`parallel_env()` steps the same game in PettingZoo's parallel API: every live agent gives an
action, the seat to act's is taken, and its observation is `{"observation", "action_mask"}`.
Rolls and draws use the game's seeded generator (`reset(seed=...)`). Rewards come at the end: 1
to each winner, 0 to the others; `shaped_rewards=True` adds the module's `rewards:` terms at
every move (docs/research.md). `render()` is the screen `nemesis play` shows the seat to act (the
public table once the game is over).
"""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as error:
    raise ImportError(f"nemesis_rules.pettingzoo needs {error.name}: pip install 'nemesis-rules[pettingzoo]'") from error

from nemesis_rules.api import Game
from nemesis_rules.cli import render
from nemesis_rules.dsl.diagnostics import IllegalMoveError, RulesError
from nemesis_rules.openspiel import MAX_ACTIONS, ViewEncoder, cached_rules
from nemesis_rules.rewards import Shaping

SCREEN_WIDTH = 120


def env(modules: Sequence[str | Path] = ("base",), players: int = 2, render_mode: str | None = None,
        options: dict[str, Any] | None = None, lang: str = "en", max_actions: int = MAX_ACTIONS,
        shaped_rewards: bool = False) -> NemesisEnv:
    """An AEC environment for a game of `modules` with `players` seats; `shaped_rewards` adds the
    module's `rewards:` terms at every move (RulesError if the modules declare none)."""
    return NemesisEnv(modules, players, render_mode, options, lang, max_actions, shaped_rewards)


def parallel_env(modules: Sequence[str | Path] = ("base",), players: int = 2, render_mode: str | None = None,
                 options: dict[str, Any] | None = None, lang: str = "en", max_actions: int = MAX_ACTIONS,
                 shaped_rewards: bool = False) -> NemesisParallelEnv:
    """A parallel environment for the same game: `step` takes a dict of actions, one an agent."""
    return NemesisParallelEnv(env(modules, players, render_mode, options, lang, max_actions, shaped_rewards))


class NemesisEnv(AECEnv):
    metadata = {"name": "nemesis_rules_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, modules: Sequence[str | Path], players: int, render_mode: str | None,
                 options: dict[str, Any] | None, lang: str, max_actions: int, shaped_rewards: bool = False) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise RulesError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.rules = cached_rules(tuple(str(m) for m in modules), lang)
        self.players, self.game_options, self.render_mode = players, dict(options or {}), render_mode
        self.max_actions = max_actions
        self.shaping = Shaping(self.rules) if shaped_rewards else None
        self.game = Game.new(self.rules, players, 0, **self.game_options)  # checks players and options
        self.encoder = ViewEncoder(self.game, max_actions)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.vector_space = spaces.Box(np.array(self.encoder.low, np.float32), np.array(self.encoder.high, np.float32),
                                       dtype=np.float32)
        self.observation_spaces = {a: self.vector_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(max_actions) for a in self.possible_agents}
        self._seeds = random.Random()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
        self.game = Game.new(self.rules, self.players, self._seeds.randrange(2**31), **self.game_options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._potentials = self.shaping.potentials(self.game) if self.shaping else None
        self._after_move()

    def observe(self, agent: str) -> np.ndarray:
        seat = self.possible_agents.index(agent)
        return np.array(self.encoder.encode_seat(self.game, seat), np.float32)

    def action_mask(self, agent: str) -> np.ndarray:
        """1 for each option of the agent's current decision (all 0 when another seat is to act)."""
        mask = np.zeros(self.max_actions, np.int8)
        d = self.game.decision
        if d is not None and d.player == self.possible_agents.index(agent):
            mask[[o.index for o in d.options]] = 1
        return mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or isinstance(action, bool) or int(action) != action:
            raise IllegalMoveError(f"{agent} must take an option index, got {action!r}")
        self.game.apply(int(action))  # IllegalMoveError for a masked-off index; nothing changes
        self._cumulative_rewards[agent] = 0.0
        self.rewards = self._shaped_rewards()
        self._after_move()

    def _shaped_rewards(self) -> dict[str, float]:
        """Each agent's change of potential at this move (all 0.0 without shaping)."""
        if self.shaping is None:
            return dict.fromkeys(self.agents, 0.0)
        now = self.shaping.potentials(self.game)
        changes = {a: now[i] - self._potentials[i] for i, a in enumerate(self.possible_agents) if a in self.agents}
        self._potentials = now
        return changes

    def _after_move(self) -> None:
        """Hand the turn to the seat of the next decision, or end the game with its rewards."""
        for agent in self.agents:
            self.infos[agent] = {"action_mask": self.action_mask(agent)}
        d = self.game.decision
        if d is not None:
            self.agent_selection = self.possible_agents[d.player]
            self._accumulate_rewards()
            return
        winners = set(self.game.result["winners"])
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] += 1.0 if seat in winners else 0.0
            self.terminations[agent] = True
        self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.screen()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def screen(self) -> str:
        """The text `nemesis play` shows the seat to act, or the public table and the result."""
        out = io.StringIO()
        console = Console(file=out, width=SCREEN_WIDTH, color_system=None, highlight=False, soft_wrap=True)
        d = self.game.decision
        view = self.game.view(d.player if d else None)
        render.view_screen(console, self.rules, view)
        if d is not None:
            render.menu(console, self.rules, d, view)
        else:
            render.result_screen(console, self.rules, self.game.result)
        return out.getvalue()

    def close(self) -> None:
        pass


class NemesisParallelEnv(ParallelEnv):
    """The game in PettingZoo's parallel API: a step takes every live agent's action and plays the
    one of the seat to act (the others wait: a turn-based game has one mover at a time). The
    observation carries the action mask, as PettingZoo's parallel test and most parallel learners
    read it there: `{"observation": the seat's vector, "action_mask": ...}`."""

    metadata = {"name": "nemesis_rules_parallel_v0", "render_modes": ["ansi", "human"]}

    def __init__(self, aec: NemesisEnv) -> None:
        self.aec = aec
        self.render_mode = aec.render_mode
        self.possible_agents = list(aec.possible_agents)
        space = spaces.Dict({"observation": aec.vector_space,
                             "action_mask": spaces.Box(0, 1, (aec.max_actions,), np.int8)})
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = aec.action_spaces
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: dict(self.aec.infos[a]) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the action of the seat to act (IllegalMoveError if it is missing or not an option;
        nothing changes then); the other agents' actions are not used."""
        if not self.agents:
            raise IllegalMoveError("the game is over: reset() starts a new one")
        mover = self.aec.agent_selection
        if mover not in actions:
            raise IllegalMoveError(f"{mover} is to act: give its action (got actions for {sorted(actions)})")
        self.aec.step(actions[mover])
        rewards = {a: float(self.aec.rewards[a]) for a in self.agents}
        over = self.aec.game.over
        done = dict.fromkeys(self.agents, over)
        observations = self._observations()
        infos = {a: dict(self.aec.infos[a]) for a in self.agents}
        truncated = dict.fromkeys(self.agents, False)
        if over:
            self.agents = []
        return observations, rewards, done, truncated, infos

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: {"observation": self.aec.observe(a), "action_mask": self.aec.action_mask(a)} for a in self.agents}

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

"""The shape OpenSpiel users know, over a `Game`: integer actions, a chance player, returns.

A thin adapter, not a second engine, and it needs no `pyspiel`:

    state = SpielState.new(rules, players=3, seed=7)   # chance nodes explicit
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    state.returns()          # 1.0 for each winner, else 0.0

Actions are option indices at a decision and outcome indices at a chance node (the outcomes in
the order `Game.chance_outcomes()` gives them). Observations are the seat's view as JSON, so
an agent sees what a player may see and no more.
"""

from __future__ import annotations

import json
from typing import Any

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.dsl.diagnostics import IllegalMoveError

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4  # pyspiel.PlayerId.TERMINAL


class SpielState:
    def __init__(self, game: Game) -> None:
        self.game = game

    @classmethod
    def new(cls, rules: Ruleset, players: int, seed: int = 0, **options: Any) -> SpielState:
        """A new game whose rolls, picks and random draws are chance nodes."""
        return cls(Game.new(rules, players, seed, explicit_chance=True, **options))

    def num_players(self) -> int:
        return self.game.state.players

    def current_player(self) -> int:
        if self.game.over:
            return TERMINAL_PLAYER
        if self.game.is_chance_node:
            return CHANCE_PLAYER
        return self.game.decision.player

    def is_terminal(self) -> bool:
        return self.game.over

    def is_chance_node(self) -> bool:
        return self.game.is_chance_node

    def legal_actions(self) -> list[int]:
        if self.game.over:
            return []
        if self.game.is_chance_node:
            return list(range(len(self.game.chance_outcomes())))
        return [o.index for o in self.game.decision.options]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """(action, probability) for each outcome of the pending chance node."""
        return [(i, p) for i, (_, p) in enumerate(self.game.chance_outcomes())]

    def apply_action(self, action: int) -> None:
        """Take option `action`, or outcome `action` at a chance node (IllegalMoveError if it is
        neither; the state is then unchanged)."""
        if self.game.is_chance_node:
            outcomes = self.game.chance_outcomes()
            if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(outcomes):
                raise IllegalMoveError(f"{action!r} is not an outcome: choose from 0 to {len(outcomes) - 1}")
            self.game.apply_chance(outcomes[action][0])
        else:
            self.game.apply(action)

    def action_to_string(self, player: int, action: int) -> str:
        if self.game.is_chance_node:
            return self.game.rules.label(self.game.chance_outcomes()[action][0])
        return self.game.decision.options[action].label

    def returns(self) -> list[float]:
        """1.0 for each winning seat, 0.0 for the others; all 0.0 before the end."""
        result = self.game.result if self.game.over else None
        winners = set(result["winners"]) if result else set()
        return [1.0 if seat in winners else 0.0 for seat in range(self.num_players())]

    def observation_string(self, player: int) -> str:
        return json.dumps(self.game.view(player), sort_keys=True, ensure_ascii=False)

    def history(self) -> list[int]:
        """The option indices taken so far (chance outcomes are not moves)."""
        return list(self.game.state.moves)

    def clone(self) -> SpielState:
        return SpielState(self.game.clone())

    def __str__(self) -> str:
        return self.game.to_json()

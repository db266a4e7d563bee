"""Shaped rewards for learners: the module's `rewards:` terms (module.yaml), off unless asked for.

Each term gives every seat a number on a position: a function of one player (true 1, false 0), a
counter, or how many log entries carry a message key. A seat's potential is the sum of the terms
times their weights; its shaped reward at a move is the change of its potential (potential-based
shaping: it leaves the best play of the game unchanged). The game's own end rewards come on top.
"""

from __future__ import annotations

from typing import Any

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import vm


class Shaping:
    """The potentials of the seats of a game of `rules`, from the module's `rewards:` terms."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.terms = sorted((name, d.value) for name, d in rules.composition.rewards.items())
        if not self.terms:
            raise RulesError(f"shaped rewards: the modules {list(rules.modules)} declare no `rewards:` terms "
                             "(module.yaml, docs/research.md)")

    def potentials(self, game: Game) -> list[float]:
        """Each seat's sum of weight times the term's value on the game now."""
        state = game.state
        rt = vm.Runtime(self.rules.program, state)
        seats = self.rules.program.player_ids[:state.players]
        potentials = [0.0] * len(seats)
        for name, term in self.terms:
            if term.player is not None:
                values = [_number(name, vm.call_function(rt, term.player, [pid])) for pid in seats]
            elif term.counter is not None:
                values = [_number(name, state.counters.get(term.counter, 0))] * len(seats)
            else:
                values = [float(sum(1 for e in state.log if e["msg"] == term.message))] * len(seats)
            potentials = [p + term.weight * v for p, v in zip(potentials, values, strict=True)]
        return potentials


def _number(term: str, value: Any) -> float:
    if isinstance(value, bool | int | float):
        return float(value)
    raise RulesError(f"reward term `{term}` gave {value!r}, not a number or true/false")

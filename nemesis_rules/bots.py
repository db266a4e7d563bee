"""Bots: frontends that pick an option from what their seat may see, never from the full state.

A bot gets a `Seen`: its seat, the current decision (prompt and labelled options) and, on
demand, what the seat sees: `seen.state` (its seen state, what the hooks read) or `seen.view`
(`game.view(seat)` without the log). It returns the index of an option.

* `RandomBot` picks uniformly. A bot keeps no state: its generator is made for each decision from
  its seed and the number of moves so far, so a saved game resumes with the same choices.
* `HeuristicBot` scores every option with weighted hooks, `(seen, option) -> float`, and takes
  the best (ties broken by that generator). The generic hooks know no game:
  - `avoid_passing`: do something rather than pass when the decision is optional;
  - `use_own_things`: prefer options that are entities in a zone the bot's player owns (play
    the cards in hand, use the items carried);
  - `target_the_leader`: when the options are players, prefer another player over oneself,
    and among the others the one whose visible numbers (the sum of its int props) are highest.
* A module teaches the heuristic bot its game in its own language: when it defines
  `fn bot_hint(me, prompt, option)`, the bot adds that score (weighted by `HINT_WEIGHT`) to the
  generic ones. The function runs on the seat's seen state (engine/view.py), a state that holds only
  what the seat may see, so a hint cannot read hidden cards even by mistake. Layered modules
  refine it with `modifier bot_hint(...) when ...: + ...`.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Callable, Sequence
from hashlib import sha512
from typing import Any, Protocol

from nemesis_rules.api import Decision, Game, Option
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine.program import Program
from nemesis_rules.engine.state import E_KIND, E_PROPS, E_ZONE, GameState, read_record
from nemesis_rules.engine.view import LazySeenState, SeenFunctions, sees_entity, view
from nemesis_rules.search import DEFAULT_PLAYOUTS, SearchBot


class _BotKinds(tuple):
    """The bot kinds by name; `in` also takes a search bot with its budget, `search:N` (N playouts a
    decision), so that every command that checks a kind against this list takes it."""

    def __contains__(self, kind: object) -> bool:
        return tuple.__contains__(self, kind) or (isinstance(kind, str) and search_budget(kind) is not None)


BOT_KINDS = _BotKinds(("random", "heuristic", "search"))


class Seen:
    """What a bot may look at: its seat, the decision, and its seat's view (made on demand)."""

    __slots__ = ("seat", "decision", "_game", "_game_state", "_view", "_state", "_hints")

    def __init__(self, game: Game, seat: int, decision: Decision) -> None:
        self.seat = seat
        self.decision = decision
        self._game = game
        # read, never changed: not through `game.state`, which makes the game compute its
        # functions afresh at every move (api.Game.state)
        self._game_state = game._state
        self._view: dict[str, Any] | None = None
        self._state: GameState | None = None
        self._hints: list[float] | None = None

    @property
    def view(self) -> dict[str, Any]:
        if self._view is None:  # the seat's view without its log, which no hook reads
            self._view = view(self.program, self._game_state, self.seat, with_log=False)
        return self._view

    @property
    def state(self) -> GameState:
        """A state holding only what the seat sees (hidden entities are placeholders), made from
        the game's state at its first read (engine/view.py `LazySeenState`). Read it during the
        decision only, never write to it."""
        if self._state is None:
            self._state = LazySeenState(self.program, self._game_state, self.seat)
        return self._state

    def sees(self, entity: Any) -> list | None:
        """The entity as the seat sees it (its record in `state`), or None when it does not see it
        (or `entity` is no entity id); reads the game's state without making `state`, and without
        copying a record that a clone of the game shares (read it, never change it)."""
        state = self._game_state
        if isinstance(entity, str) and sees_entity(self.program, state, self.seat, entity):
            return read_record(state.entities, entity)
        return None

    @property
    def program(self) -> Program:
        return self._game.rules.program

    def rng(self, seed: int | str) -> random.Random:
        """A generator for this decision alone, from the bot's seed and the number of moves made:
        a bot keeps no state of its own, so a saved game resumes with the same choices."""
        return seeded(f"{seed}/{self.decision_number}", random.Random.__new__(random.Random))

    @property
    def decision_number(self) -> int:
        return self._game.move_count

    def player_ids(self) -> list[str]:
        """The player entities in seat order (the engine creates one a seat, in order)."""
        return list(self.program.player_ids[:self._game_state.players])

    def me(self) -> str:
        return self.player_ids()[self.seat]

    def hints(self) -> list[float]:
        """The module's `bot_hint(me, prompt, option)` of every option, read from what the seat sees
        (all 0 when the module defines none).

        Raises:
            RulesError: the hint function failed; the message names the decision.
        """
        if self._hints is None:
            self._hints = self._module_hints()
        return self._hints

    def _module_hints(self) -> list[float]:
        options = self.decision.options
        if "bot_hint" not in self.program.fns:
            return [0.0] * len(options)
        fns = SeenFunctions(self.program, self.state, self._game.rules.fingerprint)
        me, prompt = self.me(), self.decision.prompt
        scores = []
        for o in options:
            score = fns.call("bot_hint", me, prompt, o.value)
            if isinstance(score, bool) or not isinstance(score, int):
                raise RulesError(f"bot_hint({me}, {prompt}, {o.value!r}) gave {score!r}, not a number")
            scores.append(float(score))
        return scores


def seeded(text: str, gen: random.Random) -> random.Random:
    """`gen` reseeded as `random.Random(text)` is, giving the same numbers: the text's bytes and
    their SHA-512 as one integer (Python's version-2 seeding of a str), handed straight to the C
    seeding; the pure-Python steps of `Random(text)` cost as much as the seeding itself."""
    data = text.encode()
    _random.Random.seed(gen, int.from_bytes(data + sha512(data).digest()))
    gen.gauss_next = None
    return gen


class Bot(Protocol):
    name: str

    def choose(self, seen: Seen) -> int: ...


class RandomBot:
    name = "random"

    def __init__(self, seed: int | str) -> None:
        self.seed = seed
        self._gen = random.Random(0)  # reseeded at every decision (`seeded`): it carries nothing over

    def choose(self, seen: Seen) -> int:
        return seeded(f"{self.seed}/{seen.decision_number}", self._gen).randrange(len(seen.decision))


Hook = Callable[[Seen, Option], float]


def avoid_passing(seen: Seen, option: Option) -> float:
    return -1.0 if option.value is None and len(seen.decision.options) > 1 else 0.0


def use_own_things(seen: Seen, option: Option) -> float:
    if not isinstance(option.value, str):
        return 0.0
    ent = seen.sees(option.value)
    zone = ent[E_ZONE] if ent else None
    return 0.5 if zone and zone.endswith("@" + seen.me()) else 0.0


def target_the_leader(seen: Seen, option: Option) -> float:
    players = seen.player_ids()
    if option.value not in players:
        return 0.0
    if option.value == seen.me():
        return -1.0
    others = sorted((_standing(seen, p), p) for p in players if p != seen.me())
    rank = [p for _, p in others].index(option.value)
    return (rank + 1) / len(others)


def _standing(seen: Seen, player: str) -> int:
    ent = seen.sees(player)  # a player entity lies face up outside any zone: every seat sees it
    props = {**seen.program.kind_defaults.get(ent[E_KIND], {}), **ent[E_PROPS]}
    return sum(v for v in props.values() if isinstance(v, int) and not isinstance(v, bool))


def module_hint(seen: Seen, option: Option) -> float:
    return seen.hints()[option.index]


GENERIC_HOOKS: list[tuple[Hook, float]] = [
    (avoid_passing, 2.0), (use_own_things, 1.0), (target_the_leader, 1.0),
]
HINT_WEIGHT = 1.0  # a module's hints are in its own units; it scales them against the generic ones


class HeuristicBot:
    name = "heuristic"

    def __init__(self, seed: int | str, hooks: Sequence[tuple[Hook, float]] | None = None) -> None:
        self.seed = seed
        self.hooks = list(GENERIC_HOOKS if hooks is None else hooks) + [(module_hint, HINT_WEIGHT)]

    def score(self, seen: Seen, option: Option) -> float:
        return sum(weight * hook(seen, option) for hook, weight in self.hooks)

    def choose(self, seen: Seen) -> int:
        options = seen.decision.options
        if len(options) == 1:
            return 0
        rng = seen.rng(self.seed)
        scored = [(self.score(seen, o), rng.random(), o.index) for o in options]
        return max(scored)[2]


def make_bot(kind: str, seed: int | str) -> Bot:
    """A bot by name (`random`, `heuristic`, `search` or `search:N`), seeded."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        return HeuristicBot(seed)
    playouts = search_budget(kind)
    if playouts is not None:
        return SearchBot(seed, HeuristicBot(seed), playouts)
    raise ValueError(f"unknown bot {kind!r}: choose from {', '.join(BOT_KINDS)} (search:N for N playouts)")


def search_budget(kind: str) -> int | None:
    """The playouts a decision of a `search` or `search:N` bot kind (None: not a search kind)."""
    name, colon, budget = kind.partition(":")
    if name != "search":
        return None
    if not colon:
        return DEFAULT_PLAYOUTS
    return int(budget) if budget.isdigit() and 0 < int(budget) <= 100_000 else None


def bot_seed(game_seed: int, seat: int) -> str:
    """A bot's own seed, derived from the game's (the same in every process and run)."""
    return f"bot:{game_seed}:{seat}"


def play_turn(game: Game, bots: dict[int, Bot]) -> None:
    """Let the bot of the deciding seat take the current decision."""
    d = game.decision
    assert d is not None, "play_turn() needs a game with a decision"
    game.apply(bots[d.player].choose(Seen(game, d.player, d)))

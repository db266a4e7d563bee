"""The search bot: information-set Monte Carlo tree search from one seat's view (docs/bots.md).

Each iteration plays on a *determinization*: a clone of the game in which every entity the seat
does not see is put, uniformly at random, in the place of an unseen entity it cannot be told
apart from, and the random generator is reseeded, so the clone holds the seat's knowledge and
nothing more (`Sampler`). On it the seat's own decisions follow a tree of its information sets
(single-observer ISMCTS: a node per decision as the seat sees it, UCB1 with availability counts);
past the tree's edge, and for every other seat, the heuristic bot plays. A playout stops when the
game ends or after `depth` decisions, and scores the position for the seat (`evaluate`):

* a game over: 1 when the seat is among the winners, else `SURVIVED` when the module's
  report function `player.survived` says so, else 0;
* a game going on: 0.5 + `bot_value(me)` / 200 clipped to [0, 1], when the module defines
  `fn bot_value(me)` (a number from about -100, lost, to 100, safe; read on the seat's seen state of
  the playout), else 0.5.

The bot keeps no state between decisions: its generator is made from its seed and the number of
moves (`Seen.rng`), so the same game and seed give the same choice.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

from nemesis_rules.api import Game
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import rng as engine_rng
from nemesis_rules.engine import vm
from nemesis_rules.engine.state import E_FACE, E_KIND, E_PROPS, E_ZONE, GameState, read_record
from nemesis_rules.engine.view import LazySeenState, SeenFunctions, view, zone_visible

DEFAULT_DEPTH = 20      # decisions a playout plays before it is scored (most of a round of 4 players)
ROOT_WIDTH = 4          # the root weighs the heuristic bot's best options only: a small budget goes further
MARGIN = 0.05           # another option replaces the heuristic bot's pick only when its mean beats it by this
EXPLORATION = 0.7       # UCB1's constant, for values in [0, 1]
SURVIVED = 0.6          # a survivor who did not win is worth more than a death, less than a win
VALUE_FN = "bot_value"  # the module's position score for a player, if it defines one
SEARCH_HERE_FN = "bot_search_here"  # the module's say on which decisions are worth a search, if it defines one


DEFAULT_PLAYOUTS = 8  # a search bot's playouts a decision, when its kind names none (docs/bots.md)


class SearchBot:
    """`rollout` is the bot that ranks the options and plays the other seats and the playouts (the
    heuristic bot, given by `bots.make_bot`, which imports this module and not the other way)."""

    name = "search"

    def __init__(self, seed: int | str, rollout: Any, playouts: int = DEFAULT_PLAYOUTS,
                 depth: int = DEFAULT_DEPTH) -> None:
        if playouts < 1 or depth < 1:
            raise ValueError(f"a search bot needs at least 1 playout and a depth of 1, got {playouts} and {depth}")
        self.seed, self.playouts, self.depth = seed, playouts, depth
        self.rollout = rollout

    def choose(self, seen: Any) -> int:
        """The heuristic bot's pick, unless the playouts find one of its next best clearly better."""
        options = seen.decision.options
        if len(options) == 1:
            return 0
        if not worth_searching(seen):
            return self.rollout.choose(seen)
        ranked = sorted(options, key=lambda o: -self.rollout.score(seen, o))
        candidates = [o.index for o in ranked[:ROOT_WIDTH]]
        gen = seen.rng(f"search:{self.seed}")
        self._seen_type = type(seen)  # how the rollout bot is shown a sampled world
        sampler = Sampler(seen._game, seen.seat)
        root = Node()
        for _ in range(self.playouts):
            try:
                self._iterate(sampler.world(gen), seen.seat, root, candidates, gen)
            except RulesError:  # the rules broke in this sampled world: the playout tells nothing
                continue
        return root.best(candidates[0])

    def _iterate(self, world: Game, seat: int, root: Node, candidates: list[int], gen: random.Random) -> None:
        """One playout on one determinization, its value backed up along the seat's tree path."""
        path: list[tuple[Node, Any]] = []
        node: Node | None = root
        for _ in range(self.depth):
            d = world.decision
            if d is None:
                break
            if d.player == seat and node is not None:
                # the root's options are the candidates, by index; below it, the information set
                # the seat's last choice led to, its options told apart by value
                keys = candidates if not path else [o.value for o in d.options]
                if path:
                    node = node.child(path[-1][1], signature(d))
                at, fresh = node.select(keys, gen)
                path.append((node, keys[at]))
                index = keys[at] if len(path) == 1 else at
                node = None if fresh else node  # a new leaf: the heuristic plays on
            else:
                index = self.rollout.choose(self._seen_type(world, d.player, d))
            world.apply(index)
        value = evaluate(world, seat)
        for n, key in path:
            n.update(key, value)


class Node:
    """An information set of the searching seat: per option key, its visits, total value and
    availability (how often it was offered while this node was visited), and the nodes below."""

    __slots__ = ("stats", "children")

    def __init__(self) -> None:
        self.stats: dict[Any, list[float]] = {}
        self.children: dict[tuple, Node] = {}

    def child(self, key: Any, sig: tuple) -> Node:
        return self.children.setdefault((key, sig), Node())

    def select(self, keys: Any, gen: random.Random) -> tuple[int, bool]:
        """The index of the option to try (an untried one first, else UCB1), and whether it is new."""
        keys = list(keys)
        untried = [i for i, k in enumerate(keys) if k not in self.stats]
        for k in keys:
            self.stats.setdefault(k, [0, 0.0, 0])[2] += 1
        if untried:
            return untried[gen.randrange(len(untried))], True
        return max(range(len(keys)), key=lambda i: self._ucb(keys[i])), False

    def _ucb(self, key: Any) -> float:
        visits, total, avail = self.stats[key]
        if visits == 0:
            return math.inf
        return total / visits + EXPLORATION * math.sqrt(math.log(max(avail, 1)) / visits)

    def update(self, key: Any, value: float) -> None:
        s = self.stats[key]
        s[0] += 1
        s[1] += value

    def mean(self, key: Any) -> float:
        visits, total, _ = self.stats.get(key, (0, 0.0, 0))
        return total / visits if visits else 0.0

    def best(self, default: Any) -> Any:
        """`default`, unless another key tried twice or more has a mean `MARGIN` above it (the best such)."""
        better = [(self.mean(k), k) for k, s in self.stats.items()
                  if s[0] >= 2 and self.mean(k) > self.mean(default) + MARGIN]
        return max(better)[1] if better else default


def worth_searching(seen: Any) -> bool:
    """Whether the module's `bot_search_here(me, prompt)`, read on the seat's seen state, asks for a
    search of this decision (True when the module defines none): a module spends the playouts on the
    decisions its `bot_value` can tell apart, and leaves the others to the heuristic bot."""
    program = seen.program
    if SEARCH_HERE_FN not in program.fns:
        return True
    me, prompt = seen.me(), seen.decision.prompt
    answer = SeenFunctions(program, seen.state, seen._game.rules.fingerprint).call(SEARCH_HERE_FN, me, prompt)
    if not isinstance(answer, bool):
        raise RulesError(f"{SEARCH_HERE_FN}({me}, {prompt}) gave {answer!r}, not true or false")
    return answer


def signature(d) -> tuple:
    """A decision as its decider sees it: the prompt and the options' values."""
    return (d.prompt, tuple(o.value for o in d.options))


def evaluate(world: Game, seat: int) -> float:
    """The playout's worth to the seat, in [0, 1] (module docstring)."""
    program = world.rules.program
    me = program.player_ids[seat]
    result = world.result
    if result is not None:
        if seat in (result.get("winners") or ()):  # the winners' seats
            return 1.0
        survived = (world.rules.composition.report or {}).get("player.survived")
        if survived is not None and vm.call_function(world._runtime, survived.value, [me]) is True:
            return SURVIVED
        return 0.0
    if VALUE_FN not in program.fns:
        return 0.5
    seen = SeenFunctions(program, LazySeenState(program, world._state, seat), world.rules.fingerprint)
    score = seen.call(VALUE_FN, me)
    if isinstance(score, bool) or not isinstance(score, int):
        raise RulesError(f"{VALUE_FN}({me}) gave {score!r}, not a number")
    return min(1.0, max(0.0, 0.5 + score / 200))


class Sampler:
    """Makes determinizations of a game for one seat (module docstring).

    Worked out once a decision, from what the seat sees: every entity it does not see lies in a
    *place*: an index in a zone whose order the seat sees (a face-down tile on the board), a zone
    it may only count (a deck, a hand, the bag: any index there), or out of play. Entities are
    interchangeable when they share a *pool*: the zone the rules start them in (the module's data,
    public), their kind and the back they show. A world deals each pool's entities, in a fixed
    order shuffled by the generator, to that pool's places, then shuffles what a counted zone got
    among the indices whose back it shows: which hidden entity truly lies where never enters it.
    A place keeps its face and who else has peeked there (`known` and `public` follow the place).
    Left where they are: entities the pending decision or a running step names (the step goes on
    with them), entities other entities' props name, and entities in laid links."""

    def __init__(self, game: Game, seat: int) -> None:
        self.game = game
        st = game._state
        program = game.rules.program
        shown = set(view(program, st, seat, with_log=False)["entities"])
        pinned = _named(st)
        start = {eid: zone for eid, _, zone in program.initial}
        pools: dict[tuple, list[str]] = {}
        for eid, ent in dict.items(st.entities):
            if eid in shown or eid in pinned or ent[E_KIND] == "player":
                continue
            pools.setdefault((start.get(eid), ent[E_KIND], _back(program, ent)), []).append(eid)
        self.backs = [key[2] for key in pools]
        self.pools = [sorted(members) for members in pools.values()]
        counted = {z for z in dict.keys(st.zones) if zone_visible(program, z, seat) in ("size", "none")}
        # each pool's places in board order, so that who truly lies where never orders anything
        self.places = [sorted(_place(st, e, counted) for e in members) for members in self.pools]
        self.moved = {e for members in self.pools for e in members}
        self.indices = _counted_indices(program, st, counted, self.moved)

    def world(self, gen: random.Random) -> Game:
        """A clone of the game with the hidden entities dealt afresh and a new generator."""
        twin = self.game.clone()
        st = twin._state
        public = [e for e in st.public if e not in self.moved]
        known = {e: s for e, s in st.known.items() if e not in self.moved}
        counted: dict[tuple, list[str]] = {}
        for members, places, back in zip(self.pools, self.places, self.backs, strict=True):
            dealt = members[:]
            gen.shuffle(dealt)
            for eid, (zone, index, face, shown_to_all, peeked) in zip(dealt, places, strict=True):
                ent = st.entities[eid]
                ent[E_ZONE], ent[E_FACE] = zone or None, face
                if index >= 0:
                    st.zones[zone][index] = eid
                elif zone:
                    counted.setdefault((zone, back), []).append(eid)
                if shown_to_all:
                    public.append(eid)
                if peeked:
                    known[eid] = list(peeked)
        st.public, st.known = public, known
        for key, indices in self.indices.items():  # a counted zone shows its backs, not its order
            members, dealt = st.zones[key[0]], counted[key]
            gen.shuffle(dealt)
            for i, eid in zip(indices, dealt, strict=True):
                members[i] = eid
        st.rng = engine_rng.seed_state(gen.getrandbits(64))
        return twin


def _counted_indices(program, st: GameState, counted: set[str], moved: set[str]) -> dict[tuple, list[int]]:
    """(zone, back) -> the indices of the moved entities showing that back, in each counted zone."""
    indices: dict[tuple, list[int]] = {}
    for zone in sorted(counted):  # not in set order, which changes from process to process (str hashing)
        for i, eid in enumerate(dict.__getitem__(st.zones, zone)):
            if eid in moved:
                indices.setdefault((zone, _back(program, read_record(st.entities, eid))), []).append(i)
    return indices


def _back(program, ent: list) -> Any:
    prop = program.kind_backs.get(ent[E_KIND])
    return _prop(program, ent, prop) if prop else None


def _place(st: GameState, eid: str, counted: set[str]) -> tuple:
    """Where an entity lies, as a sortable place: zone ("" out of play), index (-1 anywhere in a
    counted zone, or out of play), face, made public, seats that peeked."""
    ent = read_record(st.entities, eid)
    zone = ent[E_ZONE]
    index = dict.__getitem__(st.zones, zone).index(eid) if zone is not None and zone not in counted else -1
    return (zone or "", index, ent[E_FACE], eid in st.public, tuple(st.known.get(eid, ())))


def _prop(program, ent: list, prop: str) -> Any:
    props = ent[E_PROPS]
    return props[prop] if prop in props else program.kind_defaults.get(ent[E_KIND], {}).get(prop)


def _named(st: GameState) -> set[str]:
    """Every string the running steps, the pending decision, entities' props and links hold: the
    entities a rule may reach by name, which a world leaves where they are."""
    names: set[str] = set()
    for frame in st.stack:
        names.update(_strings(frame[2]))
    if st.pending is not None:
        names.update(_strings(st.pending.get("options", ())))
    for ent in dict.values(st.entities):
        if ent[E_PROPS]:
            names.update(_strings(ent[E_PROPS].values()))
    names.update(_strings(st.links))
    return names


def _strings(values: Any) -> Iterator[str]:
    for v in values:
        if isinstance(v, str):
            yield v
        elif isinstance(v, (tuple, list)):
            yield from _strings(v)
        elif isinstance(v, dict):
            yield from _strings(v.values())

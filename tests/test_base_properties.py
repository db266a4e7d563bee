"""Property tests over random full games of base Nemesis on the printed board (side A; the
alternative side, whose layout no source gives, is played on the invented test board
tests/fixtures/base_testboard). After EVERY decision:

* every entity lies in exactly one zone or in none, and the zone lists agree with the entities'
  zone fields (no entity twice, no list naming an entity that says it is elsewhere);
* the number of entities made from each component never changes (conservation);
* every counter stays within its declared bounds;
* a game that is not over has a decision with at least one option;
* `view(seat)` of every seat (and of a spectator) shows a zone's contents only where its
  visibility allows (hidden and other players' owner zones: size only; secret: nothing), never
  the identity of a face-down entity, never another seat's options, and no new log line naming a
  hidden card the seat could not see before or after the step;
* `to_json` then `from_json` at a random step continues identically to the end.

The default run plays a few seeds per player count; `-m slow` plays 500 seeds for each of 1-5
players (issue 3) and each mode, one test per player count, so `pytest -m slow -n auto` spreads
them over the CPUs; NEMESIS_PROGRESS names a file that gets one JSON line per game played
(with NEMESIS_RESUME=1, the games it records for the same commit are counted, not played again),
and NEMESIS_BASE_SEEDS / NEMESIS_MODE_SEEDS (`500`, or `a-b` for seeds a to b-1) split a long run.
Random options are taken with a seeded `random.Random`, so a failure names the seed, the player
count and the step, and replays exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import vm
from nemesis_rules.engine.state import E_COMP, E_FACE, E_ZONE

FIXTURE = Path(__file__).parent / "fixtures" / "base_testboard"
STEP_LIMIT = 20_000
FAST_SEEDS = range(2)                 # printed-board games are long: `-m slow` plays SLOW_SEEDS
RELOAD_SEED = 2                       # the save-and-reload game: one more seed per player count
PLAYER_COUNTS = range(1, 6)


def seeds_from_env(name: str, default: str) -> range:
    """The seeds a slow run plays: `300` is seeds 0-299, `40-60` seeds 40-59 (to re-run a part, or
    to split a long run over sessions or machines)."""
    low, _, high = os.environ.get(name, default).partition("-")
    return range(int(low), int(high)) if high else range(int(low))


SLOW_SEEDS = seeds_from_env("NEMESIS_BASE_SEEDS", "500")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")                  # the printed board, side A


@pytest.fixture(scope="module")
def testboard_rules():
    """Side B's layout is not in our sources: the alternative side is played on the test board's
    invented one."""
    return load_ruleset("base", FIXTURE)


class PropertyFailure(AssertionError):
    pass


# ------------------------------------------------------------------ what a seat may see

def visibility_of(rules, zone: str, seat: int | None) -> str:
    """`all`, `look` (all, face-down ones too), `size` or `none`, from the zone's declared
    visibility (not from the engine's view)."""
    return levels_for(rules, seat)[zone]


class _Levels(dict):
    """zone -> level for one seat, filled as zones are asked about (a zone's level never
    changes, and the checks ask ~10^6 times a game)."""

    def __init__(self, rules, seat):
        super().__init__()
        self.rules, self.seat = rules, seat

    def __missing__(self, zone):
        level = self[zone] = _declared_visibility(self.rules, zone, self.seat)
        return level


_LEVELS: dict[tuple, _Levels] = {}


def levels_for(rules, seat: int | None) -> _Levels:
    key = (id(rules), seat)
    if key not in _LEVELS:
        _LEVELS[key] = _Levels(rules, seat)
    return _LEVELS[key]


def _declared_visibility(rules, zone: str, seat: int | None) -> str:
    name, _, owner = zone.partition("@")
    spec = rules.composition.zones[name].value
    vis = spec.visibility
    if vis == "public":
        return "all"
    if vis in ("owner", "owner_looks"):
        mine = seat is not None and owner == rules.program.player_ids[seat]
        return ("all" if vis == "owner" else "look") if mine else "size"
    return "size" if vis == "hidden" else "none"


def seen_by(rules, st, seat: int | None, among=None) -> set[str]:
    """Entities (of `among`, default all) whose identity `seat` may know: face up in a zone it
    sees in full (or in no zone), face up, made public by the rules (`make_public`) and in a zone
    whose size it sees, or peeked at by this seat (`peek`) in a zone it sees at least the size of."""
    entities = st.entities
    if among is not None:
        return {e for e in among if _identifiable(rules, st, seat, e, entities[e], _zone_level(rules, entities[e], seat))}
    out = set()
    levels = levels_for(rules, seat)
    for zone, members in st.zones.items():
        level = levels[zone]
        if level != "none" and members:
            out.update(e for e in members if _identifiable(rules, st, seat, e, entities[e], level))
    out.update(e for e, ent in entities.items() if ent[E_ZONE] is None and _identifiable(rules, st, seat, e, ent, "all"))
    return out


def seen_by_seats(rules, st, seats) -> list[set[str]]:
    """`seen_by` for each of `seats`, in one pass over the zones: the face-up members of a zone
    (and those made public) are worked out once for every seat that sees the zone so."""
    entities, known, public = st.entities, st.known, set(st.public)
    levels = [levels_for(rules, seat) for seat in seats]
    out = [set() for _ in seats]
    for zone, members in dict.items(st.zones):
        if not members:
            continue
        up = exposed = None
        for seen, lv in zip(out, levels, strict=True):
            level = lv[zone]
            if level == "all":
                if up is None:
                    up = [e for e in members if entities[e][E_FACE]]
                seen.update(up)
            elif level == "look":  # its owner looks at face-down cards too
                seen.update(members)
            elif level == "size":
                if exposed is None:
                    exposed = [e for e in members if e in public and entities[e][E_FACE]]
                seen.update(exposed)
    for e, peekers in known.items():  # peeked at: known to the peekers that see the zone at all
        zone = entities[e][E_ZONE]
        for seen, seat, lv in zip(out, seats, levels, strict=True):
            if seat is not None and seat in peekers and (zone is None or lv[zone] != "none"):
                seen.add(e)
    loose = [(e, ent) for e, ent in entities.items() if ent[E_ZONE] is None]
    for seen, seat in zip(out, seats, strict=True):
        seen.update(e for e, ent in loose if _identifiable(rules, st, seat, e, ent, "all"))
    return out


def _zone_level(rules, ent, seat) -> str:
    return "all" if ent[E_ZONE] is None else visibility_of(rules, ent[E_ZONE], seat)


def _identifiable(rules, st, seat, eid, ent, level) -> bool:
    if level == "none":
        return False
    if level == "look" or (seat is not None and seat in st.known.get(eid, ())):
        return True
    return bool(ent[E_FACE]) and (level == "all" or eid in st.public)


def entity_ids_in(value, ids) -> set[str]:
    """Entity ids among the strings of a JSON-like value (dict keys included)."""
    found = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v in ids:
                found.add(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            stack.extend(v)
    return found


# ------------------------------------------------------------------ the checks

def live_state(game):
    """The game's state, read without `Game.state`: that property hands the state out for editing,
    after which the game computes its rule functions afresh at every move. The checks only read
    it, so the property runs also play with kept function results (engine/vm.py `memo`)."""
    return game._state


def check_zones(st) -> None:
    where: dict[str, str] = {}
    for zone, members in st.zones.items():
        for eid in members:
            if eid not in st.entities:
                raise PropertyFailure(f"zone {zone} lists {eid}, which is not an entity")
            if eid in where:
                raise PropertyFailure(f"{eid} is listed in {where[eid]} and in {zone}")
            where[eid] = zone
    for eid, ent in st.entities.items():
        if ent[E_ZONE] != where.get(eid):
            raise PropertyFailure(f"{eid} says it is in {ent[E_ZONE]!r}, the zone lists say {where.get(eid)!r}")


def check_conservation(st, expected: Counter) -> None:
    now = Counter(ent[E_COMP] for ent in st.entities.values())
    if now != expected:
        diff = {c: (expected[c], now[c]) for c in set(now) | set(expected) if now[c] != expected[c]}
        raise PropertyFailure(f"entities per component changed (before, now): {diff}")


def check_counters(rules, st) -> None:
    declared = rules.program.counters
    if set(st.counters) != set(declared):
        raise PropertyFailure(f"counters changed: {sorted(set(st.counters) ^ set(declared))}")
    for name, value in st.counters.items():
        lo, hi = declared[name][0], declared[name][1]
        if not (isinstance(value, int) and lo <= value <= hi):
            raise PropertyFailure(f"counter {name} = {value!r}, outside {lo}..{hi}")


def check_decision(game) -> None:
    if game.over:
        return
    d = game.decision
    if d is None or not d.options:
        raise PropertyFailure(f"the game is not over but has no decision with options ({d!r})")


class ZoneShapes:
    """What a view must show of each zone, worked out from the state and the declared visibility
    once per step (not once per seat): a zone whose members the seat has not peeked at looks the
    same to every seat that sees it at the same level, so one answer serves them all."""

    def __init__(self, st) -> None:
        self.st = st
        self.public = set(st.public)
        self.peeks = {}                      # seat -> the entities it has peeked at
        # zone -> its shape for a seat that sees it in full (`whole`) or counts it (`counted`) and
        # has peeked at none of its members
        self.whole: dict[str, dict] = {}
        self.counted: dict[str, dict] = {}
        self.looked: dict[str, dict] = {}  # its owner's shape of an `owner_looks` zone: every id

    def peeked_by(self, seat) -> set[str]:
        got = self.peeks.get(seat)
        if got is None:
            got = self.peeks[seat] = {e for e, seats in self.st.known.items() if seat in seats} if seat is not None else set()
        return got

    def zones_for(self, levels, seat) -> dict[str, dict]:
        """zone -> what `seat` (whose zone levels are `levels`) must be shown of it, for every
        zone it sees at least the size of."""
        zones, whole, counted = self.st.zones, self.whole, self.counted
        out = {}
        for zone, members in dict.items(zones):
            level = levels[zone]
            if level == "all" or level == "look":
                shapes = whole if level == "all" else self.looked
                got = shapes.get(zone)
                if got is None:
                    got = shapes[zone] = self._shape(members, level, None, set())
                out[zone] = got
            elif level == "size":
                got = counted.get(zone)
                if got is None:
                    got = counted[zone] = self._shape(members, level, None, set())
                out[zone] = got
        peeked = self.peeked_by(seat)
        for e in peeked:
            zone = self.st.entities[e][E_ZONE]
            if zone in out:
                out[zone] = self._shape(zones[zone], levels[zone], seat, peeked)
        return out

    def _shape(self, members, level: str, seat, peeked: set[str]) -> dict:
        entities = self.st.entities
        if level == "look":
            return {"size": len(members), "entities": list(members)}
        if level == "all":
            return {"size": len(members), "entities": _listed(self.st, members, seat)}
        shape: dict = {"size": len(members)}
        exposed = [e for e in members if e in self.public and entities[e][E_FACE] and e not in peeked]
        if exposed:
            shape["public"] = exposed
        at = {e: i for i, e in enumerate(members) if e in peeked}
        if at:
            shape["known"] = at
        backs = [_back(self.st, eid) for eid in members]
        if any(b is not None for b in backs):
            shape["backs"] = backs
        return shape


def check_view(rules, game, seat: int | None, before_seen: set[str], after_seen: set[str],
               log_from: int, shapes: ZoneShapes | None = None) -> None:
    st = live_state(game)
    view = game.view(seat, log_from=log_from)   # the earlier lines were checked at earlier steps
    # zones: contents only where the zone's visibility lets this seat look: each zone shown exactly
    # as its visibility, the faces and this seat's peeks say (`ZoneShapes`)
    shapes = shapes or ZoneShapes(st)
    levels = levels_for(rules, seat)
    shown_zones = view["zones"]
    expected = shapes.zones_for(levels, seat)
    if shown_zones != expected:
        for zone in st.zones:
            level = levels[zone]
            shown = shown_zones.get(zone)
            if level == "none" and shown is not None:
                raise PropertyFailure(f"seat {seat} sees the secret zone {zone}: {shown}")
            if level != "none" and shown != expected[zone]:
                explain_zone(rules, st, seat, zone, level, shown, after_seen)
                raise PropertyFailure(f"seat {seat}: zone {zone} shown as {shown}, expected {expected[zone]}")
        raise PropertyFailure(f"seat {seat} is shown zones that do not exist: {sorted(set(shown_zones) - set(st.zones))[:5]}")
    # entity records: only those the seat may identify
    extra = set(view["entities"]) - after_seen
    if extra:
        raise PropertyFailure(f"seat {seat} sees the records of hidden entities {sorted(extra)[:5]}")
    # another seat's decision: who and what is asked, never the options
    decision = view["decision"]
    if decision is not None and decision.get("player") != seat and "options" in decision:
        raise PropertyFailure(f"seat {seat} sees the options of seat {decision['player']}")
    # its own decision: an option names only what the seat may identify (issue #39: a face-down
    # contamination card was named by its id among the options)
    if decision is not None and "options" in decision:
        named = entity_ids_in(decision["options"], set(st.entities)) - after_seen
        if named:
            raise PropertyFailure(f"seat {seat}: its decision's options name hidden {sorted(named)[:5]}")
    # the log: no line addressed to other seats only; no new public line naming a hidden card
    # that the seat could see neither before nor after the step (a line addressed to the seat
    # itself is the rules showing it something, e.g. the coordinates card)
    for entry in view["log"]:
        if entry["to"] is not None and (seat is None or seat not in entry["to"]):
            raise PropertyFailure(f"seat {seat} reads the log line {entry['msg']} meant for {entry['to']}")
    hidden = set(st.entities) - before_seen - after_seen
    for index, entry in enumerate(st.log[log_from:], log_from):
        if entry["to"] is None:
            named = entity_ids_in(entry["args"], hidden) - SEEN_WHEN_LOGGED.get((id(st), index, seat), set())
            leaked = {e for e in named if _identity_hidden(rules, st, e, seat)}
            if leaked:
                raise PropertyFailure(f"seat {seat}: log line {entry['msg']} names hidden {sorted(leaked)}")


def explain_zone(rules, st, seat, zone: str, level: str, shown, after_seen: set[str]) -> None:
    """Raise the most telling failure for a zone that is not shown as it should be (a leak, a
    wrong size, a face-down card named); return when none of these applies."""
    members = st.zones[zone]
    if shown is None or shown.get("size") != len(members):
        raise PropertyFailure(f"seat {seat}: zone {zone} shown as {shown}, it holds {len(members)}")
    if level == "size":
        exposed = set(shown.get("public", ())) if set(shown) <= {"size", "public", "known", "backs"} else None
        peeked = {e: i for i, e in enumerate(members) if seat in st.known.get(e, ())}
        if exposed is None or not exposed <= after_seen & set(members) or shown.get("known", {}) != peeked:
            raise PropertyFailure(f"seat {seat} sees inside {zone} (only its size is public): {shown}")
    if level == "all" and shown.get("entities") != _listed(st, members, seat):
        for eid, item in zip(members, shown.get("entities") or [], strict=False):
            if st.entities[eid][E_FACE] or seat in st.known.get(eid, ()):
                if item != eid:
                    raise PropertyFailure(f"seat {seat}: {zone} shows {item} where {eid} lies face up")
            elif item != _face_down(st, eid):
                raise PropertyFailure(f"seat {seat} sees the face-down {eid} in {zone} as {item}")


def _listed(st, members, seat) -> list:
    """What a zone the seat sees in full must list: the id of each card face up or peeked at by
    the seat, `{"face_down": kind}` for the others (with `back`, what the card's back shows, where
    its kind prints one)."""
    entities, known = st.entities, st.known
    return [eid if entities[eid][E_FACE] or (known and seat in known.get(eid, ())) else _face_down(st, eid)
            for eid in members]


def _face_down(st, eid: str) -> dict:
    back = _back(st, eid)
    return {"face_down": st.entities[eid][0]} if back is None else {"face_down": st.entities[eid][0], "back": back}


# kind -> the prop printed on its back, from the declared kinds (not from the engine's program)
BACKS = {name: d.value.back for name, d in load_ruleset("base").composition.kinds.items() if d.value.back}


def _back(st, eid: str):
    """What the entity's back shows: the prop its kind declares (`back:`), else None."""
    kind, _, props = st.entities[eid][:3]
    prop = BACKS.get(kind)
    return None if prop is None else props.get(prop)


def _identity_hidden(rules, st, eid: str, seat: int | None) -> bool:
    """A card whose naming would leak: in another player's owner zone or a hidden/secret zone
    the seat cannot look into, or lying face down (and never seen by the seat in this step)."""
    ent = st.entities[eid]
    if not ent[E_FACE]:
        return True
    zone = ent[E_ZONE]
    if zone is None:
        return False
    name = zone.partition("@")[0]
    vis = rules.composition.zones[name].value.visibility
    return vis in ("owner", "owner_looks") and visibility_of(rules, zone, seat) not in ("all", "look")


# (id of the state, log index, seat) -> what the seat could identify when the line was written:
# a card played face up and then, in the same step, shuffled back and dealt to a hand was seen
# when it was named, though neither before nor after the step
SEEN_WHEN_LOGGED: dict[tuple, set[str]] = {}


@contextlib.contextmanager
def seen_when_logged(rules):
    """Record, for every public log line, what each seat could identify at that moment."""
    original = vm.Runtime.add_log

    def add_log(rt, message, to, args):
        original(rt, message, to, args)
        st = rt.state
        if st.log[-1]["to"] is None:
            named = entity_ids_in(st.log[-1]["args"], st.entities)
            for seat in [*range(st.players), None]:
                SEEN_WHEN_LOGGED[(id(st), len(st.log) - 1, seat)] = seen_by(rules, st, seat, named)

    vm.Runtime.add_log = add_log
    try:
        yield
    finally:
        vm.Runtime.add_log = original
        SEEN_WHEN_LOGGED.clear()


def check_all(rules, game, expected: Counter, before: list[set[str]], log_from: int) -> list[set[str]]:
    st = live_state(game)
    check_zones(st)
    check_conservation(st, expected)
    check_counters(rules, st)
    check_decision(game)
    seats = [*range(st.players), None]
    after = seen_by_seats(rules, st, seats)
    shapes = ZoneShapes(st)
    for i, seat in enumerate(seats):
        check_view(rules, game, seat, before[i], after[i], log_from, shapes)
    return after


# ------------------------------------------------------------------ one random game

def play_checked(rules, players: int, seed: int, reload: bool = True, reload_strict: bool = True,
                 each_step=None, **options) -> dict:
    """Play one random game, checking every property after every step; returns a summary.
    With `reload`, a copy made by `from_json(to_json())` at a random step must take the same
    decisions and end in the same state; without `reload_strict` a difference is returned as
    `diverged` (the copy is dropped and the game goes on being checked) instead of raised.
    `each_step(game)`, if given, runs a module's own checks after base's at every step (it raises
    AssertionError or PropertyFailure; either is reported as a PropertyFailure naming the step).

    Raises:
        PropertyFailure: a property failed (the message names the seed, players and step).
        RulesError: the module's rules failed while running.
    """
    with seen_when_logged(rules):
        return _play_checked(rules, players, seed, reload, reload_strict, each_step, **options)


def _play_checked(rules, players: int, seed: int, reload: bool, reload_strict: bool, each_step,
                  **options) -> dict:
    rnd = random.Random(seed * 7919 + players)
    game = Game.new(rules, players=players, seed=seed, **options)
    expected = Counter(ent[E_COMP] for ent in live_state(game).entities.values())
    seats = [*range(players), None]
    before = [set() for _ in seats]
    step = 0
    reload_at = None
    twin = None
    diverged = None
    try:
        before = check_all(rules, game, expected, before, 0)
        _module_checks(each_step, game)
        while not game.over:
            if step >= STEP_LIMIT:
                raise PropertyFailure(f"no result after {STEP_LIMIT} decisions")
            if reload and reload_at is None:
                reload_at = rnd.randrange(1, 200)
            if twin is None and step == reload_at:
                twin = Game.from_json(rules, game.to_json())
                if twin.to_json() != game.to_json():
                    raise PropertyFailure("from_json(to_json()) is not the same state")
            index = rnd.randrange(len(game.decision.options))
            pending = live_state(game).pending
            log_from = len(live_state(game).log)
            game.apply(index)
            step += 1
            if twin is not None:
                if _canonical(live_state(twin).pending) != _canonical(pending):
                    diverged = (f"the game reloaded at step {reload_at} asks something else at step {step} "
                                f"({live_state(twin).pending and live_state(twin).pending['prompt']} "
                                f"instead of {pending and pending['prompt']})")
                    if reload_strict:
                        raise PropertyFailure(diverged)
                    twin = None
                else:
                    twin.apply(index)
            before = check_all(rules, game, expected, before, log_from)
            _module_checks(each_step, game)
        if game._runtime.exposed:  # see live_state
            raise PropertyFailure("the checks read Game.state: the game played without kept function results")
        if twin is not None and twin.to_json() != game.to_json():
            diverged = f"the game reloaded at step {reload_at} ended differently"
            if reload_strict:
                raise PropertyFailure(diverged)
    except PropertyFailure as err:
        raise PropertyFailure(f"{players} players, seed {seed}, step {step}: {err}") from None
    except RulesError as err:
        raise RulesError(f"{players} players, seed {seed}, step {step}: {err}") from None
    return {"steps": step, "result": game.result, "diverged": diverged}


def _module_checks(each_step, game) -> None:
    if each_step is not None:
        try:
            each_step(game)
        except AssertionError as err:
            raise PropertyFailure(f"module check: {err}") from None


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_every_property(rules, players):
    for seed in FAST_SEEDS:
        play_checked(rules, players, seed, reload=False)


def test_save_and_load_at_a_random_step_continues_identically(rules):
    for players in PLAYER_COUNTS:
        play_checked(rules, players, RELOAD_SEED, reload=True)


def test_the_checks_catch_a_broken_state(rules):
    """The checks are not vacuous: each catches the fault it is written for."""
    game = Game.new(rules, players=2, seed=3)
    expected = Counter(ent[E_COMP] for ent in game.state.entities.values())
    st = game.state
    card = st.zones["event_deck"][0]
    st.zones["event_discard"].append(card)              # listed twice
    with pytest.raises(PropertyFailure, match="listed in"):
        check_zones(st)
    st.zones["event_discard"].remove(card)
    st.entities[card][1] = "event_discard"              # the entity says it is elsewhere
    with pytest.raises(PropertyFailure, match="says it is in"):
        check_zones(st)
    st.zones["event_deck"].remove(card)
    del st.entities[card]                               # a card vanishes
    with pytest.raises(PropertyFailure):
        check_conservation(st, expected)
    game = Game.new(rules, players=2, seed=3)
    game.state.counters["destination"] = 9              # out of bounds
    with pytest.raises(PropertyFailure, match="outside"):
        check_counters(rules, game.state)


def test_seen_by_every_seat_at_once_is_seen_by_each(rules):
    """The checker's one-pass `seen_by_seats` agrees with `seen_by` seat by seat, peeks included."""
    game = Game.new(rules, players=3, seed=4)
    rnd = random.Random(4)
    seats = [0, 1, 2, None]
    peeked = 0
    while not game.over:
        st = game.state
        peeked += bool(st.known)
        assert seen_by_seats(rules, st, seats) == [seen_by(rules, st, s) for s in seats]
        game.apply(rnd.randrange(len(game.decision)))
    assert peeked, "no state with a peeked card: the seed no longer shows the peek case"


def test_view_check_catches_a_leak(rules, monkeypatch):
    game = Game.new(rules, players=2, seed=3)
    seen = seen_by(rules, game.state, 1)
    real = game.view

    def leaky(seat, log_from=0):
        data = real(seat, log_from)
        data["zones"]["event_deck"] = {"size": len(game.state.zones["event_deck"]),
                                       "entities": list(game.state.zones["event_deck"])}
        return data

    monkeypatch.setattr(game, "view", leaky)
    with pytest.raises(PropertyFailure, match="event_deck"):
        check_view(rules, game, 1, seen, seen, len(game.state.log))


def test_view_check_catches_a_face_down_card_named_in_a_public_zone(rules, monkeypatch):
    game = Game.new(rules, players=2, seed=3)
    st = game.state
    zone, eid = next((z, e) for z, members in st.zones.items() for e in members
                     if visibility_of(rules, z, 1) == "all" and not st.entities[e][E_FACE])
    seen = seen_by(rules, st, 1)
    real = game.view

    def leaky(seat, log_from=0):
        data = real(seat, log_from)
        listed = data["zones"][zone]["entities"]
        listed[st.zones[zone].index(eid)] = eid
        return data

    monkeypatch.setattr(game, "view", leaky)
    with pytest.raises(PropertyFailure, match=f"face-down {eid}"):
        check_view(rules, game, 1, seen, seen, len(game.state.log))


def test_a_resumed_run_counts_recorded_games_and_plays_only_the_rest(rules, monkeypatch, tmp_path):
    progress = tmp_path / "progress.jsonl"
    monkeypatch.setenv("NEMESIS_PROGRESS", str(progress))
    monkeypatch.setattr(__import__(__name__), "code_commit", lambda: "c1")
    played = []

    def play(players, seed):
        played.append((players, seed))
        if (players, seed) == (3, 1):
            raise PropertyFailure("broken on purpose")
        return {"steps": 10, "result": {"reason": "test"}, "diverged": None}

    with pytest.raises(AssertionError, match="1 of 4 games failed"):
        many_games_keep_every_property(rules, {}, [2, 3], range(2), play=play)
    assert played == [(2, 0), (3, 0), (2, 1), (3, 1)]
    played.clear()
    monkeypatch.setenv("NEMESIS_RESUME", "1")
    with pytest.raises(AssertionError, match="1 of 6 games failed; first: PropertyFailure: broken on purpose"):
        many_games_keep_every_property(rules, {}, [2, 3], range(3), play=play)
    assert played == [(2, 2), (3, 2)]            # seeds 0 and 1 were counted from the file
    monkeypatch.setattr(__import__(__name__), "code_commit", lambda: "c2")
    played.clear()
    with pytest.raises(AssertionError):
        many_games_keep_every_property(rules, {}, [3], range(2), play=play)
    assert played == [(3, 0), (3, 1)]            # another commit: nothing is reused


# the other modes and the alternative board side, with the player counts each allows
MODE_RUNS = {
    "solo": ({"mode": "solo"}, range(1, 2)),
    "coop": ({"mode": "coop"}, range(2, 6)),
    "intruder_player": ({"mode": "intruder_player"}, range(2, 6)),
    "alternative_board": ({"board": "alternative"}, PLAYER_COUNTS),
}
MODE_SEEDS = seeds_from_env("NEMESIS_MODE_SEEDS", "500")
MODE_CASES = [(mode, players) for mode, (_, counts) in MODE_RUNS.items() for players in counts]


# one test per player count (and mode), so that `pytest -m slow -n auto` spreads them over the CPUs
@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_many_random_games_keep_every_property(rules, players):
    """NEMESIS_BASE_SEEDS seeds (default 500; `a-b` for a range) for each of 1-5 players (issue 3). Prints the figures; fails listing every failure."""
    many_games_keep_every_property(rules, {}, [players], SLOW_SEEDS)


@pytest.mark.slow
@pytest.mark.parametrize("mode,players", MODE_CASES)
def test_many_random_games_in_every_mode_keep_every_property(rules, testboard_rules, mode, players):
    """NEMESIS_MODE_SEEDS seeds (default 500; `a-b` for a range) for each player count the mode allows."""
    options, _ = MODE_RUNS[mode]
    many_games_keep_every_property(testboard_rules if "board" in options else rules, options, [players], MODE_SEEDS)


def many_games_keep_every_property(rules, options: dict, player_counts, seeds, play=None) -> None:
    """Play every seed for every player count (seed-major, so that a run stopped early has played
    every count alike) under the property checks; print the running figures every 10 seeds and the
    total; fail listing every failure and every reload that diverged. `play(players, seed)` plays
    one checked game (default: `play_checked` with `options`).

    NEMESIS_PROGRESS=FILE gets one line per game; with NEMESIS_RESUME=1 as well, a game that FILE
    already records for the same commit is counted, not played again (a run longer than a
    sitting goes on where it stopped; a failure recorded counts as a failure again)."""
    if play is None:
        def play(players, seed):
            return play_checked(rules, players, seed, reload_strict=False, **options)
    failures = []
    diverged = []
    summary = Counter()
    steps = 0
    start = time.perf_counter()
    progress = os.environ.get("NEMESIS_PROGRESS")
    commit = code_commit()
    done = played_before(progress, rules, options, commit) if os.environ.get("NEMESIS_RESUME") == "1" else {}
    for n, seed in enumerate(seeds, 1):
        for players in player_counts:
            outcome = done.get((players, seed))
            if outcome is None:
                outcome = play_once(play, players, seed)
                note_progress(progress, rules, options, players, seed, {"commit": commit, **outcome})
            if "failed" in outcome:
                failures.append(outcome["failed"])
                summary["failed"] += 1
                print(failures[-1], flush=True)
                continue
            steps += outcome["steps"]
            if outcome["diverged"]:
                diverged.append(f"{players} players, seed {seed}: {outcome['diverged']}")
            summary[outcome["reason"] or "none"] += 1
        if n % 10 == 0 or n == len(seeds):
            print(json.dumps({"options": options, "players": list(player_counts), "seeds_done": n,
                              "games": n * len(player_counts), "seconds": round(time.perf_counter() - start, 1),
                              "decisions": steps, "results": {str(k): v for k, v in summary.items()},
                              "failures": len(failures), "reload_diverged": len(diverged),
                              "resumed": len(done)}), flush=True)
    games = len(player_counts) * len(seeds)
    for f in failures + diverged:
        print(f)
    assert not failures, f"{len(failures)} of {games} games failed; first: {failures[0]}"
    assert not diverged, f"{len(diverged)} of {games} reloaded games diverged; first: {diverged[0]}"


def play_once(play, players: int, seed: int) -> dict:
    """One checked game's outcome, as a progress line records it."""
    try:
        out = play(players, seed)
    except (PropertyFailure, RulesError) as err:
        return {"failed": f"{type(err).__name__}: {err}"}
    return {"steps": out["steps"], "reason": (out["result"] or {}).get("reason"), "diverged": out["diverged"]}


def code_commit() -> str | None:
    """The commit this tree is at, or None when it has uncommitted changes (or is no git tree):
    only games played on a committed tree may be resumed."""
    root = str(Path(__file__).parent.parent)
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode or dirty.returncode or dirty.stdout.strip():
        return None
    return head.stdout.strip()


def played_before(path: str | None, rules, options: dict, commit: str | None) -> dict[tuple[int, int], dict]:
    """(players, seed) -> outcome of each game `path` records for these modules and options,
    played on `commit` (none for an uncommitted tree)."""
    if not path or commit is None or not os.path.exists(path):
        return {}
    done = {}
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("commit") == commit and rec["modules"] == list(rules.modules) and rec["options"] == options:
                done[(rec["players"], rec["seed"])] = rec
    return done


def note_progress(path: str | None, rules, options: dict, players: int, seed: int, outcome: dict) -> None:
    """One JSON line per game, so that a long run stopped early still tells what it played."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"modules": list(rules.modules), "options": options, "players": players,
                                "seed": seed, **outcome}) + "\n")

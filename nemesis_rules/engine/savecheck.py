"""Checking a saved state before the engine trusts it.

`check_state` walks every field of a parsed save against the compiled rules: the shape of each
value, entities and zones that agree with each other, interpreter frames that fit the procedures
(each caller waits at the step that called, the top one at the decision), a pending decision that
is exactly what the rules would ask there, counters in bounds, a result only when the game is
over. Every fault is a RulesError naming the field, so no bad save gets as far as a crash later.
It runs once per load, never while playing.
"""

from __future__ import annotations

from collections.abc import Collection
from itertools import chain, compress, count, repeat
from operator import is_, is_not, itemgetter
from typing import Any

from nemesis_rules.dsl.diagnostics import RulesError, brief
from nemesis_rules.engine import limits, savefmt, vm
from nemesis_rules.engine.primitives import ScriptError
from nemesis_rules.engine.program import CALL, CHANCE, CHOOSE, EMIT, Program
from nemesis_rules.engine.state import FULL_FORMAT, GameState, tuplify

MAX_SEED = (1 << 64) - 1
MAX_VALUE_DEPTH = 32  # lists inside lists in one value (real games go two or three deep)
MAX_INT = 1 << 256  # no value a game holds comes near this

FIELDS = {"format", "players", "seed", "options", "ruleset", "entities", "zones", "counters", "rng",
          "stack", "pending", "log", "result", "next_id", "forced", "moves", "explicit_chance", "public",
          "known", "ask_forced"}
PENDING_KEYS = {"player", "options", "prompt", "optional"}


class SaveError(RulesError):
    """A save that does not hold together (the message says what is wrong where)."""


def fail(where: str, what: str) -> SaveError:
    return SaveError(f"bad save: {where}: {what}")


# ---- shapes ----
def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def need_int(where: str, v: Any, lo: int, hi: int) -> int:
    if not is_int(v):
        raise fail(where, f"expected an integer, got {brief(v)}")
    if not lo <= v <= hi:
        raise fail(where, f"{v} is outside {lo}..{hi}")
    return v


def need(where: str, v: Any, kind: type, name: str) -> Any:
    if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
        raise fail(where, f"expected {name}, got {brief(v)}")
    return v


def check_value(where: str, v: Any, depth: int = 0) -> None:
    """A value a script can hold: None, bool, int, str or a list of values."""
    if v is None or isinstance(v, bool | str):
        return
    if is_int(v):
        if not -MAX_INT < v < MAX_INT:
            raise fail(where, "an integer too large for a game")
        return
    if isinstance(v, list):
        if depth >= MAX_VALUE_DEPTH:
            raise fail(where, f"lists nested deeper than {MAX_VALUE_DEPTH}")
        for i, item in enumerate(v):
            check_value(f"{where}[{i}]", item, depth + 1)
        return
    raise fail(where, f"{brief(v)} is not a value a game holds")


def _seats(where: str, v: Any, players: int) -> None:
    need(where, v, list, "a list of seats")
    for i, s in enumerate(v):
        need_int(f"{where}[{i}]", s, 0, players - 1)
    if v != sorted(set(v)):
        raise fail(where, "seats must be sorted and listed once")


# ---- the whole state ----
def check_state(program: Program, data: Any, *, players: tuple[int, int], options: dict[str, tuple],
                fingerprint: str) -> GameState:
    """The GameState a parsed save describes, once every field is checked (SaveError if not).
    It reads the compact save (savefmt.py, format 3) and the full form (format 2)."""
    need("the save", data, dict, "a JSON object")
    compact = data.get("format") == savefmt.FORMAT_VERSION
    if not compact and data.get("format") != FULL_FORMAT:
        raise SaveError(f"unsupported save format {brief(data.get('format'))} (this engine reads "
                        f"{savefmt.FORMAT_VERSION} and {FULL_FORMAT})")
    fields = set(savefmt.FIELDS) if compact else FIELDS
    allowed = fields | ({"chances"} if data.get("explicit_chance") is True else set()) | (
        {"prior", "links", "asked"} & set(data))
    if missing := sorted(fields - set(data)):
        raise fail("the save", f"missing {', '.join(missing)}")
    if extra := sorted(set(data) - allowed):
        raise fail("the save", f"unknown field {', '.join(map(brief, extra))}")
    if data["ruleset"] != fingerprint:
        raise SaveError(f"the save is for rules {brief(data['ruleset'])}, these are {fingerprint}")
    n = need_int("players", data["players"], *players)
    need_int("seed", data["seed"], 0, MAX_SEED)
    _check_options(data["options"], options)
    for key in ("explicit_chance", "ask_forced"):
        need(key, data[key], bool, "true or false")
    need_int("rng", data["rng"], 0, MAX_SEED)
    need_int("next_id", data["next_id"], 0, MAX_INT)
    if compact:
        ids = _check_compact(program, data, n)
    else:
        _check_entities(program, data, n)
        _check_zones(program, data)
        ids = {row[0] for row in data["entities"]}
    _check_counters(program, data["counters"])
    _check_marks(data, ids, n)
    _check_log(data["log"], n)
    _check_list("forced", data["forced"], check_value)
    _check_indices("moves", data["moves"])
    if data["explicit_chance"]:
        _check_indices("chances", data.get("chances", []))
    _check_result(data["result"], n)
    if "prior" in data:
        _check_prior(data["prior"])
    if "links" in data:
        _check_link_rows(data["links"])
    if "asked" in data:
        _check_asked(program, data["asked"])
    _check_stack(program, data["stack"])
    _check_flow(data)
    state = savefmt.decode(program, data) if compact else GameState.from_dict(data)
    _check_links(program, state)
    _check_pending(program, state)
    return state


def _check_asked(program: Program, asked: Any) -> None:
    """The components a test asked to put into play: components of these rules."""
    need("asked", asked, list, "a list")
    for i, cid in enumerate(asked):
        if not isinstance(cid, str) or cid not in program.templates:
            raise fail(f"asked[{i}]", f"expected a component of these rules, got {brief(cid)}")


def _check_prior(prior: Any) -> None:
    """What a continued game keeps of the finished game it continues (Game.new(after=...))."""
    need("prior", prior, dict, "an object")
    if set(prior) != {"players", "result"}:
        raise fail("prior", f"expected the keys players and result, got {sorted(map(brief, prior))}")
    need("prior.result", prior["result"], dict, "an object")
    for key, value in prior["result"].items():
        check_value(f"prior.result.{key}", value)
    need("prior.players", prior["players"], list, "a list")
    for i, props in enumerate(prior["players"]):
        need(f"prior.players[{i}]", props, dict, "an object")
        for key, value in props.items():
            check_value(f"prior.players[{i}].{key}", value)


def _check_link_rows(rows: Any) -> None:
    """The links laid in play, as rows [link, a, b, label at a, label at b] (their sense:
    `_check_links`)."""
    need("links", rows, list, "a list of links")
    if not rows:
        raise fail("links", "written only when a link is laid (an empty list is not)")
    for i, row in enumerate(rows):
        need(f"links[{i}]", row, list, "[link, a, b, label at a, label at b]")
        if len(row) != 5 or not all(isinstance(x, str) for x in row[:3]):
            raise fail(f"links[{i}]", f"expected [link, a, b, label at a, label at b], got {brief(row)}")
        for label in row[3:]:
            check_value(f"links[{i}]", label)


def _check_links(program: Program, state: GameState) -> None:
    """Each link laid again, in order, as `connect` lays one: an entity of a link kind not laid
    twice nor printed, between two other entities, no label taken twice at one end."""
    laid, state.links = state.links, ()
    if laid and not program.grows:
        raise fail("links", "these rules never lay a link in play")
    rt = vm.Runtime(program, state)
    for i, row in enumerate(laid):
        try:
            rt.lay_link(*row)
        except ScriptError as e:
            raise fail(f"links[{i}]", str(e)) from None


def _check_indices(where: str, v: Any) -> None:
    """Option indices (a game holds hundreds: looked at in bulk, one by one only to name a fault)."""
    need(where, v, list, "a list")
    if v and not (set(map(type, v)) == {int} and min(v) >= 0 and max(v) <= MAX_INT):
        _check_list(where, v, lambda w, x: need_int(w, x, 0, MAX_INT))


def _check_list(where: str, v: Any, item) -> None:
    need(where, v, list, "a list")
    for i, x in enumerate(v):
        item(f"{where}[{i}]", x)


def _check_options(given: Any, specs: dict[str, tuple]) -> None:
    need("options", given, dict, "an object")
    if set(given) != set(specs):
        raise fail("options", f"expected the options {sorted(specs)}, got {sorted(map(brief, given))}")
    for name, value in given.items():
        if not any(type(value) is type(v) and value == v for v in specs[name]):
            raise fail(f"options.{name}", f"{brief(value)} is not one of {list(specs[name])}")


def _expected_entities(program: Program, players: int) -> list[tuple[str, str]]:
    """(id, component) of every entity a game starts with, in the order it makes them."""
    return ([(program.player_ids[i], "player") for i in range(players)]
            + [(eid, cid) for eid, cid, _ in program.initial])


def _check_entities(program: Program, data: dict, players: int) -> None:
    rows = need("entities", data["entities"], list, "a list")
    start = _expected_entities(program, players)
    if len(rows) < len(start):
        raise fail("entities", f"`{start[len(rows)][0]}` is missing")
    seen: set[str] = set()
    last = 0
    for i, row in enumerate(rows):
        if not (type(row) is list and len(row) == 6 and type(row[0]) is str):
            raise fail(f"entities[{i}]", "expected [id, kind, zone, props, face_up, component]")
        eid, kind, zone, props, face, comp = row
        if eid in seen:
            raise fail(f"entity `{brief(eid)}`", "listed twice")
        seen.add(eid)
        if i < len(start):
            if (eid, comp) != start[i]:
                raise fail(f"entities[{i}]", f"expected `{start[i][0]}` here (a game makes its starting "
                                             "components first, in order)")
        else:
            last = _check_made(f"entity `{brief(eid)}`", eid, comp, program, last, data["next_id"])
        if kind != (expected := "player" if comp == "player" else program.templates[comp][0]):
            raise fail(f"entity `{eid}`", f"kind {brief(kind)}, but component `{comp}` makes a {expected}")
        defaults = program.kind_defaults.get(kind, ())
        printed = program.templates[comp][1] if comp != "player" else ()
        if not (zone is None or type(zone) is str) or type(face) is not bool or type(props) is not dict:
            raise fail(f"entity `{eid}`", "expected a zone name or null, face_up true or false, props an object")
        for name, value in props.items():
            if name not in defaults and name not in printed:
                raise fail(f"entity `{eid}`", f"a {kind} has no property `{brief(name)}`")
            if not (value is None or type(value) in (bool, str) or type(value) is int and -MAX_INT < value < MAX_INT):
                check_value(f"entity `{eid}`.{name}", value)


def _check_compact(program: Program, data: dict, players: int) -> Collection[str]:
    """The entity fields of a compact save (savefmt.py); the ids of its entities."""
    base = savefmt.layout(program, players)
    made = need("made", data["made"], list, "a list of entity ids")
    last = 0
    for i, eid in enumerate(made):
        need(f"made[{i}]", eid, str, "an entity id")
        if eid in base.index:
            raise fail(f"made[{i}]", f"`{eid}` is a starting entity")
        last = _check_made(f"made[{i}] `{brief(eid)}`", eid, eid.partition("#")[0], program, last, data["next_id"])
    ids, comps, kinds = base.id_list, base.comps, base.kinds
    if made:
        ids = [*ids, *made]
        comps = comps + [e.partition("#")[0] for e in made]
        kinds = kinds + [program.templates[c][0] for c in comps[len(base.ids):]]
    _numbers("face", data["face"], len(ids))
    props = need("props", data["props"], list, "a list of [entity, props]")
    _numbers("props", [row[0] if type(row) is list and len(row) == 2 else None for row in props], len(ids))
    for i, changed in props:
        eid, kind = ids[i], kinds[i]
        need(f"props of `{eid}`", changed, dict, "an object")
        defaults = program.kind_defaults.get(kind, ())
        printed = program.templates[comps[i]][1] if kind != "player" else ()
        for name, value in changed.items():
            if name not in defaults and name not in printed:
                raise fail(f"entity `{eid}`", f"a {kind} has no property `{brief(name)}`")
            if not (value is None or type(value) in (bool, str) or type(value) is int and -MAX_INT < value < MAX_INT):
                check_value(f"entity `{eid}`.{name}", value)
    _check_compact_zones(program, data["zones"], base, ids, kinds)
    return base.index if not made else {**base.index, **dict.fromkeys(made)}


def _numbers(where: str, v: Any, total: int) -> None:
    """Entity numbers in increasing order, each below `total`."""
    need(where, v, list, "a list of entity numbers")
    if v and not (set(map(type, v)) == {int} and 0 <= min(v) and max(v) < total):
        raise fail(where, f"expected entity numbers from 0 to {total - 1}")
    if v != sorted(set(v)):
        raise fail(where, "entity numbers must increase")


def _check_compact_zones(program: Program, zones: Any, base: savefmt.Layout, ids: list[str],
                         kinds: list[str]) -> None:
    need("zones", zones, dict, "an object")
    n0 = len(base.ids)
    own = {f"{z}@{ids[i]}" for i in range(n0, len(ids)) for z in program.kind_zones.get(kinds[i], ())}
    # in bulk first (C loops over every number); zone by zone only to name a fault
    lists = list(zones.values())
    listed = list(chain.from_iterable(lists)) if set(map(type, lists)) <= {list} else None
    if (listed is None or not (base.zone_set.issuperset(zones) or all(n in base.zone_set or n in own for n in zones))
            or listed and not (set(map(type, listed)) == {int} and 0 <= min(listed) and max(listed) < len(ids))):
        listed = []
        for name, numbers in zones.items():
            if name not in base.zones and name not in own:
                raise fail("zones", f"no such zone {brief(name)}")
            need(f"zones.{name}", numbers, list, "a list of entity numbers")
            if numbers and not (set(map(type, numbers)) == {int} and 0 <= min(numbers) and max(numbers) < len(ids)):
                raise fail(f"zones.{name}", f"expected entity numbers from 0 to {len(ids) - 1}")
            listed += numbers
    if len(set(listed)) != len(listed):
        twice = next(i for i in listed if listed.count(i) > 1)
        raise fail(f"entity `{ids[twice]}`", "lies in two zones")
    # an entity listed here must not still lie where setup put it, in a zone the save leaves alone
    first = base.first_zones if len(ids) == n0 else base.first_zones + [None] * (len(ids) - n0)
    if stray := sorted(z for z in set(map(first.__getitem__, listed)) if z is not None and z not in zones):
        i = next(i for i in listed if first[i] == stray[0])
        raise fail(f"entity `{ids[i]}`", f"lies in both {stray[0]} and another zone")


def _check_made(where: str, eid: str, comp: Any, program: Program, last: int, next_id: Any) -> int:
    """An entity made during play is `component#n`, numbered in the order made, up to next_id."""
    if not isinstance(comp, str) or comp not in program.templates:
        raise fail(where, f"unknown component {brief(comp)}")
    base, _, number = eid.partition("#")
    if base != comp or not number.isdigit() or not last < int(number) <= next_id:
        raise fail(where, f"an entity made in play is `{comp}#N`, numbered in order up to next_id")
    return int(number)


def _check_zones(program: Program, data: dict) -> None:
    zones = need("zones", data["zones"], dict, "an object")
    entities = {row[0]: row for row in data["entities"]}
    expected = {name for name, per in program.zone_per.items() if per is None}
    for eid, row in entities.items():
        expected.update(f"{z}@{eid}" for z in program.kind_zones.get(row[1], ()))
    if missing := sorted(expected - set(zones)):
        raise fail("zones", f"missing {', '.join(missing[:3])}")
    if extra := sorted(set(zones) - expected):
        raise fail("zones", f"no such zone {', '.join(map(brief, extra[:3]))}")
    where_is: dict[str, str] = {}
    for name, members in zones.items():
        if type(members) is not list:
            raise fail(f"zones.{name}", "expected a list of entities")
        for eid in members:
            if type(eid) is not str or eid not in entities:
                raise fail(f"zones.{name}", f"{brief(eid)} is not an entity")
            if eid in where_is:
                raise fail(f"entity `{eid}`", f"lies in both {where_is[eid]} and {name}")
            where_is[eid] = name
    for eid, row in entities.items():
        if row[2] != where_is.get(eid):
            lies = f"lies in {where_is[eid]}" if eid in where_is else "lies in no zone"
            raise fail(f"entity `{eid}`", f"says zone {brief(row[2])} but {lies}")


def _check_counters(program: Program, counters: Any) -> None:
    need("counters", counters, dict, "an object")
    if set(counters) != set(program.counters):
        raise fail("counters", f"expected {sorted(program.counters)}, got {sorted(map(brief, counters))}")
    for name, value in counters.items():
        lo, hi, _, _ = program.counters[name]
        need_int(f"counters.{name}", value, lo, hi)


def _check_marks(data: dict, ids: Collection[str], players: int) -> None:
    public = need("public", data["public"], list, "a list of entities")
    if not all(isinstance(e, str) and e in ids for e in public) or len(set(public)) != len(public):
        raise fail("public", "lists each entity at most once, and only entities")
    known = need("known", data["known"], dict, "an object")
    for eid, seats in known.items():
        if eid not in ids:
            raise fail("known", f"{brief(eid)} is not an entity")
        _seats(f"known.{eid}", seats, players)


_LOG_KEYS = {"msg": 0, "args": 0, "to": 0}.keys()
_PLAIN = frozenset({str, bool, type(None)})  # values that need no closer look
_PLAIN_INT = _PLAIN | {int}


_ENTRY = itemgetter("msg", "args", "to")


def _check_log(log: Any, players: int) -> None:
    need("log", log, list, "a list")
    # the common log, checked in bulk (C loops): entries {msg, args, to} with args of plain values
    # (integers within bounds); `to` looked at where it is not everyone. Any other log is looked
    # at entry by entry
    try:
        if log and set(map(type, log)) == {dict} and set(map(len, log)) == {3}:
            msgs, args, tos = zip(*map(_ENTRY, log), strict=True)
            if set(map(type, msgs)) == {str} and set(map(type, args)) == {dict}:
                values = list(chain.from_iterable(map(dict.values, args)))
                types = set(map(type, values))
                ints = list(compress(values, map(is_, map(type, values), repeat(int)))) if int in types else (0,)
                if types <= _PLAIN_INT and -MAX_INT < min(ints) and max(ints) < MAX_INT:
                    for i in compress(count(), map(is_not, tos, repeat(None))):
                        _seats(f"log[{i}].to", tos[i], players)
                    return
    except KeyError:
        pass
    for i, entry in enumerate(log):
        # the common entry, checked without building messages: args of plain values, to everyone
        if (type(entry) is dict and entry.keys() == _LOG_KEYS and type(entry["msg"]) is str
                and entry["to"] is None and type(args := entry["args"]) is dict
                and ((types := set(map(type, args.values()))) <= _PLAIN or types <= _PLAIN_INT and all(
                    -MAX_INT < v < MAX_INT for v in args.values() if type(v) is int))):
            continue
        where = f"log[{i}]"
        if not (isinstance(entry, dict) and set(entry) == {"msg", "args", "to"}):
            raise fail(where, "expected {msg, args, to}")
        need(f"{where}.msg", entry["msg"], str, "a message key")
        need(f"{where}.args", entry["args"], dict, "an object")
        for k, v in entry["args"].items():
            check_value(f"{where}.args.{k}", v)
        if entry["to"] is not None:
            _seats(f"{where}.to", entry["to"], players)


def _check_result(result: Any, players: int) -> None:
    if result is None:
        return
    if not (isinstance(result, dict) and set(result) == {"reason", "winners"}):
        raise fail("result", "expected null or {reason, winners}")
    need("result.reason", result["reason"], str, "a string")
    _seats("result.winners", result["winners"], players)


def _check_stack(program: Program, stack: Any) -> None:
    need("stack", stack, list, "a list of frames")
    if len(stack) > vm.MAX_DEPTH:
        raise fail("stack", f"deeper than {vm.MAX_DEPTH} frames")
    for i, frame in enumerate(stack):
        where = f"stack[{i}]"
        if not (isinstance(frame, list) and len(frame) == 4 and isinstance(frame[0], str)):
            raise fail(where, "expected [procedure, step, locals, returns]")
        name, pc, local, returns = frame
        code = program.procs.get(name)
        if code is None:
            raise fail(where, f"no procedure {brief(name)} in these rules")
        need_int(f"{where} step", pc, 0, len(code.ops) - 1)
        need_int(f"{where} returns", returns, 0, 1)
        need(f"{where} locals", local, list, "a list")
        if len(local) != code.nlocals:
            raise fail(where, f"`{name}` has {code.nlocals} locals, the save gives {len(local)}")
        for j, v in enumerate(local):
            check_value(f"{where} locals[{j}]", v)
        _check_caller(program, stack, i)


def _check_caller(program: Program, stack: list, i: int) -> None:
    """Frame i was pushed by the frame below it: a CALL it waits at, or an EMIT just behind it."""
    name, _, _, returns = stack[i]
    where = f"stack[{i}]"
    if i == 0:
        if name != program.entry or returns:
            raise fail(where, f"the bottom frame must be the entry procedure `{program.entry}`")
        return
    below = stack[i - 1]
    ops = program.procs[below[0]].ops
    if returns:
        op = ops[below[1]]
        if op[0] != CALL or (isinstance(op[1], str) and op[1] != name):
            raise fail(where, f"`{below[0]}` does not call `{name}` at step {below[1]}")
    else:
        j = i - 1
        while j > 0 and stack[j][3] == 0 and stack[j][1] == 0:  # hooks of the same event, not started yet
            j -= 1
        emitter = stack[j]
        ops = program.procs[emitter[0]].ops
        op = ops[emitter[1] - 1] if emitter[1] > 0 else None
        if op is None or op[0] != EMIT or name not in op[1]:
            raise fail(where, f"`{emitter[0]}` does not announce an event `{name}` hooks before step {emitter[1]}")


def _check_flow(data: dict) -> None:
    """Over (a result, or nothing left to run) or waiting at a decision: never both, never neither."""
    stack, pending, result = data["stack"], data["pending"], data["result"]
    if result is not None and (stack or pending is not None):
        raise fail("result", "a game with a result has no stack and no pending decision")
    if stack and pending is None:
        raise fail("pending", "the game is not over, so it must wait at a decision")
    if pending is not None and not stack:
        raise fail("pending", "a pending decision needs the step that waits for it (the stack is empty)")
    if pending is not None and not (isinstance(pending, dict) and set(pending) == PENDING_KEYS):
        raise fail("pending", "expected {player, options, prompt, optional}")


def _check_pending(program: Program, st: GameState) -> None:
    """The pending decision is exactly what the top frame's step asks on this state."""
    if st.pending is None:
        return
    frame = st.stack[-1]
    op = program.procs[frame[0]].ops[frame[1]]
    rt = vm.Runtime(program, st.clone())
    local = list(frame[2])
    limits.work[0] = 0
    try:
        if op[0] == CHOOSE:
            player, options, prompt, optional = op[1](rt, local)
            expected = {"player": rt.seat_of(player), "options": options, "prompt": prompt,
                        "optional": bool(optional)}
            waits = isinstance(options, tuple) and options and (len(options) > 1 or optional or st.ask_forced)
        elif op[0] == CHANCE:
            outcomes = vm.chance_outcomes(rt, op[1].name, op[2](rt, local))
            expected = {"player": -1, "options": outcomes, "prompt": op[1].name, "optional": False}
            waits = st.explicit_chance and not st.forced and bool(outcomes)
        else:
            raise fail("pending", f"the top frame (`{frame[0]}` step {frame[1]}) is not a decision")
    except SaveError:
        raise
    except Exception as err:  # any fault while working it out means the save does not fit
        raise fail("pending", f"the top frame's decision cannot be worked out: {err}") from None
    if not waits:
        raise fail("pending", f"the rules would not wait at `{frame[0]}` step {frame[1]} on this state")
    if tuplify(expected) != st.pending:
        raise fail("pending", f"is not the decision the rules ask at `{frame[0]}` step {frame[1]}")

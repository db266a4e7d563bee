"""The game state: plain data only, cheap to clone, canonical as JSON.

Entities are lists `[kind, zone, props, face_up, component]` (indexed by the E_* constants). The
tables of entities and of zones are `Records`: a clone shares their records and copies one only
when either side reaches it (copy on access), so a clone costs two dict copies. Zones are lists of entity ids, top first. Frames of the interpreter
are `[code_name, pc, locals, returns]`. Every value a script can hold is None, bool, int, str or a tuple
of values; JSON turns tuples into arrays, and `from_json` turns them back.
"""

from __future__ import annotations

import hashlib
import json
import re
from itertools import chain, compress, count, repeat
from operator import is_not, itemgetter
from typing import Any

import attrs

try:
    import orjson
except ImportError:  # the stdlib writes the same text, only slower
    orjson = None

E_KIND, E_ZONE, E_PROPS, E_FACE, E_COMP = range(5)
FULL_FORMAT = 2  # the full form (to_dict): entities as a list in the order they were made
DIGEST_KEY = "_digest"  # sorts before every other key, so the sealed text is canonical JSON too

Value = Any  # None | bool | int | str | tuple[Value, ...]


class Records(dict):
    """A table of mutable records (entity lists, zone lists) that `GameState.clone` can share.

    A clone copies only this mapping; the records stay shared until one side reaches one through
    the mapping (`[]`, `get`, `items`, `values` ...), which first gives that side a copy of its
    own. A table that shares nothing is of the plain class, so reading it costs nothing more
    than a dict; `share` turns it into its `Shared` twin. Code that only reads may iterate with
    `dict.items(table)` / `dict.values(table)` to see the shared records without copying them.
    A record fetched before a clone must be fetched again after it to be changed.
    """

    __slots__ = ("owned",)  # (shared tables) keys whose record this table holds alone
    Shared: type

    @staticmethod
    def copy_record(record: list) -> list:
        return record[:]

    def __reduce__(self):  # a pickled table is its own copy: plain, whatever it shares here
        return (self.Plain, (dict(dict.items(self)),))

    def share(self) -> Records:
        """A copy of this table; from now on both copy a record before handing it out."""
        other = self.Shared(self)
        other.owned = set()
        self.__class__ = self.Shared
        self.owned = set()
        return other


# A record read, never changed: `read_record(table, key)` sees a record a clone shares without
# making it this table's own (`[]` would copy it first). For every reader: rules' reads, views.
read_record = dict.__getitem__


class _SharedRecords(Records):
    __slots__ = ()

    def _own(self, key):
        record = dict.__getitem__(self, key)
        owned = self.owned
        if key in owned:
            return record
        record = self.copy_record(record)
        dict.__setitem__(self, key, record)
        owned.add(key)
        if len(owned) == len(self):  # every record is this table's own again: back to a plain dict
            self.__class__ = self.Plain
        return record

    def __getitem__(self, key):
        return self._own(key)

    def get(self, key, default=None):
        return self._own(key) if key in self else default

    def setdefault(self, key, default=None):
        if key in self:
            return self._own(key)
        self[key] = default
        return default

    def pop(self, key, *default):
        if key in self:
            self._own(key)
            self.owned.discard(key)
        return dict.pop(self, key, *default)

    def __setitem__(self, key, record):
        dict.__setitem__(self, key, record)
        self.owned.add(key)

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        self.owned.discard(key)

    def _own_all(self) -> None:
        for key in list(dict.keys(self)):
            if key in self.owned:
                continue
            self._own(key)

    def values(self):
        self._own_all()
        return dict.values(self)

    def items(self):
        self._own_all()
        return dict.items(self)

    def update(self, *args, **kwargs):
        for key, record in dict(*args, **kwargs).items():
            self[key] = record

    def popitem(self):
        self._own_all()
        return dict.popitem(self)


class Entities(Records):
    __slots__ = ()

    @staticmethod
    def copy_record(record: list) -> list:
        return [record[0], record[1], dict(record[2]), record[3], record[4]]


class Zones(Records):
    __slots__ = ()


class _SharedEntities(_SharedRecords, Entities):
    __slots__ = ()


class _SharedZones(_SharedRecords, Zones):
    __slots__ = ()


for _plain, _shared in ((Entities, _SharedEntities), (Zones, _SharedZones)):
    _plain.Shared = _shared.Shared = _shared
    _plain.Plain = _shared.Plain = _plain


def _entities(table: dict) -> Entities:
    return table if isinstance(table, Entities) else Entities(table)


def _zones(table: dict) -> Zones:
    return table if isinstance(table, Zones) else Zones(table)


def _same_order(a: dict, b: dict) -> bool:
    return list(dict.items(a)) == list(dict.items(b))


# No hook on setting a field (attrs' default runs the converters again at every set, the rng's at
# each draw): whoever sets `entities` or `zones` after __init__ sets an `Entities` / `Zones`.
@attrs.define(slots=True, eq=True, on_setattr=attrs.setters.NO_OP)
class GameState:
    players: int
    seed: int
    options: dict[str, Value]
    ruleset: str  # the fingerprint of the rules this state belongs to
    # equal states give equal JSON, so the order entities were made takes part in equality
    entities: dict[str, list] = attrs.field(factory=Entities, converter=_entities,
                                            eq=attrs.cmp_using(eq=_same_order, require_same_type=False))
    zones: dict[str, list[str]] = attrs.field(factory=Zones, converter=_zones,
                                              eq=attrs.cmp_using(eq=dict.__eq__, require_same_type=False))
    counters: dict[str, int] = attrs.Factory(dict)
    rng: int = 0
    stack: list[list] = attrs.Factory(list)
    pending: dict[str, Any] | None = None
    log: list[dict[str, Any]] = attrs.Factory(list)
    result: dict[str, Any] | None = None
    next_id: int = 0
    forced: list[Value] = attrs.Factory(list)  # scripted chance outcomes, first used first
    moves: list[int] = attrs.Factory(list)  # every option index applied, for replays
    explicit_chance: bool = False  # chance points wait for `apply_chance` (search bots)
    public: list[str] = attrs.Factory(list)  # entities everyone sees wherever they lie (make_public)
    known: dict[str, list[int]] = attrs.Factory(dict)  # entity -> seats that peeked at it where it lies
    ask_forced: bool = False  # a choice with one option waits too (a frontend that shows every step)
    chances: list[int] = attrs.Factory(list)  # explicit chance outcomes taken (their indices), for replays
    # a game that continues a finished one (Game.new(after=...)): that game's result and the props
    # of its players, read with prior_result() / prior_players(prop); None for any other game
    prior: dict[str, Any] | None = None
    # the links laid in play (`connect`), in the order they were laid: rows (link, a, b, label at a,
    # label at b). A tuple, replaced and never changed in place, so a clone shares it and a graph
    # built from it stays right while it is the same object (primitives.graph_of)
    links: tuple[tuple, ...] = ()
    # the components a test asked to put into play once setup is done (`nemesis simulate --with`,
    # Game.new(put_in_play=...)), read with asked_in_play(); () for any other game
    asked: tuple[str, ...] = ()

    def clone(self) -> GameState:
        return GameState(
            self.players, self.seed, self.options, self.ruleset,
            self.entities.share(),
            self.zones.share(),
            dict(self.counters),
            self.rng,
            [[f[0], f[1], f[2][:], f[3]] for f in self.stack],
            self.pending,  # replaced, never mutated in place
            self.log[:],
            self.result,
            self.next_id,
            self.forced[:],
            self.moves[:],
            self.explicit_chance,
            self.public[:],
            {k: v[:] for k, v in self.known.items()},
            self.ask_forced,
            self.chances[:],
            self.prior,  # never mutated
            self.links,  # never mutated
            self.asked,  # never mutated
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FULL_FORMAT,
            "players": self.players, "seed": self.seed, "options": self.options,
            # a list, not a mapping: the order entities were made is part of the state
            # (entities(kind) lists them in it) and JSON objects are written with sorted keys
            "ruleset": self.ruleset, "entities": [[k, *e] for k, e in dict.items(self.entities)],
            "zones": dict(dict.items(self.zones)),
            "counters": self.counters, "rng": self.rng, "stack": self.stack,
            "pending": self.pending, "log": self.log, "result": self.result,
            "next_id": self.next_id, "forced": self.forced, "moves": self.moves,
            "explicit_chance": self.explicit_chance, "public": self.public, "known": self.known,
            "ask_forced": self.ask_forced,
            # only explicit-chance games take chance outcomes from outside (kept out of the others'
            # text so that their saves and golden digests stay as they were)
            **({"chances": self.chances} if self.explicit_chance else {}),
            # only a continued game has one (other saves keep their text and golden digests)
            **({"prior": self.prior} if self.prior is not None else {}),
            # only a board grown in play has them (other saves keep their text and golden digests)
            **({"links": self.links} if self.links else {}),
            # only a game asked to put components into play has them (other saves keep their text)
            **({"asked": self.asked} if self.asked else {}),
        }

    def to_json(self) -> str:
        """The full form as canonical JSON, sealed by `_digest` (the SHA-256 of the rest), which
        sorts first. `Game.to_json` writes the compact save (savefmt.py); this text names a state
        whatever the save format is (save files hash it)."""
        return seal(canonical_json(self.to_dict()))

    @classmethod
    def from_dict(cls, data: dict[str, Any], entities: Entities | None = None,
                  zones: Zones | None = None) -> GameState:
        """The state of a full form (`to_dict`), or of a compact save whose entities and zones
        savefmt.py has rebuilt."""
        if entities is None:
            entities = Entities({e[0]: [e[1], e[2], tuplify(e[3]), e[4], e[5]] for e in data["entities"]})
            zones = Zones({k: list(v) for k, v in data["zones"].items()})
        return cls(
            players=data["players"], seed=data["seed"], options=tuplify(data["options"]),
            ruleset=data["ruleset"], entities=entities, zones=zones,
            counters=dict(data["counters"]),
            rng=data["rng"],
            stack=[[f[0], f[1], [tuplify(v) for v in f[2]], f[3]] for f in data["stack"]],
            pending=tuplify(data["pending"]),
            log=_log(data["log"]),
            result=tuplify(data["result"]),
            next_id=data["next_id"],
            forced=[tuplify(v) for v in data["forced"]],
            moves=list(data["moves"]),
            explicit_chance=bool(data.get("explicit_chance", False)),
            public=list(data.get("public", [])),
            known={k: list(v) for k, v in data.get("known", {}).items()},
            ask_forced=bool(data.get("ask_forced", False)),
            chances=list(data.get("chances", [])),
            prior=tuplify(data.get("prior")),
            links=tuplify(data.get("links", ())),
            asked=tuple(data.get("asked", ())),
        )


def canonical_json(data: Any) -> str:
    """Sorted keys, no spaces, text as it is. orjson writes exactly what json.dumps does, ten times
    faster; json takes what orjson refuses (integers past 64 bits, lone surrogates)."""
    if orjson is not None:
        try:
            return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):
            pass
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


LONG_NUMBER = re.compile(r"[0-9]{19}")  # where orjson may read an integer past 64 bits as a float


def parse_json(text: str, exact: bool = False) -> Any:
    """JSON text read with orjson, or with json when `exact` (orjson reads an integer past 64 bits
    as a float, which the save checks refuse: read such a text again with exact=True). Bad text
    raises ValueError (or RecursionError from json)."""
    if orjson is None or exact:
        return json.loads(text)
    return orjson.loads(text)


def seal(body: str) -> str:
    """Canonical JSON text with its `_digest` put first."""
    return f'{{"{DIGEST_KEY}":"{digest(body)}",{body[1:]}'


def digest(body: str) -> str:
    """The integrity digest of a state's canonical JSON (a seal against bit flips and hand edits,
    not a signature: `verify="replay"` is the check a server relies on)."""
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


_FLAT = frozenset({str, int, bool, float, type(None)})


_TO, _ARGS = itemgetter("to"), itemgetter("args")


def _log(entries: list[dict]) -> list[dict]:
    """Parsed log entries with their lists made tuples, in place (most have none: C loops look at
    them all first)."""
    tos = list(map(_TO, entries))
    if list not in set(map(type, chain.from_iterable(map(dict.values, map(_ARGS, entries))))):
        for i in compress(count(), map(is_not, tos, repeat(None))):
            entries[i]["to"] = tuple(tos[i])
        return entries
    for entry in entries:
        if entry["to"] is not None:
            entry["to"] = tuple(entry["to"])
        args = entry["args"]
        for key, value in args.items():
            if type(value) is list:
                args[key] = tuplify(value)
    return entries


def tuplify(value: Any) -> Any:
    """JSON arrays back to tuples, inside dicts too (dict keys stay strings). Parsed JSON holds
    exact types, so a type test (flat values first, no call for them) is enough."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _FLAT else tuplify(v) for k, v in value.items()}
    if kind is list:
        return tuple([v if type(v) in _FLAT else tuplify(v) for v in value])
    return value

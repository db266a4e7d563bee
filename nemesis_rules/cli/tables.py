"""`nemesis simulate --out DIR`: the games as tidy tables (games, seats, card events), CSV or Parquet.

The card events come from the module's data, never from names known here: a card entering a zone
that `report: cards:` lists under an event (`drawn: [hand]`) is that event, and a log entry with
the `report: plays:` message is a `played` event of its card. A card is named by its component
(the copies `card#1`, `card#2` are one card). docs/simulate.md lists every column.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from nemesis_rules.api import Ruleset
from nemesis_rules.cli.common import CliError
from nemesis_rules.engine.state import E_COMP, GameState

PLAYED = "played"
FORMATS = ("csv", "parquet")
PARQUET_MISSING = "--format parquet needs pyarrow: pip install 'nemesis-rules[report]'"

# Each table's columns: name, type (int / str / bool; empty when unknown), meaning. The CSV header,
# the Parquet schema and docs/simulate.md (a test compares them) all follow this.
COLUMNS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "games": (
        ("seed", "int", "the game's seed"),
        ("modules", "str", "the modules played, `+` between them"),
        ("options", "str", "the game options as JSON (`{}`: the defaults)"),
        ("with", "str", "the components put into play once setup was done (`--with`), space separated"),
        ("players", "int", "players in the game"),
        ("bots", "str", "the bot of each seat, `,` between them"),
        ("end", "str", "why the game ended (the result's reason); `error` or `refused` when it did not"),
        ("winners", "str", "the winning seats, space separated (empty: nobody won)"),
        ("rounds", "int", "rounds played (the module's `report: rounds` counter); empty when it has none"),
        ("decisions", "int", "decisions taken in the game"),
        ("error", "str", "what went wrong in a game with no result (empty otherwise)"),
    ),
    "seats": (
        ("seed", "int", "the game's seed"),
        ("seat", "int", "the seat, from 0"),
        ("player", "str", "the player's id"),
        ("bot", "str", "the bot that played the seat"),
        ("group", "str", "the seat's group (`report: player: group`, a character in Nemesis)"),
        ("group_name", "str", "the group's name"),
        ("objectives", "str", "the components the seat holds as objectives at the end, space separated"),
        ("survived", "bool", "whether the seat survived (`report: player: survived`)"),
        ("won", "bool", "whether the seat is among the winners"),
        ("cause", "str", "how the seat died (`report: player: cause`); empty while alive"),
        ("caveat", "str", "what qualifies the seat's group's figures (`report: player: caveat`)"),
    ),
    "card_events": (
        ("seed", "int", "the game's seed"),
        ("round", "int", "the round counter when it happened"),
        ("seat", "int", "the seat it happened to (empty: none)"),
        ("event", "str", "`played` (the `report: plays` message) or an event `report: cards:` names"),
        ("card", "str", "the card's component id"),
        ("card_name", "str", "the card's name"),
    ),
}


# ---- collecting card events while a game is played ----
class CardWatch:
    """Card events of one game: call `before()` and `after()` around each decision.

    An event fires when a card enters one of its zones from outside them (a move between two of
    them is none); its seat is the player owning the zone, or the one owning the zone the card left.
    Moves inside one decision are seen by their end only (drawn then discarded at once: discarded)."""

    def __init__(self, rules: Ruleset, state: GameState) -> None:
        report = rules.composition.report
        players = rules.program.player_ids[:state.players]
        self.seats = {p: i for i, p in enumerate(players)}
        self.round = report["rounds"].value if "rounds" in report else None
        plays = report.get("plays")
        self.plays = (plays.value.message, plays.value.arg) if plays is not None else None
        self.zones = {field.split(".", 1)[1]: _instances(state, d.value)
                      for field, d in report.items() if field.startswith("cards.")}
        self.owned = [z for z in state.zones if z.partition("@")[2] in self.seats]
        self.where: dict[str, str] = {}  # before the first decision: everything dealt is an event
        self.logged = 0
        self.rows: list[list[Any]] = []

    @property
    def active(self) -> bool:
        return bool(self.zones or self.plays)

    def before(self, state: GameState) -> None:
        seen = {z for zones in self.zones.values() for z in zones} | set(self.owned)
        self.where = {e: z for z in seen for e in state.zones[z]}
        self.logged = len(state.log)

    def after(self, state: GameState) -> None:
        round_now = state.counters.get(self.round) if self.round else None
        for event, zones in self.zones.items():
            inside = set(zones)
            for z in zones:
                for e in state.zones[z]:
                    if self.where.get(e) not in inside:
                        self._add(state, round_now, self._owner(z) or self._owner(self.where.get(e)), event, e)
        if self.plays is not None:
            message, arg = self.plays
            for entry in state.log[self.logged:]:
                if entry["msg"] == message and arg in entry["args"]:
                    card = entry["args"][arg]
                    seat = next((a for a in entry["args"].values() if isinstance(a, str) and a in self.seats),
                                None)
                    self._add(state, round_now, seat or self._owner(self.where.get(card)), PLAYED, card)

    def _owner(self, zone: str | None) -> str | None:
        owner = zone.partition("@")[2] if zone else ""
        return owner if owner in self.seats else None

    def _add(self, state: GameState, round_now: Any, player: str | None, event: str, card: Any) -> None:
        self.rows.append([round_now, self.seats.get(player), event, component_of(state, card)])


def _instances(state: GameState, names: tuple[str, ...]) -> list[str]:
    """The zones of these names: a shared zone itself, a per-owner zone each owner's copy."""
    wanted = set(names)
    return [z for z in state.zones if z.partition("@")[0] in wanted]


def component_of(state: GameState, value: Any) -> str:
    """A copy of a component (`card#3`) is the component; any other value is itself, as text."""
    if isinstance(value, str) and value in state.entities:
        component = state.entities[value][E_COMP]
        if component and value.startswith(f"{component}#"):
            return component
    return value if isinstance(value, str) else json.dumps(value)


def played_by(events: list[dict[str, Any]]) -> dict[str, set[tuple[int, int]]]:
    """Per card, the (seed, seat) pairs that played it; with no `played` event at all (a module
    without `report: plays`), those with any event of the card."""
    kind = PLAYED if any(e["event"] == PLAYED for e in events) else None
    out: dict[str, set[tuple[int, int]]] = {}
    for e in events:
        if e["seat"] is not None and (kind is None or e["event"] == kind):
            out.setdefault(e["card"], set()).add((e["seed"], e["seat"]))
    return out


# ---- the tables ----
def tables(rules: Ruleset, records: list[dict[str, Any]], modules: str, options: dict[str, Any],
           bots: list[str], put_in_play: tuple[str, ...] = ()) -> dict[str, list[dict[str, Any]]]:
    """The three tables of these games' records, as lists of rows (column -> value)."""
    games, seats, events = [], [], []
    for r in records:
        games.append(_game_row(r, modules, options, bots) | {"with": " ".join(put_in_play)})
        seats += _seat_rows(rules, r, bots)
        events += [{"seed": r["seed"], "round": rnd, "seat": seat, "event": event, "card": card,
                    "card_name": rules.label(card)} for rnd, seat, event, card in r.get("card_events") or ()]
    return {"games": games, "seats": seats, "card_events": events}


def _game_row(r: dict[str, Any], modules: str, options: dict[str, Any], bots: list[str]) -> dict[str, Any]:
    result = r["result"]
    end = result["reason"] if result else "refused" if r.get("refused") else "error"
    report = r["report"] or {}
    return {"seed": r["seed"], "modules": modules, "options": json.dumps(options, sort_keys=True),
            "players": r["players"], "bots": ",".join(bots[:r["players"]]), "end": end,
            "winners": " ".join(str(w) for w in result["winners"]) if result else "",
            "rounds": report.get("rounds"), "decisions": r["decisions"], "error": r["error"] or r.get("refused")}


def _seat_rows(rules: Ruleset, r: dict[str, Any], bots: list[str]) -> list[dict[str, Any]]:
    if not r["result"]:
        return []
    winners = set(r["result"]["winners"])
    by_seat = {row["seat"]: row for row in (r["report"] or {}).get("players", ())}
    rows = []
    for seat in range(r["players"]):
        row = by_seat.get(seat, {})
        group = _text(row.get("group"))
        rows.append({"seed": r["seed"], "seat": seat, "player": rules.program.player_ids[seat], "bot": bots[seat],
                     "group": group, "group_name": rules.label(group) if group else None,
                     "objectives": " ".join(row.get("objectives") or ()) or None,
                     "survived": row.get("survived"), "won": seat in winners,
                     "cause": _text(row.get("cause")), "caveat": _text(row.get("caveat"))})
    return rows


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


def write(folder: str | Path, data: dict[str, list[dict[str, Any]]], fmt: str = "csv") -> list[Path]:
    """Write each table as folder/NAME.csv (or .parquet); return the paths written."""
    if fmt == "parquet":
        pa, pq = require_pyarrow()
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, rows in data.items():
        path = out / f"{name}.{fmt}"
        columns = [c for c, _, _ in COLUMNS[name]]
        if fmt == "parquet":
            schema = pa.schema([(c, _ARROW[t](pa)) for c, t, _ in COLUMNS[name]])
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
        else:
            with open(path, "w", encoding="utf-8", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=columns)
                writer.writeheader()
                writer.writerows(rows)
        paths.append(path)
    return paths


_ARROW = {"int": lambda pa: pa.int64(), "str": lambda pa: pa.string(), "bool": lambda pa: pa.bool_()}


def require_pyarrow() -> tuple[Any, Any]:
    """pyarrow and its Parquet writer, or a one-line error naming the extra to install."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CliError(PARQUET_MISSING) from None
    return pa, pq

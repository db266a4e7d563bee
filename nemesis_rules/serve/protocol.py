"""The `nemesis serve` protocol: one JSON object per WebSocket message, each with a `type`.

`SCHEMAS` holds the JSON Schema of every message, the single source of docs/protocol.md (a test
keeps the two equal). `check_client()` first bounds the frame's shape (nesting, size, valid
Unicode), then `check()` validates it against its schema with the small subset of JSON Schema
the schemas use, so the server needs no schema library. Every field has a type and a size, so a
message that passes can be used as it is: nothing a client sends reaches the game unchecked.
"""

from __future__ import annotations

import re
from typing import Any

PROTOCOL = 2  # bumped on any change a client could notice
ACCEPTED = (1, 2)  # versions whose messages the server takes: 2 only adds to 1 (patches are asked for)

MAX_DEPTH = 4  # nesting of a client frame: the deepest schema (create.options) nests 2
MAX_VALUES = 200  # objects, arrays and scalars in one client frame
MAX_INT = (1 << 64) - 1  # the largest seed; decisions and options are far below it

_ID = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9_-]+$"}
_INT = {"type": "integer", "minimum": 0}
_CLIENT_INT = {"type": "integer", "minimum": 0, "maximum": 1_000_000_000}
_PATCHES = {"type": "boolean", "description": "true: updates after the first come as `patch` messages"}
_OPTION_VALUE = {"type": ["string", "integer", "boolean"], "maxLength": 64,
                 "minimum": -MAX_INT, "maximum": MAX_INT}


def _message(kind: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A server message: marked with PROTOCOL."""
    return {"type": "object", "additionalProperties": False,
            "properties": {"type": {"const": kind}, "protocol": {"const": PROTOCOL}, **props},
            "required": ["type", *required]}


def _client(kind: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A client message: it may be marked with any accepted version."""
    schema = _message(kind, props, required)
    schema["properties"]["protocol"] = {"enum": list(ACCEPTED)}
    return schema


CLIENT = {
    "create": _client("create", {
        "ruleset": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 256},
                    "minItems": 1, "maxItems": 16},
        "seats": {"type": "array", "items": {"enum": ["human", "random", "heuristic"]}, "minItems": 1,
                  "maxItems": 64},
        "seed": {"type": "integer", "minimum": 0, "maximum": MAX_INT},
        "options": {"type": "object", "maxProperties": 32,
                    "propertyNames": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"},
                    "additionalProperties": _OPTION_VALUE},
        "lang": {"type": "string", "pattern": "^[a-z]{2,3}$"},
    }, ["ruleset", "seats"]),
    "join": _client("join", {"table": _ID, "token": {"type": "string", "minLength": 1, "maxLength": 64,
                                                      "pattern": "^[A-Za-z0-9_-]+$"},
                              "patches": _PATCHES}, ["table", "token"]),
    "watch": _client("watch", {"table": _ID, "patches": _PATCHES}, ["table"]),
    "choose": _client("choose", {"decision": _CLIENT_INT, "option": _CLIENT_INT}, ["decision", "option"]),
    "full": _client("full", {}, []),
}

_DECISION = {
    "type": ["object", "null"],
    "properties": {"id": _INT, "player": {"type": "integer"}, "prompt": {"type": "string"},
                   "options": {"type": "array", "items": {
                       "type": "object", "properties": {
                           "index": _INT, "label": {"type": "string"},
                           "value": {"description": "the option's value as the view shows it (a hidden entity is its "
                                                    "placeholder); a list for a tuple"},
                           "refs": {"type": "array", "items": {"type": "string"},
                                    "description": "the entity ids of the view the value names, in order"}},
                       "required": ["index", "label", "value", "refs"]}},
                   "unavailable": {"type": "array", "description": "with the options, at a choice of action: the "
                                   "declared actions not offered, each with why (unavailable_actions)", "items": {
                       "type": "object", "properties": {
                           "action": {"type": "string"}, "label": {"type": "string"}, "reason": {"type": "string"}},
                       "required": ["action", "label", "reason"]}}},
    "required": ["id", "player", "prompt"],
}
_SCREEN = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "counters": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
        "panels": {"type": "array", "items": {"type": "object", "properties": {
            "title": {"type": "string"}, "columns": {"type": "array", "items": {"type": "string"}},
            "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}},
            "required": ["title", "columns", "rows"]}},
        "zones": {"type": "array", "items": {"type": "string"}},
        "log": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["title", "counters", "panels", "zones", "log"],
}

_BOARD = {
    "type": "object",
    "description": "what a page needs to draw the board and the seat from the view",
    "properties": {
        "layout": {"type": ["object", "null"], "description": "the modules' layout that fits the game's options "
                                                             "(docs/modding.md, Drawing the board), or null"},
        "ends": {"type": "object", "description": "each printed link of the layout: id -> [end a, end b, label at a, "
                                                  "label at b]"},
        "bounds": {"type": "object", "description": "each counter the layout draws as a track: counter -> [min, "
                                                    "max], its spaces when no entity gives them"},
        "names": {"type": "object", "description": "each entity of the view: id -> its name; and the label of "
                                                  "every prop, text prop value, zone and counter of the view"},
        "kinds": {"type": "object", "description": "each kind of entity of the view: kind -> its name"},
        "texts": {"type": "object", "description": "what the face of each seen entity in a player's zone and of "
                                                   "each entity the seat's options name reads: id -> text"},
        "words": {"type": "object", "description": "the page's own words in the table's language "
                                                   "(nemesis_rules/phrases, `page:`): key -> text"},
    },
    "required": ["layout", "ends", "names", "texts", "words"],
}

SERVER = {
    "welcome": _message("welcome", {"server": {"type": "string"}}, ["protocol", "server"]),
    "created": _message("created", {"table": _ID, "seats": {"type": "array", "items": {
        "type": "object", "properties": {"seat": _INT, "kind": {"type": "string"}, "token": {"type": "string"}},
        "required": ["seat", "kind"]}}}, ["table", "seats"]),
    "joined": _message("joined", {"table": _ID, "seat": {"type": ["integer", "null"]}}, ["table", "seat"]),
    "update": _message("update", {
        "table": _ID, "seat": {"type": ["integer", "null"]}, "seq": _INT,
        "view": {"type": "object", "description": "Game.view(seat): all this seat may see"},
        "decision": _DECISION, "screen": _SCREEN, "board": _BOARD,
        "result": {"type": ["object", "null"], "properties": {
            "reason": {"type": "string"}, "winners": {"type": "array", "items": {"type": "integer"}},
            "text": {"type": "string"}}},
    }, ["table", "seat", "seq", "view", "decision", "screen", "result", "board"]),
    "patch": _message("patch", {
        "table": _ID, "seq": _INT,
        "ops": {"type": "array", "description": "RFC 6902 JSON Patch: turns the update numbered seq - 1 "
                                                "(without type, protocol and seq) into this one",
                "items": {"type": "object", "properties": {
                    "op": {"enum": ["add", "remove", "replace", "move", "copy", "test"]},
                    "path": {"type": "string"}, "from": {"type": "string"}, "value": {}},
                    "required": ["op", "path"]}},
    }, ["table", "seq", "ops"]),
    "error": _message("error", {
        "code": {"enum": ["bad_json", "bad_message", "protocol", "bad_ruleset", "unknown_table", "bad_token",
                          "not_joined", "not_your_decision", "stale_decision", "illegal_option", "game_over",
                          "bad_option", "too_many_tables", "rate_limited"]},
        "message": {"type": "string"}}, ["code", "message"]),
}

SCHEMAS = {**CLIENT, **SERVER}


class ProtocolError(Exception):
    """A message the server refuses: `code` (an `error` message's code) and a readable text."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def check_client(message: Any) -> dict[str, Any]:
    """A client message checked against its schema; ProtocolError if it does not fit."""
    if problem := shape_problem(message):
        raise ProtocolError("bad_message", problem)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str) or message["type"] not in CLIENT:
        raise ProtocolError("bad_message", f"a message is an object whose type is one of {sorted(CLIENT)}")
    if "protocol" in message and not any(_same(message["protocol"], v) for v in ACCEPTED):
        raise ProtocolError("protocol", f"this server speaks protocol {PROTOCOL} (and takes {ACCEPTED[0]}), "
                                        f"not {brief(message['protocol'])}")
    problem = check(CLIENT[message["type"]], message, message["type"])
    if problem:
        raise ProtocolError("bad_message", problem)
    return message


def shape_problem(message: Any) -> str | None:
    """What makes a parsed frame too big to look at (None: nothing): deeper than MAX_DEPTH, more
    than MAX_VALUES values, or a string that is not valid Unicode (a lone surrogate). Walked
    without recursion, so no frame can exhaust the stack."""
    todo, count = [(message, 1)], 0
    while todo:
        value, depth = todo.pop()
        count += 1
        if depth > MAX_DEPTH or count > MAX_VALUES:
            return f"a message nests at most {MAX_DEPTH} levels and holds at most {MAX_VALUES} values"
        if isinstance(value, dict):
            todo.extend((x, depth + 1) for kv in value.items() for x in kv)
        elif isinstance(value, list):
            todo.extend((x, depth + 1) for x in value)
        elif isinstance(value, str) and not _is_unicode(value):
            return "a message's text must be valid Unicode (no lone surrogate)"
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def brief(value: Any) -> str:
    """A short, safe description of a client's value for an error message."""
    text = repr(value) if isinstance(value, (int, float, bool, type(None))) else type(value).__name__
    return text if len(text) <= 40 else text[:39] + "…"


_TYPES = {"object": dict, "array": list, "string": str, "null": type(None), "boolean": bool}


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def check(schema: dict[str, Any], value: Any, where: str) -> str | None:
    """What is wrong with `value` against `schema` (None: nothing)."""
    kinds = schema.get("type")
    if kinds is not None and not any(_is(value, k) for k in ([kinds] if isinstance(kinds, str) else kinds)):
        return f"{where} must be {' or '.join([kinds] if isinstance(kinds, str) else kinds)}"
    if "const" in schema and not _same(value, schema["const"]):
        return f"{where} must be {schema['const']!r}"
    if "enum" in schema and not any(_same(value, v) for v in schema["enum"]):
        return f"{where} must be one of {schema['enum']}"
    if isinstance(value, str):
        return _check_string(schema, value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        low, high = schema.get("minimum", -float("inf")), schema.get("maximum", float("inf"))
        return None if low <= value <= high else f"{where} must be from {low} to {high}"
    if isinstance(value, list):
        return _check_array(schema, value, where)
    if isinstance(value, dict):
        return _check_object(schema, value, where)
    return None


def _same(value: Any, wanted: Any) -> bool:
    """JSON equality: `true` is not `1`."""
    return type(value) is type(wanted) and value == wanted


def _check_string(schema: dict[str, Any], value: str, where: str) -> str | None:
    if not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", 1 << 30):
        return f"{where} has a wrong length"
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return f"{where} must match {schema['pattern']}"
    return None


def _check_array(schema: dict[str, Any], value: list, where: str) -> str | None:
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", 1 << 30):
        return f"{where} needs from {schema.get('minItems', 0)} to {schema.get('maxItems', 'any')} item(s)"
    items = schema.get("items")
    return next((p for i, v in enumerate(value) if items and (p := check(items, v, f"{where}[{i}]"))), None)


def _check_object(schema: dict[str, Any], value: dict, where: str) -> str | None:
    missing = [k for k in schema.get("required", ()) if k not in value]
    if missing:
        return f"{where} lacks {', '.join(missing)}"
    if len(value) > schema.get("maxProperties", 1 << 30):
        return f"{where} has more than {schema['maxProperties']} fields"
    props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key, extra)
        if sub is False:
            return f"{where} has no field {key[:40]!r}"
        if "propertyNames" in schema and (problem := check(schema["propertyNames"], key, f"{where} field name")):
            return problem
        if isinstance(sub, dict) and (problem := check(sub, item, f"{where}.{key}")):
            return problem
    return None

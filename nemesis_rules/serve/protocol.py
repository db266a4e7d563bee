"""The `nemesis serve` protocol: one JSON object per WebSocket message, each with a `type`.

`SCHEMAS` holds the JSON Schema of every message, the single source of docs/protocol.md (a test
keeps the two equal). `check()` validates a client message against its schema with the small
subset of JSON Schema the schemas use, so the server needs no schema library.
"""

from __future__ import annotations

from typing import Any

PROTOCOL = 1  # bumped on any change a client could notice

_ID = {"type": "string", "minLength": 1, "maxLength": 64}
_INT = {"type": "integer", "minimum": 0}
_OPTION_VALUE = {"type": ["string", "integer", "boolean"]}


def _message(kind: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False,
            "properties": {"type": {"const": kind}, "protocol": {"const": PROTOCOL}, **props},
            "required": ["type", *required]}


CLIENT = {
    "create": _message("create", {
        "ruleset": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
        "seats": {"type": "array", "items": {"enum": ["human", "random", "heuristic"]}, "minItems": 1},
        "seed": {"type": "integer"},
        "options": {"type": "object", "additionalProperties": _OPTION_VALUE},
        "lang": {"type": "string"},
    }, ["ruleset", "seats"]),
    "join": _message("join", {"table": _ID, "token": {"type": "string", "minLength": 1}}, ["table", "token"]),
    "watch": _message("watch", {"table": _ID}, ["table"]),
    "choose": _message("choose", {"decision": _INT, "option": _INT}, ["decision", "option"]),
}

_DECISION = {
    "type": ["object", "null"],
    "properties": {"id": _INT, "player": {"type": "integer"}, "prompt": {"type": "string"},
                   "options": {"type": "array", "items": {
                       "type": "object", "properties": {"index": _INT, "label": {"type": "string"}},
                       "required": ["index", "label"]}}},
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

SERVER = {
    "welcome": _message("welcome", {"server": {"type": "string"}}, ["protocol", "server"]),
    "created": _message("created", {"table": _ID, "seats": {"type": "array", "items": {
        "type": "object", "properties": {"seat": _INT, "kind": {"type": "string"}, "token": {"type": "string"}},
        "required": ["seat", "kind"]}}}, ["table", "seats"]),
    "joined": _message("joined", {"table": _ID, "seat": {"type": ["integer", "null"]}}, ["table", "seat"]),
    "update": _message("update", {
        "table": _ID, "seat": {"type": ["integer", "null"]},
        "view": {"type": "object", "description": "Game.view(seat): all this seat may see"},
        "decision": _DECISION, "screen": _SCREEN,
        "result": {"type": ["object", "null"], "properties": {
            "reason": {"type": "string"}, "winners": {"type": "array", "items": {"type": "integer"}},
            "text": {"type": "string"}}},
    }, ["table", "seat", "view", "decision", "screen", "result"]),
    "error": _message("error", {
        "code": {"enum": ["bad_json", "bad_message", "protocol", "bad_ruleset", "unknown_table", "bad_token",
                          "not_joined", "not_your_decision", "stale_decision", "illegal_option", "game_over"]},
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
    if not isinstance(message, dict) or message.get("type") not in CLIENT:
        raise ProtocolError("bad_message", f"a message is an object whose type is one of {sorted(CLIENT)}")
    if "protocol" in message and message["protocol"] != PROTOCOL:
        raise ProtocolError("protocol", f"this server speaks protocol {PROTOCOL}, not {message['protocol']!r}")
    problem = check(CLIENT[message["type"]], message, message["type"])
    if problem:
        raise ProtocolError("bad_message", problem)
    return message


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
    if "const" in schema and value != schema["const"]:
        return f"{where} must be {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} must be one of {schema['enum']}"
    if isinstance(value, str) and not schema.get("minLength", 0) <= len(value) <= schema.get("maxLength", 1 << 30):
        return f"{where} has a wrong length"
    if isinstance(value, int) and "minimum" in schema and value < schema["minimum"]:
        return f"{where} must be at least {schema['minimum']}"
    if isinstance(value, list):
        return _check_array(schema, value, where)
    if isinstance(value, dict):
        return _check_object(schema, value, where)
    return None


def _check_array(schema: dict[str, Any], value: list, where: str) -> str | None:
    if len(value) < schema.get("minItems", 0):
        return f"{where} needs at least {schema['minItems']} item(s)"
    items = schema.get("items")
    return next((p for i, v in enumerate(value) if items and (p := check(items, v, f"{where}[{i}]"))), None)


def _check_object(schema: dict[str, Any], value: dict, where: str) -> str | None:
    missing = [k for k in schema.get("required", ()) if k not in value]
    if missing:
        return f"{where} lacks {', '.join(missing)}"
    props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = props.get(key, extra)
        if sub is False:
            return f"{where} has no field {key!r}"
        if isinstance(sub, dict) and (problem := check(sub, item, f"{where}.{key}")):
            return problem
    return None

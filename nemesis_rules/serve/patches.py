"""RFC 6902 JSON Patches between two successive updates of one seat (`make_patch`).

Two updates share almost everything: a few props, a zone or two, the log's new lines. The patch
descends only into what differs (equal parts are compared whole, at C speed), and a list that
changed keeps its common head and tail: what lies between is patched item by item, and what it
gained or lost is added or removed at its end. Only `add`, `remove` and `replace` are written.
Python's `==` holds `true == 1 == 1.0`, so two containers it finds equal are also compared as
bytes (`marshal`, which writes each type apart), still at C speed: a 1 that turns into true deep
inside an otherwise unchanged container is patched.
"""

from __future__ import annotations

import marshal
from typing import Any


def make_patch(old: Any, new: Any) -> list[dict[str, Any]]:
    """The operations that turn the JSON document `old` into `new`."""
    ops: list[dict[str, Any]] = []
    _diff(old, new, "", ops)
    return ops


def _diff(old: Any, new: Any, path: str, ops: list[dict[str, Any]]) -> None:
    if type(old) is not type(new):  # JSON types: true is not 1
        ops.append({"op": "replace", "path": path, "value": new})
    elif isinstance(old, dict):
        _diff_objects(old, new, path, ops)
    elif isinstance(old, list):
        _diff_lists(old, new, path, ops)
    elif old != new:
        ops.append({"op": "replace", "path": path, "value": new})


def _diff_objects(old: dict, new: dict, path: str, ops: list[dict[str, Any]]) -> None:
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
    for key, value in new.items():
        if key not in old:
            ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
        elif not _same(old[key], value):
            _diff(old[key], value, f"{path}/{_escape(key)}", ops)


def _diff_lists(old: list, new: list, path: str, ops: list[dict[str, Any]]) -> None:
    if _same(old, new):
        return
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and _same(old[head], new[head]):
        head += 1
    tail = 0
    while tail < shortest - head and _same(old[-1 - tail], new[-1 - tail]):
        tail += 1
    changed_old, changed_new = old[head:len(old) - tail], new[head:len(new) - tail]
    both = min(len(changed_old), len(changed_new))
    for i in range(both):
        _diff(changed_old[i], changed_new[i], f"{path}/{head + i}", ops)
    for _ in range(len(changed_old) - both):  # the ones lost, each at the same place in turn
        ops.append({"op": "remove", "path": f"{path}/{head + both}"})
    for i, value in enumerate(changed_new[both:]):
        ops.append({"op": "add", "path": f"{path}/{head + both + i}", "value": value})


def _same(a: Any, b: Any) -> bool:
    """JSON equality for what the patch must keep: equal values of the same types, all the way down.
    Marshal's format 2 writes no back-references, so equal documents give equal bytes unless a
    dict's keys differ in order (then the walk goes down and finds nothing to patch)."""
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, (dict, list)) or marshal.dumps(a, 2) == marshal.dumps(b, 2)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")

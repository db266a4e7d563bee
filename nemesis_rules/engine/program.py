"""The compiled form of a ruleset: what the interpreter runs.

Procedures become flat lists of steps (`Code.ops`) with a program counter, so the game's place
is plain data. Expressions become Python closures `f(rt, L)` (L: the frame's local slots) and run
atomically; a call that may wait or draw chance inside an expression is hoisted into a step of its
own before the expression, into a temporary slot.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from nemesis_rules.dsl.diagnostics import NO_SPAN, Span

# Step opcodes. A step is a tuple whose first item is one of these.
EVAL, STORE, JUMP, JUMP_IF_NOT, CALL, RETURN, CHOOSE, CHANCE, FOR_NEXT, EMIT = range(10)

Closure = Callable[[Any, list], Any]


@attrs.define
class Code:
    """One procedure's steps, with a span per step for error messages."""

    name: str
    params: tuple[str, ...]
    nlocals: int
    ops: list[tuple] = attrs.Factory(list)
    spans: list[Span] = attrs.Factory(list)
    span: Span = NO_SPAN


@attrs.frozen
class ActionInfo:
    name: str
    available: Closure  # (rt, [actor, ...]) -> bool
    cost: Closure | None


@attrs.define
class Graph:
    """The static graph of link components, precomputed at load."""

    ends: dict[str, tuple[str, str]] = attrs.Factory(dict)
    labels: dict[tuple[str, str], Any] = attrs.Factory(dict)  # (link, node) -> label
    by_label: dict[tuple[str, Any], str] = attrs.Factory(dict)  # (node, label) -> link
    links: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    neighbors: dict[str, tuple[str, ...]] = attrs.Factory(dict)


@attrs.define
class Program:
    procs: dict[str, Code] = attrs.Factory(dict)
    fns: dict[str, Callable] = attrs.Factory(dict)
    actions: list[ActionInfo] = attrs.Factory(list)
    action_index: dict[str, ActionInfo] = attrs.Factory(dict)
    triggers: dict[str, tuple[str, ...]] = attrs.Factory(dict)  # event -> trigger procedures
    dice: dict[str, tuple] = attrs.Factory(dict)
    graph: Graph = attrs.Factory(Graph)
    kind_defaults: dict[str, dict[str, Any]] = attrs.Factory(dict)
    kind_zones: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    zone_visibility: dict[str, str] = attrs.Factory(dict)  # template name -> visibility
    zone_per: dict[str, str | None] = attrs.Factory(dict)
    counters: dict[str, tuple[int, int, int, bool]] = attrs.Factory(dict)  # min, max, start, clamp
    player_ids: tuple[str, ...] = ()
    templates: dict[str, tuple[str, dict, bool]] = attrs.Factory(dict)  # component -> kind, props, face
    initial: list[tuple[str, str, str | None]] = attrs.Factory(list)  # entity id, component, zone
    entry: str = "main"
    has_pay_cost: bool = False
    can_pay: Callable | None = None

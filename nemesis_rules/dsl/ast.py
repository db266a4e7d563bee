"""The AST: one frozen, slotted attrs class per node, each with a span.

Spans do not take part in equality, so `parse(print(tree)) == tree` compares structure only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from nemesis_rules.dsl.diagnostics import NO_SPAN, Span


def node(cls: type) -> type:
    return attrs.frozen(slots=True, kw_only=False, cache_hash=True)(cls)


def _span() -> Span:
    return attrs.field(default=NO_SPAN, eq=False, repr=False, kw_only=True)


def _doc() -> str:
    """A definition's doc: its `##` comment lines, like a span not part of its structure."""
    return attrs.field(default="", eq=False, repr=False, kw_only=True)


# ---- expressions ----
@node
class Num:
    value: int
    span: Span = _span()


@node
class Str:
    value: str
    span: Span = _span()


@node
class Bool:
    value: bool
    span: Span = _span()


@node
class NoneLit:
    span: Span = _span()


@node
class Name:
    id: str
    span: Span = _span()


@node
class Attr:
    obj: Expr
    name: str
    span: Span = _span()


@node
class Index:
    obj: Expr
    index: Expr
    span: Span = _span()


@node
class Kwarg:
    name: str
    value: Expr
    span: Span = _span()


@node
class Call:
    func: Expr
    args: tuple[Expr, ...] = ()
    kwargs: tuple[Kwarg, ...] = ()
    span: Span = _span()


@node
class BinOp:
    op: str  # + - * / %
    left: Expr
    right: Expr
    span: Span = _span()


@node
class Neg:
    operand: Expr
    span: Span = _span()


@node
class Not:
    operand: Expr
    span: Span = _span()


@node
class BoolOp:
    op: str  # and | or
    left: Expr
    right: Expr
    span: Span = _span()


@node
class Compare:
    op: str  # == != < <= > >= in "not in"
    left: Expr
    right: Expr
    span: Span = _span()


@node
class ListLit:
    items: tuple[Expr, ...] = ()
    span: Span = _span()


@node
class ListComp:
    elt: Expr
    var: str
    iter: Expr
    cond: Expr | None = None
    span: Span = _span()


@node
class IfExp:
    cond: Expr
    then: Expr
    orelse: Expr
    span: Span = _span()


Expr = (
    Num | Str | Bool | NoneLit | Name | Attr | Index | Call | BinOp | Neg | Not | BoolOp
    | Compare | ListLit | ListComp | IfExp
)


# ---- statements ----
@node
class Let:
    name: str
    value: Expr
    span: Span = _span()


@node
class Assign:
    target: Expr  # Name or Attr
    value: Expr
    span: Span = _span()


@node
class AugAssign:
    target: Expr
    op: str  # += -=
    value: Expr
    span: Span = _span()


@node
class Return:
    value: Expr | None = None
    span: Span = _span()


@node
class Pass:
    span: Span = _span()


@node
class Break:
    span: Span = _span()


@node
class Continue:
    span: Span = _span()


@node
class Emit:
    event: str
    args: tuple[Expr, ...] = ()
    span: Span = _span()


@node
class ExprStmt:
    expr: Expr
    span: Span = _span()


@node
class Branch:
    cond: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class If:
    branches: tuple[Branch, ...]  # if, then each elif
    orelse: tuple[Stmt, ...] = ()
    span: Span = _span()


@node
class For:
    var: str
    iter: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class Repeat:
    count: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class While:
    cond: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class Wildcard:
    span: Span = _span()


Pattern = Num | Str | Bool | NoneLit | Name | Wildcard


@node
class Case:
    patterns: tuple[Pattern, ...]
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class Match:
    subject: Expr
    cases: tuple[Case, ...]
    span: Span = _span()


Stmt = (
    Let | Assign | AugAssign | Return | Pass | Break | Continue | Emit | ExprStmt | If | For
    | Repeat | While | Match
)


# ---- declarations ----
@node
class ProcDef:
    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    replace: bool = False
    doc: str = _doc()
    span: Span = _span()


@node
class FnDef:
    name: str
    params: tuple[str, ...]
    expr: Expr
    doc: str = _doc()
    span: Span = _span()


@node
class ModifierDef:
    name: str
    params: tuple[str, ...]
    when: Expr | None
    op: str  # + - * =
    expr: Expr
    span: Span = _span()


@node
class EventDef:
    name: str
    params: tuple[str, ...] = ()
    doc: str = _doc()
    span: Span = _span()


@node
class TriggerDef:
    event: str
    params: tuple[str, ...]
    when: Expr | None
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class HookDef:
    kind: str  # before | after | instead
    target: str
    params: tuple[str, ...]
    when: Expr | None
    body: tuple[Stmt, ...]
    span: Span = _span()


@node
class ActionParam:
    name: str
    domain: Expr
    span: Span = _span()


@node
class ActionDef:
    name: str
    actor: str
    params: tuple[ActionParam, ...]
    cost: Expr | None
    when: Expr | None
    body: tuple[Stmt, ...]
    doc: str = _doc()
    span: Span = _span()


@node
class PhaseDef:
    name: str
    steps: tuple[str, ...]
    step_spans: tuple[Span, ...] = attrs.field(default=(), eq=False, repr=False)
    span: Span = _span()


@node
class StepChange:
    op: str  # before | after | remove | replace
    step: str  # the step inserted, removed or replaced
    anchor: str = ""  # the step it goes before/after, or the replacement
    span: Span = _span()


@node
class PhaseExtend:
    name: str
    changes: tuple[StepChange, ...]
    span: Span = _span()


Decl = ProcDef | FnDef | ModifierDef | EventDef | TriggerDef | HookDef | ActionDef | PhaseDef | PhaseExtend


@node
class Module:
    decls: tuple[Decl, ...] = ()
    span: Span = _span()


@node
class Body:
    """A script field's body (a procedure body without its header)."""

    stmts: tuple[Stmt, ...] = ()
    span: Span = _span()


def walk(node: Any) -> Iterator[Any]:
    """`node`, then every node, tuple and value below it, depth first (spans and docs left out)."""
    yield node
    if isinstance(node, tuple):
        for item in node:
            yield from walk(item)
    elif attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            if field.name not in ("span", "doc"):
                yield from walk(getattr(node, field.name))


NODE_TYPES: tuple[type, ...] = tuple(
    cls for cls in list(globals().values()) if isinstance(cls, type) and attrs.has(cls)
    and cls is not Span
)

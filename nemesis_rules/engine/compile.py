"""AST to steps and expression functions (see program.py for the shapes). Runs once per load.

The checker has already run: names resolve, arities match. What is left to fail here fails
at run time with the step's span (e.g. a value of the wrong type).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import attrs

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import Span, brief
from nemesis_rules.engine import limits
from nemesis_rules.engine.blocks import add_blocks
from nemesis_rules.engine.codegen import ExprSource
from nemesis_rules.engine.limits import charge, check_int, check_length
from nemesis_rules.engine.primitives import GROWN, REGISTRY, ScriptError, read
from nemesis_rules.engine.program import (
    CALL,
    CHANCE,
    CHOOSE,
    EMIT,
    EVAL,
    FOR_NEXT,
    JUMP,
    JUMP_IF_NOT,
    RETURN,
    STORE,
    ActionInfo,
    Closure,
    Code,
    Graph,
    Program,
    label_key,
)
from nemesis_rules.engine.straight import add_straight
from nemesis_rules.engine.vm import replacing

PAUSING_PRIMS = {n for n, p in REGISTRY.items() if p.kind in ("chance", "decision")}


@functools.cache
def _child_fields(cls: type) -> tuple[str, ...] | None:
    """The fields of a syntax node class that may hold nodes; None for what is not a node (a
    span, a hoisted `Temp`, a plain value). Asked once per class: `pauses` visits every node."""
    if not attrs.has(cls) or cls in (Temp, Span):
        return None
    return tuple(f.name for f in attrs.fields(cls) if f.name != "span")


@attrs.frozen
class Temp:
    """A hoisted call's result, in a local slot (compiler-internal node)."""

    slot: int
    span: Span = attrs.field(default=Span(), eq=False)


def _div(a, b):
    if b == 0:
        raise ScriptError("division by zero")
    return a // b


def _mod(a, b):
    if b == 0:
        raise ScriptError("modulo by zero")
    return a % b


BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div, "%": _mod}


class Names:
    """What a bare name means in the composition (shared by every code unit)."""

    def __init__(self, comp) -> None:
        self.counters = set(comp.counters)
        self.values: set[str] = set(comp.symbols) | set(comp.components) | set(comp.kinds) | set(comp.dice)
        self.values |= set(comp.actions) | set(comp.options)
        for faces in comp.dice.values():
            self.values |= {f for f in faces.value if isinstance(f, str)}
        for spec in comp.options.values():
            self.values |= {v for v in spec.values if isinstance(v, str)}
        self.global_zones = {n for n, z in comp.zones.items() if z.value.per is None}
        self.owned_zones = {n for n, z in comp.zones.items() if z.value.per is not None}
        self.values |= self.global_zones
        self.procs = set(comp.procs) | set(comp.phases)
        self.fns = set(comp.fns)
        self.fn_scripts = {f for k in comp.kinds.values() for f in k.value.functions}
        # what a function may read and still hold for the whole game: the graph only while no
        # rule changes it in play
        self.lays_links = lays_links(comp)
        self.static_prims = STATIC_PRIMS - GRAPH_READS if self.lays_links else STATIC_PRIMS
        # functions that are one comprehension, unmodified: `first(f(...))` stops at the first item
        modified = {d.value.name for d in comp.modifiers}
        self.first_fns = {n for n, d in comp.fns.items() if isinstance(d.value.expr, ast.ListComp) and n not in modified}


class CodeBuilder:
    """Compiles one procedure body into a `Code`."""

    def __init__(self, compiler: Compiler, name: str, params: tuple[str, ...], span: Span) -> None:
        self.c = compiler
        self.names = compiler.names
        self.code = Code(name, params, len(params), span=span)
        self.slots: dict[str, int] = {p: i for i, p in enumerate(params)}
        self.loops: list[tuple[int, list[int]]] = []  # (continue target, break jumps to patch)

    # ---- slots and steps ----
    def slot(self, name: str) -> int:
        if name not in self.slots:
            self.slots[name] = self.new_slot()
        return self.slots[name]

    def new_slot(self) -> int:
        self.code.nlocals += 1
        return self.code.nlocals - 1

    def emit(self, op: tuple, span: Span) -> int:
        self.code.ops.append(op)
        self.code.spans.append(span)
        return len(self.code.ops) - 1

    def patch(self, at: int, target: int) -> None:
        op = self.code.ops[at]
        self.code.ops[at] = (*op[:-1], target)

    def here(self) -> int:
        return len(self.code.ops)

    def finish(self) -> Code:
        self.emit((RETURN, None), self.code.span)
        self.code.ops = [tuple(op) for op in self.code.ops]
        return self.code

    # ---- statements ----
    def block(self, stmts: tuple[ast.Stmt, ...]) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s: ast.Stmt) -> None:
        method = getattr(self, f"stmt_{type(s).__name__}")
        method(s)

    def stmt_Let(self, s: ast.Let) -> None:
        value = self.value(s.value)
        self.emit((STORE, self.slot(s.name), value), s.span)

    def stmt_Assign(self, s: ast.Assign) -> None:
        self._assign(s.target, self.value_src(s.value), s.span)

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        target = self.lower(s.target)  # a call that waits in `e.prop` runs once, before the value
        current = self.c.gen.source(target, self, {})
        delta = self.value_src(s.value)
        self._assign(target, self.c.gen.arith(s.op[0], current, delta), s.span)

    def _assign(self, target: ast.Expr, value: str, span: Span) -> None:
        """Store `value` (an expression's source) in a local, a counter or a property."""
        if isinstance(target, ast.Name):
            if target.id in self.slots or target.id not in self.names.counters:
                self.emit((STORE, self.slot(target.id), self.make(value)), span)
                return
            self.emit((EVAL, self.make(f"rt.set_counter({self.c.gen.constant(target.id)}, {value})")), span)
            return
        assert isinstance(target, ast.Attr)
        obj = self.value_src(target.obj)
        self.emit((EVAL, self.make(f"rt.set_attr({obj}, {self.c.gen.constant(target.name)}, {value})")), span)

    def stmt_Return(self, s: ast.Return) -> None:
        self.emit((RETURN, None if s.value is None else self.value(s.value)), s.span)

    def stmt_Pass(self, s: ast.Pass) -> None:
        pass

    def stmt_Break(self, s: ast.Break) -> None:
        self.loops[-1][1].append(self.emit((JUMP, -1), s.span))

    def stmt_Continue(self, s: ast.Continue) -> None:
        self.emit((JUMP, self.loops[-1][0]), s.span)

    def stmt_Emit(self, s: ast.Emit) -> None:
        triggers = self.c.program.triggers.get(s.event, ())
        if not triggers:  # nobody listens: announcing a moment costs nothing
            return
        args = [self.value_src(a) for a in s.args]
        self.emit((EMIT, triggers, self.make(_list_src(args))), s.span)

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> None:
        e = s.expr
        if isinstance(e, ast.Call) and self.c.is_pausing_call(e):
            self.pausing_call(self.lower_parts(e), -1)
        else:
            self.emit((EVAL, self.value(e)), s.span)

    def stmt_If(self, s: ast.If) -> None:
        ends = []
        for b in s.branches:
            cond = self.value(b.cond)
            skip = self.emit((JUMP_IF_NOT, cond, -1), b.cond.span)
            self.block(b.body)
            ends.append(self.emit((JUMP, -1), b.span))
            self.patch(skip, self.here())
        self.block(s.orelse)
        for j in ends:
            self.patch(j, self.here())

    def stmt_For(self, s: ast.For) -> None:
        items, index = self.new_slot(), self.new_slot()
        self.emit((STORE, items, self.make(f"_for_list({self.value_src(s.iter)})")), s.iter.span)
        self.emit((STORE, index, _zero), s.span)
        head = self.emit((FOR_NEXT, self.slot(s.var), items, index, -1), s.span)
        self._loop_body(s.body, head, head)

    def stmt_Repeat(self, s: ast.Repeat) -> None:
        left = self.new_slot()
        self.emit((STORE, left, self.make(f"_as_int({self.value_src(s.count)})")), s.count.span)
        head = self.emit((JUMP_IF_NOT, lambda rt, L: L[left] > 0, -1), s.span)
        self.emit((STORE, left, lambda rt, L: L[left] - 1), s.span)
        self._loop_body(s.body, head, head)

    def stmt_While(self, s: ast.While) -> None:
        head = self.here()
        cond = self.value(s.cond)
        test = self.emit((JUMP_IF_NOT, cond, -1), s.span)
        self._loop_body(s.body, head, test)

    def _loop_body(self, body: tuple[ast.Stmt, ...], head: int, exit_at: int) -> None:
        self.loops.append((head, []))
        self.block(body)
        self.emit((JUMP, head), body[-1].span if body else Span())
        _, breaks = self.loops.pop()
        end = self.here()
        self.patch(exit_at, end)
        for b in breaks:
            self.patch(b, end)

    def stmt_Match(self, s: ast.Match) -> None:
        subject = self.new_slot()
        self.emit((STORE, subject, self.value(s.subject)), s.subject.span)
        ends = []
        for case in s.cases:
            if any(isinstance(p, ast.Wildcard) for p in case.patterns):
                self.block(case.body)
                break
            skip = self.emit((JUMP_IF_NOT, self._case_test(subject, case.patterns), -1), case.span)
            self.block(case.body)
            ends.append(self.emit((JUMP, -1), case.span))
            self.patch(skip, self.here())
        for j in ends:
            self.patch(j, self.here())

    def _case_test(self, subject: int, patterns: tuple):
        constant = all(not isinstance(p, ast.Name) or (p.id not in self.slots and p.id not in self.names.counters)
                       for p in patterns)
        fns = tuple(self.c.expr(p, self) for p in patterns)
        if constant:
            values = tuple(f(None, []) for f in fns)
            wanted = frozenset(values) if all(_hashable(v) for v in values) else values
            return lambda rt, L: L[subject] in wanted
        return lambda rt, L: L[subject] in tuple(f(rt, L) for f in fns)

    # ---- expressions with hoisting ----
    def value(self, e: ast.Expr):
        """A function `f(rt, L)` for `e`, after emitting steps for any call in it that may pause."""
        return self.c.expr(self.lower(e), self)

    def value_src(self, e: ast.Expr) -> str:
        """`value`'s Python source (to be put together with other source, then `make`)."""
        return self.c.gen.source(self.lower(e), self, {})

    def make(self, source: str):
        return self.c.gen.make(source)

    def lower(self, e: Any) -> Any:
        if not self.c.pauses(e):
            return e
        match e:
            case ast.Call() if self.c.is_pausing_call(e):
                temp = self.new_slot()
                self.pausing_call(self.lower_parts(e), temp)
                return Temp(temp, span=e.span)
            case ast.ListComp():
                return self.lower_comprehension(e)
            case ast.BoolOp(op=op, left=left, right=right):
                temp = self.new_slot()
                self.emit((STORE, temp, self.value(left)), left.span)
                test = (lambda rt, L: L[temp]) if op == "and" else (lambda rt, L: not L[temp])
                skip = self.emit((JUMP_IF_NOT, test, -1), e.span)
                self.emit((STORE, temp, self.value(right)), right.span)
                self.patch(skip, self.here())
                return Temp(temp, span=e.span)
            case ast.IfExp(cond=cond, then=then, orelse=orelse):
                temp = self.new_slot()
                skip = self.emit((JUMP_IF_NOT, self.value(cond), -1), cond.span)
                self.emit((STORE, temp, self.value(then)), then.span)
                done = self.emit((JUMP, -1), e.span)
                self.patch(skip, self.here())
                self.emit((STORE, temp, self.value(orelse)), orelse.span)
                self.patch(done, self.here())
                return Temp(temp, span=e.span)
        changes = {}
        for field in attrs.fields(type(e)):
            v = getattr(e, field.name)
            if isinstance(v, tuple):
                changes[field.name] = tuple(self.lower(x) for x in v)
            elif attrs.has(type(v)) and field.name != "span":
                changes[field.name] = self.lower(v)
        return attrs.evolve(e, **changes)

    def lower_parts(self, e: ast.Call) -> ast.Call:
        """The call with every wait inside its arguments (and its script's owner) hoisted."""
        func = e.func
        if isinstance(func, ast.Attr):
            func = attrs.evolve(func, obj=self.lower(func.obj))
        args = tuple(self.lower(a) for a in e.args)
        kwargs = tuple(attrs.evolve(k, value=self.lower(k.value)) for k in e.kwargs)
        return attrs.evolve(e, func=func, args=args, kwargs=kwargs)

    def lower_comprehension(self, e: ast.ListComp) -> Temp:
        """`[elt for var in iter if cond]` whose elt or cond waits: a loop of steps that appends."""
        items, index, result = self.new_slot(), self.new_slot(), self.new_slot()
        self.emit((STORE, items, self.make(f"_for_list({self.value_src(e.iter)})")), e.iter.span)
        self.emit((STORE, index, _zero), e.span)
        self.emit((STORE, result, lambda rt, L: ()), e.span)
        outer = self.slots.get(e.var)
        self.slots[e.var] = var = self.new_slot()  # the variable is the comprehension's own
        head = self.emit((FOR_NEXT, var, items, index, -1), e.span)
        if e.cond is not None:
            self.emit((JUMP_IF_NOT, self.value(e.cond), head), e.cond.span)
        elt = self.value(e.elt)
        self.emit((STORE, result, lambda rt, L: (*L[result], elt(rt, L))), e.elt.span)
        self.emit((JUMP, head), e.span)
        self.patch(head, self.here())
        if outer is None:
            del self.slots[e.var]
        else:
            self.slots[e.var] = outer
        return Temp(result, span=e.span)

    def pausing_call(self, e: ast.Call, dest: int) -> None:
        """Emit the step for a call that may wait, draw chance or run a procedure. Its arguments
        are one generated function: a list for a procedure, a tuple in parameter order for a
        primitive."""
        src = self.c.gen.source
        args = [src(a, self, {}) for a in e.args]
        kw = {k.name: src(k.value, self, {}) for k in e.kwargs}
        if isinstance(e.func, ast.Attr):
            obj = src(e.func.obj, self, {})
            target = self.make(f"rt.script_target({obj}, {self.c.gen.constant(e.func.name)})")
            self.emit((CALL, target, self.make(_list_src([obj, *args])), dest), e.span)
            return
        name = e.func.id
        if name == "choose":
            self.emit((CHOOSE, self.make(self._bound(REGISTRY["choose"], args, kw)), dest), e.span)
        elif name == "perform":
            bound = self._bound(REGISTRY["perform"], args, kw)
            self.emit((CALL, self.make(f"rt.action_target({bound}[0])"), self.make(f"[{bound}[1]]"), dest), e.span)
        elif name == "put_in_play":
            bound = self._bound(REGISTRY["put_in_play"], args, kw)
            self.emit((CALL, self.make(f"rt.in_play_target({bound}[0])"), self.make(f"[{bound}[0]]"), dest), e.span)
        elif name in PAUSING_PRIMS and name not in self.names.procs:
            prim = REGISTRY[name]
            self.emit((CHANCE, prim, self.make(self._bound(prim, args, kw)), dest), e.span)
        else:
            self.emit((CALL, name, self.make(_list_src(args)), dest), e.span)

    def _bound(self, prim, args: list[str], kw: dict[str, str]) -> str:
        """The source of the primitive's arguments as a tuple in parameter order (defaults filled)."""
        parts = [args[i] if i < len(args) else kw[p.name] if p.name in kw else self.c.gen.constant(p.default)
                 for i, p in enumerate(prim.params)]
        return "(" + "".join(f"{x}, " for x in parts) + ")"


def _list_src(parts: list[str]) -> str:
    return f"[{', '.join(parts)}]"


def _zero(rt, L):
    return 0


def _hashable(v) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def _as_list(v):
    if isinstance(v, tuple):
        return v
    raise ScriptError(f"`for` needs a list, got {v!r}")


def _as_int(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    raise ScriptError(f"`repeat` needs an integer, got {v!r}")


def _arith(fn, a, b):
    if isinstance(a, bool) or isinstance(b, bool) or type(a) is not type(b) or not isinstance(a, int | tuple | str):
        raise ScriptError(f"cannot combine {brief(a)} and {brief(b)}")
    r = fn(a, b)
    # bounded operands keep every operation cheap; a list or string made counts as work
    return check_int(r) if type(r) is int else check_length(r)


class Compiler:
    """Turns a checked composition into a `Program`."""

    def __init__(self, comp, player_ids: tuple[str, ...], lazy: bool = False) -> None:
        self.comp = comp
        self.names = Names(comp)
        self.program = Program(player_ids=player_ids, seats={p: i for i, p in enumerate(player_ids)})
        self.gen = ExprSource(self.names, self.program.fns, _arith, BINOPS, lazy)
        self.gen.ns.update(_for_list=_as_list, _as_int=_as_int)
        self._pause_cache: dict[int, tuple[Any, bool]] = {}  # id(node) -> (node, pauses)

    # ---- what pauses ----
    def is_pausing_call(self, e: ast.Call) -> bool:
        if isinstance(e.func, ast.Attr):
            return e.func.name not in self.names.fn_scripts  # a script field runs as a procedure
        if not isinstance(e.func, ast.Name):
            return False
        n = e.func.id
        return n in self.names.procs or (n in PAUSING_PRIMS and n not in self.names.fns)

    def pauses(self, e: Any) -> bool:
        children = _child_fields(type(e))
        if children is None:
            return False
        # by identity, the node kept beside its answer so that its id cannot be reused (hashing a
        # node hashes its whole subtree: by value, every visit costs as much as the tree)
        known = self._pause_cache.get(id(e))
        if known is not None:
            return known[1]
        found = isinstance(e, ast.Call) and self.is_pausing_call(e)
        if not found:
            for name in children:
                v = getattr(e, name)
                if any(map(self.pauses, v)) if type(v) is tuple else self.pauses(v):
                    found = True
                    break
        self._pause_cache[id(e)] = (e, found)
        return found

    # ---- expressions ----
    def expr(self, e: Any, b: CodeBuilder):
        """A function `f(rt, L)` for an expression that cannot pause (see codegen.py)."""
        return self.gen.build(e, b)

    # ---- units ----
    def code(self, name: str, params: tuple[str, ...], body: tuple[ast.Stmt, ...], span: Span,
             prologue: ast.Expr | None = None) -> Code:
        b = CodeBuilder(self, name, params, span)
        if prologue is not None:  # `when`: return at once unless it holds
            b.emit((JUMP_IF_NOT, b.make(f"(not {b.value_src(prologue)})"), b.here() + 2), prologue.span)
            b.emit((RETURN, None), prologue.span)
        b.block(body)
        code = b.finish()
        self.program.procs[name] = code
        return code

    def body_source(self, params: tuple[str, ...], e: ast.Expr) -> str | None:
        """`e` as Python source over the parameters `_a0, _a1, ...`, or None (codegen.py)."""
        return self.gen.body_source(e, CodeBuilder(self, "<expr>", params, e.span), params)

    def closure(self, params: tuple[str, ...], e: ast.Expr):
        """`f(rt, args)`: `e` evaluated in a fresh frame holding `args` (for fn, when, cost, domains)."""
        b = CodeBuilder(self, "<expr>", params, e.span)
        f = self.expr(e, b)
        pad = [None] * (b.code.nlocals - len(params))
        if not pad:
            return f  # the argument list is the frame (a fresh list at every call)
        return lambda rt, args: f(rt, args + pad)


# ---- the whole ruleset ----
def build_program(comp, max_players: int, lazy: bool = False) -> Program:
    """The program of a checked composition. `lazy`: each step and function is compiled by
    Python at its first call (for a program built to be checked, hardly ever run; it runs the
    same, only slower)."""
    player_ids = tuple(f"player{i + 1}" for i in range(max_players))
    c = Compiler(comp, player_ids, lazy)
    p = c.program
    _static_data(comp, p)
    triggers: dict[str, list[str]] = {}
    for i, d in enumerate(comp.triggers):
        t = d.value
        triggers.setdefault(t.event, []).append(f"on:{t.event}#{i}")
    p.triggers = {k: tuple(v) for k, v in triggers.items()}
    for i, d in enumerate(comp.triggers):
        t = d.value
        c.code(f"on:{t.event}#{i}", t.params, t.body, t.span, t.when)
    _compile_fns(c, comp)
    _compile_procs(c, comp)
    _compile_actions(c, comp)
    for name, d in comp.phases.items():
        c.code(name, (), _phase_body(comp, name, d), d.span)
    p.entry = comp.entry.value if comp.entry else "main"
    p.has_pay_cost = "pay_cost" in comp.procs
    p.grows = c.names.lays_links
    if p.grows:  # graph reads see the links laid in play (primitives.py GROWN)
        c.gen.ns.update({f"_p_{name}": fn for name, fn in GROWN.items()})
    add_straight(p, c.gen)
    for code in p.procs.values():
        add_blocks(code, c.gen)
    p.compiled = c.gen.used
    p.ns = c.gen.ns
    p.idents = {ident: name for names in (c.gen.fn_idents, c.gen.proc_idents) for name, ident in names.items()}
    return p



# Events the engine emits around every step of every phase when a module declares them
STEP_EVENTS = ("step_starts", "step_ends")


def _phase_body(comp, phase: str, d) -> tuple:
    """Each step is a call; `emit step_starts(phase, step)` / `step_ends` around it if declared."""
    sp = d.span
    starts, ends = (e if e in comp.events else None for e in STEP_EVENTS)
    body: list = []
    for step in d.value:
        names = (ast.Str(phase, span=sp), ast.Str(step, span=sp))
        if starts:
            body.append(ast.Emit(starts, names, span=sp))
        body.append(ast.ExprStmt(ast.Call(ast.Name(step, span=sp), span=sp), span=sp))
        if ends:
            body.append(ast.Emit(ends, names, span=sp))
    return tuple(body)


def _static_data(comp, p: Program) -> None:
    p.dice = {n: tuple(d.value) for n, d in comp.dice.items()}
    for name, d in comp.kinds.items():
        k = d.value
        p.kind_defaults[name] = {prop: k.defaults.get(prop) for prop in k.props}
        if k.back is not None:
            p.kind_backs[name] = k.back
        if k.in_play is not None:
            p.kind_in_play[name] = k.in_play
    p.kind_defaults.setdefault("player", {})
    for name, d in comp.zones.items():  # a zone `per: K` exists once for every entity of kind K
        if d.value.per is not None:
            p.kind_zones[d.value.per] = (*p.kind_zones.get(d.value.per, ()), name)
    for name, d in comp.zones.items():
        p.zone_visibility[name] = d.value.visibility
        p.zone_per[name] = d.value.per
    for name, d in comp.counters.items():
        c = d.value
        p.counters[name] = (c.min, c.max, c.start, c.clamp)
    p.graph = _graph(comp)
    p.link_kinds = frozenset(name for name, d in comp.kinds.items() if d.value.link)
    for cid, c in comp.components.items():
        spec = c.spec
        p.templates[cid] = (spec.kind, dict(spec.props), spec.face_up)
        for i in range(spec.count):
            p.initial.append((cid if spec.count == 1 else f"{cid}#{i + 1}", cid, spec.zone))



def _graph(comp) -> Graph:
    g = Graph()
    touching: dict[str, list[tuple[Any, str]]] = {}
    for cid, c in comp.components.items():
        spec = c.spec
        kind = comp.kinds.get(spec.kind)
        if kind is None or not kind.value.link or spec.ends is None:
            continue
        a, z = spec.ends
        g.ends[cid] = (a, z)
        labels = spec.labels or (None, None)
        for node, label in ((a, labels[0]), (z, labels[1])):
            touching.setdefault(node, []).append((g.add_end(cid, node, label), cid))
    for node, items in touching.items():
        items.sort(key=lambda x: (*label_key(x[0]), x[1]))
        g.put(node, [cid for _, cid in items])
    return g


def _compile_fns(c: Compiler, comp) -> None:
    by_target: dict[str, list] = {}
    for d in comp.modifiers:
        by_target.setdefault(d.value.name, []).append(d.value)
    static = _static_fns(c.names, {name: (d.value, by_target.get(name, [])) for name, d in comp.fns.items()})
    for name, d in comp.fns.items():
        c.program.fns[name] = _fn(c, d.value, by_target.get(name, []), name in static)
    if "can_pay" in comp.fns:
        c.program.can_pay = c.program.fns["can_pay"]




# Primitives whose result depends on their arguments, the rules and the game's fixed setup (players,
# options) alone, never on where things are or on props; and the entity fields that never change.
STATIC_PRIMS = frozenset({
    "owner", "has_script", "neighbors", "links", "link_at", "other_end", "ends", "label_at", "rings", "count", "sum",
    "min", "max", "abs", "clamp", "any", "all", "unique", "first", "last", "sort", "reverse", "without", "flatten",
    "index_of", "range", "sort_by", "min_by", "max_by", "text", "pair", "players", "player_count", "seat",
    "player_at", "next_player", "option"})
STATIC_ATTRS = frozenset({"id", "kind", "component"})
GRAPH_READS = frozenset(GROWN)
GRAPH_CHANGES = ("connect", "disconnect")


def lays_links(comp) -> bool:
    """Whether a procedure, hook, trigger or action of the composition calls `connect` or
    `disconnect` (only those may: they are effects)."""
    tables = (comp.procs.values(), comp.triggers, comp.hooks, comp.actions.values())
    return any(_calls(d.value, GRAPH_CHANGES) for table in tables for d in table)


def _calls(e: Any, names: tuple[str, ...]) -> bool:
    return any(type(n) is ast.Call and type(n.func) is ast.Name and n.func.id in names for n in ast.walk(e))


def _static_fns(names: Names, fns: dict[str, tuple[ast.FnDef, list[ast.ModifierDef]]]) -> set[str]:
    """The functions (with their modifiers) that read no changing state: their results hold for
    the whole game. Every function is assumed static until one of its reads says otherwise."""
    static = set(fns)
    changed = True
    while changed:
        changed = False
        for name in sorted(static):
            f, mods = fns[name]
            parts = [(f.params, f.expr)] + [(m.params, e) for m in mods for e in (m.when, m.expr) if e is not None]
            if not all(_reads_no_state(e, set(params), names, static) for params, e in parts):
                static.discard(name)
                changed = True
    return static


def _reads_no_state(e: Any, local: set[str], names: Names, static: set[str]) -> bool:
    match e:
        case ast.Name(id=n):
            return n in local or n not in names.counters
        case ast.Attr(obj=obj, name=n):
            return n in STATIC_ATTRS and _reads_no_state(obj, local, names, static)
        case ast.ListComp(elt=elt, var=var, iter=it, cond=cond):
            inner = local | {var}
            return (_reads_no_state(it, local, names, static) and _reads_no_state(elt, inner, names, static)
                    and (cond is None or _reads_no_state(cond, inner, names, static)))
        case ast.Call(func=ast.Name(id=n), args=args, kwargs=kwargs):
            known = n in names.owned_zones or (n in static if n in names.fns else n in names.static_prims)
            return known and all(_reads_no_state(a, local, names, static) for a in (*args, *kwargs))
        case ast.Call():
            return False  # an expression field: its entity's script, looked up at run time
    for name in _child_fields(type(e)) or ():
        v = getattr(e, name)
        for x in v if type(v) is tuple else (v,):
            if _child_fields(type(x)) is not None and not _reads_no_state(x, local, names, static):
                return False
    return True


def _fn(c: Compiler, f: ast.FnDef, modifiers: list[ast.ModifierDef], static: bool = False):
    """A function: its body, then its modifiers in order; results are memoised while the state
    stays the same (functions cannot change it), or for the whole game when it reads nothing
    that changes (`static`). It is one generated Python function `_f<i>(rt, *args)`, put in the
    expressions' namespace; the returned `f(rt, args)` calls it with a list."""
    ident = c.gen.fn_ident(f.name)
    source = _fn_source(c, ident, f, modifiers, static)
    if source is not None:
        c.gen.define(source)
    else:  # a body that needs slots of its own: the closures, called with a frame list
        call = _fn_closure(c, f, modifiers, static)
        c.gen.ns[ident] = lambda rt, *args: call(rt, list(args))
    direct = c.gen.ns[ident]
    if f.name in c.names.first_fns:
        first = _first_source(c, ident, f, static) if source is not None else None
        if first is not None:
            c.gen.define(first)
            c.gen.define(_first_source(c, ident, f, static, any_item=True))
        else:
            c.gen.ns[f"{ident}_first"] = lambda rt, *args: REGISTRY["first"].impl(rt, direct(rt, *args))
            c.gen.ns[f"{ident}_any"] = lambda rt, *args: len(direct(rt, *args)) != 0
    return lambda rt, args: direct(rt, *args)


def _fn_source(c: Compiler, ident: str, f: ast.FnDef, modifiers: list[ast.ModifierDef], static: bool) -> str | None:
    params = ", ".join(f"_a{i}" for i in range(len(f.params)))
    body = c.body_source(f.params, f.expr)
    if body is None or any(len(m.params) != len(f.params) for m in modifiers):
        return None
    result = [f"    _r = {body}"]
    for m in modifiers:
        value = c.body_source(m.params, m.expr)
        when = c.body_source(m.params, m.when) if m.when is not None else "True"
        if value is None or when is None:
            return None
        update = value if m.op == "=" else c.gen.arith(m.op, "_r", value)
        result += [f"    if {when}:", f"        _r = {update}"]
    head = [f"def {ident}(rt{', ' if params else ''}{params}):",
            f"    _key = ({c.gen.constant(f.name)}, {params}{',' if len(f.params) == 1 else ''})"]
    charge = ["    _work[0] += 10  # a call that is not remembered is work (ten units: it also fills the memo)",
              "    if _work[0] > _limits.MAX_WORK:", "        _charge(0)"]
    # a memo is read with get(_key, _MISS): a miss, one call in four or five, raises nothing
    if static:
        lines = [*head, "    _m = rt.static_memo", "    try:", "        _r = _m.get(_key, _MISS)",
                 "    except TypeError:  # an unhashable argument: no memo", "        _key = _r = None", "    else:",
                 "        if _r is not _MISS:", "            return _r",
                 *charge, *result, "    if _key is not None:", "        _m[_key] = _r", "    return _r", ""]
        return "\n".join(lines)
    # remembered until something it read changes (vm.Runtime.memo); a caller being computed notes it
    lines = [*head, "    try:", "        _r = rt.memo.get(_key, _MISS)",
             "    except TypeError:  # an unhashable argument: no memo, its reads are the caller's",
             *("    " + x for x in charge), *("    " + x for x in result), "        return _r",
             "    if _r is not _MISS:", "        if rt.reads is not None:", "            rt.reads.append(_key)",
             "        return _r",
             *charge,
             "    if rt.exposed:  # any change forgets every result: who read what is not needed (vm.Runtime)",
             *("    " + x for x in result), "        rt.memo[_key] = _r", "        return _r",
             "    _outer = rt.reads", "    rt.reads = _d = []", "    try:", *("    " + x for x in result),
             "    finally:", "        rt.reads = _outer",
             "    rt.memo[_key] = _r  # rt.remember(_key, _r, _d), in line: one call in five is a miss",
             "    _rd = rt.readers", "    for _k in _d:", "        _g = _rd.get(_k)", "        if _g is None:",
             "            _rd[_k] = {_key}", "        else:", "            _g.add(_key)",
             "    if _outer is not None:", "        _outer.append(_key)", "    return _r", ""]
    return "\n".join(lines)


def _first_source(c: Compiler, ident: str, f: ast.FnDef, static: bool, any_item: bool = False) -> str | None:
    """`first(f(...))` for a function that is one comprehension: its remembered value if there
    is one, else the comprehension's first item, without making the rest (a function reads and
    changes nothing, so only the work done differs). `any_item`: whether it has an item at all
    (`{ident}_any`, what an action's availability asks of a parameter's domain)."""
    parts = c.gen.first_parts(f.expr, CodeBuilder(c, "<expr>", f.params, f.expr.span), f.params)
    if parts is None:
        return None
    var, items, cond, elt = parts
    params = ", ".join(f"_a{i}" for i in range(len(f.params)))
    key = f"({c.gen.constant(f.name)}, {params}{',' if len(f.params) == 1 else ''})"
    hit = ["    try:", f"        _r = rt.{'static_memo' if static else 'memo'}.get({key}, _MISS)", "    except TypeError:",
           "        _r = _MISS", "    if _r is not _MISS:"]
    if not static:  # a caller being computed reads the whole result, or what is read here
        hit += ["        if rt.reads is not None:", f"            rt.reads.append({key})"]
    hit += ["        return len(_r) != 0" if any_item else "        return _r[0] if _r else None"]
    lines = [f"def {ident}_{'any' if any_item else 'first'}(rt{', ' if params else ''}{params}):", *hit,
             "    _work[0] += 10", "    if _work[0] > _limits.MAX_WORK:", "        _charge(0)",
             f"    for {var} in _as_list({items}):", f"        if {cond or 'True'}:",
             f"            return {'True' if any_item else elt}", f"    return {'False' if any_item else 'None'}", ""]
    return "\n".join(lines)


def _fn_closure(c: Compiler, f: ast.FnDef, modifiers: list[ast.ModifierDef], static: bool):
    """A function made of closures over a frame list (a body that needs more slots than its
    parameters; see `_fn` and `_fn_source`)."""
    body = c.closure(f.params, f.expr)
    mods = [(c.closure(m.params, m.when) if m.when is not None else None, c.closure(m.params, m.expr), m.op)
            for m in modifiers]
    name = f.name
    work = limits.work

    def compute(rt, args):
        work[0] += 10  # a call that is not remembered is work (ten units: it also fills the memo)
        if work[0] > limits.MAX_WORK:
            charge(0)
        result = body(rt, args)
        for when, value, op in mods:
            if when is None or when(rt, list(args)):
                result = value(rt, list(args)) if op == "=" else _arith(BINOPS[op], result, value(rt, list(args)))
        return result

    def call_static(rt, args):
        # `args` is a fresh list at every call site, and an expression never writes its slots
        memo = rt.static_memo
        key = (name, *args)
        try:
            return memo[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable argument: no memo
            key = None
        result = compute(rt, args)
        if key is not None:
            memo[key] = result
        return result

    def call(rt, args):
        key = (name, *args)
        try:
            return read(rt, key, rt.memo[key])
        except KeyError:
            pass
        except TypeError:  # an unhashable argument: no memo, its reads are the caller's
            return compute(rt, args)
        outer = rt.reads
        rt.reads = reads = []
        try:
            result = compute(rt, args)
        finally:
            rt.reads = outer
        rt.remember(key, result, reads)
        return read(rt, key, result)

    return call_static if static else call


def _compile_procs(c: Compiler, comp) -> None:
    hooks: dict[str, list[ast.HookDef]] = {}
    for d in comp.hooks:
        hooks.setdefault(d.value.target, []).append(d.value)
    for name, d in comp.procs.items():
        proc = d.value
        if name not in hooks:
            c.code(name, proc.params, proc.body, proc.span)
            continue
        c.code(f"{name}#body", proc.params, proc.body, proc.span)
        _hook_wrapper(c, proc, hooks[name])


def _hook_wrapper(c: Compiler, proc: ast.ProcDef, hooks: list[ast.HookDef]) -> None:
    """`name` runs its before hooks, then the last `instead of` whose `when` holds; when none
    holds, it runs its body and then its after hooks."""
    b = CodeBuilder(c, proc.name, proc.params, proc.span)
    args = c.gen.make(_list_src([f"L[{i}]" for i in range(len(proc.params))]))
    result = b.new_slot()
    for i, h in enumerate(hooks):
        if h.kind == "before":
            c.code(f"{proc.name}@before#{i}", h.params, h.body, h.span, h.when)
            b.emit((CALL, f"{proc.name}@before#{i}", args, -1), h.span)
    ends = []
    for i, h in reversed(list(enumerate(hooks))):
        if h.kind != "instead":
            continue
        handler = f"{proc.name}@instead#{i}"
        c.code(handler, h.params, h.body, h.span).replaces = True
        skip = b.emit((JUMP_IF_NOT, _applies(c, h, handler), -1), h.span)
        b.emit((CALL, handler, args, result), h.span)
        ends.append(b.emit((JUMP, -1), h.span))
        b.patch(skip, b.here())
    b.emit((CALL, f"{proc.name}#body", args, result), proc.span)
    for i, h in enumerate(hooks):
        if h.kind == "after":
            c.code(f"{proc.name}@after#{i}", h.params, h.body, h.span, h.when)
            b.emit((CALL, f"{proc.name}@after#{i}", args, -1), h.span)
    for j in ends:  # a replaced call did not happen: its after hooks do not run
        b.patch(j, b.here())
    b.emit((RETURN, lambda rt, L: L[result]), proc.span)
    c.program.procs[proc.name] = b.finish()


def _applies(c: Compiler, h: ast.HookDef, handler: str) -> Closure:
    """Whether the `instead of` replaces this call: its `when` holds and its body is not running
    already (a replacement applies once to one moment, DESIGN.md §4b: the moments its own body
    causes go to the next handler or to the procedure's body)."""
    if h.when is None:
        return lambda rt, L: not replacing(rt, handler)
    when, n = c.closure(h.params, h.when), len(h.params)
    return lambda rt, L: when(rt, L[:n]) and not replacing(rt, handler)


def _compile_actions(c: Compiler, comp) -> None:
    has_pay = "pay_cost" in comp.procs
    for name, d in comp.actions.items():
        a = d.value
        prologue: list[ast.Stmt] = []
        for p in a.params:
            call = ast.Call(ast.Name("choose", span=p.span),
                            (ast.Name(a.actor, span=p.span), p.domain),
                            (ast.Kwarg("prompt", ast.Str(f"{name}.{p.name}"), span=p.span),), span=p.span)
            prologue.append(ast.Let(p.name, call, span=p.span))
        if has_pay:
            cost = a.cost if a.cost is not None else ast.Num(0, span=a.span)
            prologue.append(ast.ExprStmt(ast.Call(ast.Name("pay_cost", span=a.span),
                                                  (ast.Name(a.actor, span=a.span), cost), span=a.span), span=a.span))
        c.code(f"action:{name}", (a.actor,), (*prologue, *a.body), a.span)
    c.program.available_actions, allowed = _all_available(c, comp)
    for name, d in comp.actions.items():
        cost = c.closure((d.value.actor,), d.value.cost) if d.value.cost is not None else None
        available = _availability(c, d.value)
        info = ActionInfo(name, available, cost, allowed.get(name) or _allowed_closure(available, cost),
                          _reasons(c, comp, d.value))
        c.program.actions.append(info)
        c.program.action_index[name] = info


def _allowed_closure(available: Callable, cost: Closure | None) -> Callable:
    """An action's test as `actions()` applies it, from its closures (`_all_available` writes the
    same as source where it can)."""
    def allowed(rt, actor) -> bool:
        if not available(rt, actor):
            return False
        can_pay = rt.program.can_pay
        return can_pay is None or bool(can_pay(rt, [actor, cost(rt, [actor]) if cost else 0]))

    return allowed


def _all_available(c: Compiler, comp) -> tuple[Callable | None, dict[str, Callable]]:
    """One generated function `f(rt, actor)` giving the names of the actions the actor may take
    now (what `_availability` and `can_pay` say, in declaration order), and each action's own test
    of the same source (`available(action, actor)`); (None, {}) when some guard needs slots of
    its own."""
    can_pay = c.gen.fn_ident("can_pay") if "can_pay" in comp.fns else None
    lines = ["def _available_actions(rt, _a0):", "    _out = []"]
    tests: dict[str, str] = {}
    for name, d in comp.actions.items():
        a = d.value
        later = {p.name for p in a.params}
        parts = [c.body_source((a.actor,), a.when)] if a.when is not None else []
        parts += [_any_source(c, (a.actor,), p.domain) for p in a.params if not (_names_in(p.domain) & later)]
        if can_pay is not None:
            cost = c.body_source((a.actor,), a.cost) if a.cost is not None else "0"
            parts.append(f"{can_pay}(rt, _a0, {cost})" if cost is not None else None)
        if None in parts:
            return None, {}
        tests[name] = test = " and ".join(f"({x})" for x in parts) or "True"
        lines += [f"    if {test}:", f"        _out.append({c.gen.constant(name)})"]
    lines += ["    return tuple(_out)", ""]
    allowed = {}
    for i, (name, test) in enumerate(tests.items()):
        c.gen.define(f"def _allowed{i}(rt, _a0):\n    if {test}:\n        return True\n    return False\n")
        allowed[name] = c.gen.ns.pop(f"_allowed{i}")
    c.gen.define("\n".join(lines))
    return c.gen.ns.pop("_available_actions"), allowed


def _any_source(c: Compiler, params: tuple[str, ...], domain: ast.Expr) -> str | None:
    """Whether a parameter's domain has an item: a function that is one comprehension stops at its
    first item (`_first_source`); any other domain is made whole."""
    if (isinstance(domain, ast.Call) and isinstance(domain.func, ast.Name) and not domain.kwargs
            and domain.func.id in c.names.first_fns):
        args = [c.body_source(params, x) for x in domain.args]
        if None not in args:
            return f"{c.gen.fn_ident(domain.func.id)}_any(rt{''.join(', ' + x for x in args)})"
    return c.body_source(params, domain)


def _availability(c: Compiler, a: ast.ActionDef):
    """`when` holds, and every parameter domain that depends on the actor alone is not empty.

    A domain that names an earlier parameter can only be known once that one is chosen."""
    when = c.closure((a.actor,), a.when) if a.when is not None else None
    later = {p.name for p in a.params}
    domains = [c.closure((a.actor,), p.domain) for p in a.params if not (_names_in(p.domain) & later)]

    def available(rt, actor) -> bool:
        args = [actor]
        if when is not None and not when(rt, args):
            return False
        for d in domains:
            if not d(rt, args):
                return False
        return True

    return available


def _reasons(c: Compiler, comp, a: ast.ActionDef) -> tuple[tuple[str | None, str | None, Any], ...]:
    """`_availability`'s parts one by one: each conjunct of `when` (parameter None), then each
    parameter's domain known before any is chosen, with the key a catalog names its failure by."""
    later = {p.name for p in a.params}
    tests = [(None, part) for part in conjuncts(a.when)]
    tests += [(p.name, p.domain) for p in a.params if not (_names_in(p.domain) & later)]
    return tuple((param, reason_key(e, comp.fns), c.closure((a.actor,), e)) for param, e in tests)


def why_keys(a: ast.ActionDef, fns) -> list[str | None]:
    """The catalog keys (`why.KEY` messages) of every reason `_reasons` may give for `a`."""
    return [reason_key(e, fns) for e in (*conjuncts(a.when), *(p.domain for p in a.params))]


def conjuncts(e: ast.Expr | None) -> list[ast.Expr]:
    """The parts of `a and b and c`, in order (none for no expression)."""
    if e is None:
        return []
    if isinstance(e, ast.BoolOp) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def reason_key(e: ast.Expr, fns) -> str | None:
    """What is true when the test `e` fails, named by the first function of the rules it calls:
    `f` when `e` is `not ...f(...)...` (it fails because f holds), else `not_f` (`in_combat(p)`
    fails: not in combat; `count(targets_of(p)) > 0` fails: no targets). None: it calls none."""
    negated = isinstance(e, ast.Not)
    inner = e.operand if negated else e
    name = next((x.func.id for x in ast.walk(inner) if isinstance(x, ast.Call) and isinstance(x.func, ast.Name)
                 and x.func.id in fns), None)
    if name is None:
        return None
    return name if negated else f"not_{name}"


def _names_in(e: Any) -> set[str]:
    if isinstance(e, ast.Name):
        return {e.id}
    found: set[str] = set()
    if attrs.has(type(e)):
        for field in attrs.fields(type(e)):
            v = getattr(e, field.name)
            for x in v if isinstance(v, tuple) else (v,):
                found |= _names_in(x)
    return found

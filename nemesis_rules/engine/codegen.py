"""Expressions to Python source, compiled once at load into `lambda rt, L: ...` functions.

One Python expression per DSL expression runs several times faster than a tree of closures (one
call per node). The semantics are the closures' were: values are None, bool, int, str and tuples;
arithmetic goes through `_arith` (integers, or lists/strings for `+`); comparisons and `and`/`or`
are Python's; a wrong type raises, and the interpreter turns that into a located RulesError.
Names: `L[i]` is a local slot, `rt` the runtime; helpers live in one namespace per program.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from types import CodeType
from typing import Any

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import brief
from nemesis_rules.engine import limits, vm
from nemesis_rules.engine.limits import MAX_INT, charge
from nemesis_rules.engine.primitives import (
    CHANGING_FIELDS,
    ENTITY_ATTR_INDEX,
    REGISTRY,
    ScriptError,
    attr,
    counter,
    fixed_attr,
)
from nemesis_rules.engine.straight import GameEnded, Suspend

Closure = Callable[[Any, list], Any]
_MISS = object()  # what a memo's get() gives for a result not remembered

# Python's compile() of each expression's source, shared by every program in this process; the
# lint's cache (ruleset/parse_cache.py `compiled`) keeps a module's entries on disk.
COMPILED: dict[str, CodeType] = {}
INT_FAST = "+-*"  # operators with an integer fast path (`_int43` for `+` ...)


def _index(xs, i):
    if not isinstance(xs, tuple) or not isinstance(i, int) or isinstance(i, bool) or not -len(xs) <= i < len(xs):
        raise ScriptError(f"cannot index {xs!r} with {i!r}")
    return xs[i]


def _item(xs, i):
    """`xs[i]` for a literal index i >= 0 (pairs, fixed positions): `_index` without its checks
    when the list is long enough."""
    if type(xs) is tuple and i < len(xs):
        return xs[i]
    return _index(xs, i)


def _as_list(v):
    """A comprehension's list; its items count as work (nested comprehensions multiply)."""
    if isinstance(v, tuple):
        if len(v) > 64:
            charge(len(v))
        return v
    raise ScriptError(f"expected a list, got {brief(v)}")


# `count(f(...)) OP N` that only asks whether f's list has an item: True for "it has", False for "it
# is empty" (codegen `src_Compare`)
_NONEMPTY_TESTS = {(">", 0): True, ("!=", 0): True, (">=", 1): True, ("==", 0): False, ("<", 1): False,
                   ("<=", 0): False}


class ExprSource:
    """Writes the Python source of expressions and builds their functions."""

    def __init__(self, names, fns: dict, arith: Callable, binops: dict, lazy: bool = False) -> None:
        self.names = names
        # True: each step's and function's source goes through Python's compiler only when it is
        # first called (a program built to be checked, `nemesis-lint` without its cache, runs
        # almost none of it; the compiler is a third of such a check)
        self.lazy = lazy
        self.ns: dict[str, Any] = {"_arith": arith, "_index": _index, "_item": _item, "_as_list": _as_list, "_F": fns,
                                   "_MISS": _MISS, "_GameEnded": GameEnded, "_work": limits.work, "_limits": limits,
                                   "_attr": attr, "_fixed_attr": fixed_attr, "_counter": counter, "_charge": charge,
                                   # what procedures run as functions use (straight.py)
                                   "_Suspend": Suspend, "_choose": vm.choose, "_chance": vm.chance,
                                   "_WAIT": vm.WAIT, "_emit": vm.emit, "_call": vm.call_by_value,
                                   "_too_deep": vm.too_deep, "_MAX_DEPTH": vm.MAX_DEPTH,
                                   "__builtins__": {"tuple": tuple, "str": str, "KeyError": KeyError, "TypeError": TypeError,
                                                   "len": len, "BaseException": BaseException,
                                                   "type": type, "int": int, "hasattr": hasattr}}
        for op, fn in binops.items():
            self.ns[f"_op{ord(op)}"] = fn
        for op in INT_FAST:  # two integers in range, the commonest case, without `_arith`'s checks
            exec(f"def _int{ord(op)}(a, b):\n    if type(a) is int and type(b) is int:\n        r = a {op} b\n"  # noqa: S102
                 f"        if -{MAX_INT} <= r <= {MAX_INT}:\n            return r\n"
                 f"    return _arith(_op{ord(op)}, a, b)\n", self.ns)
        self._ids = itertools.count()
        self.used: dict[str, CodeType] = {}  # the sources this program compiled (for the disk cache)
        # A module function is called as a Python function of positional arguments, `_f<i>(rt, a, b)`
        # (compile.py defines it), with no argument list made at the call site.
        self.fn_idents: dict[str, str] = {}
        self.proc_idents: dict[str, str] = {}  # procedure -> its function's name (straight.py)
        self.made: dict[Closure, str] = {}
        self.slot_names: tuple[str, ...] | None = None  # set while writing a function's own body
        for name, prim in REGISTRY.items():
            self.ns[f"_p_{name}"] = prim.impl

    def build(self, e: Any, b) -> Closure:
        return self.make(self.source(e, b, {}))

    def make(self, source: str) -> Closure:
        """`lambda rt, L: <source>` (the source of one or more expressions, written by this class)."""
        text = f"lambda rt, L: {source}"
        if self.lazy:
            fn = self._at_first_call(lambda: eval(self._code(text, "eval"), self.ns))  # noqa: S307 (our own source)
        else:
            fn = eval(self._code(text, "eval"), self.ns)  # noqa: S307 (our own source)
        self.made[fn] = source  # a step's source, for its block (blocks.py)
        return fn

    def step_source(self, fn: Closure) -> str:
        """A step's function as source over `rt` and `L`: its own expression inlined when this class
        wrote it, else a call (blocks.py, straight.py)."""
        source = self.made.get(fn)
        return f"({source})" if source is not None else f"{self.constant(fn)}(rt, L)"

    def _code(self, source: str, mode: str) -> CodeType:
        code = COMPILED.get(source)
        if code is None:
            code = COMPILED[source] = compile(source, f"<nemesis {'expression' if mode == 'eval' else 'function'}>",
                                              mode)
        self.used[source] = code
        return code

    def define(self, source: str) -> None:
        """Run the source of a `def` (a module function's) in the program's namespace."""
        if self.lazy:
            name = source[len("def "):source.index("(")]

            def real():
                exec(self._code(source, "exec"), self.ns)  # noqa: S102 (our own source)
                return self.ns[name]
            self.ns[name] = self._at_first_call(real)
            return
        exec(self._code(source, "exec"), self.ns)  # noqa: S102 (our own source)

    @staticmethod
    def _at_first_call(build: Callable[[], Callable]) -> Callable:
        """A function that builds the real one (`build()`) at its first call, then calls it."""
        real = None

        def at_first_call(*args):
            nonlocal real
            if real is None:
                real = build()
            return real(*args)
        return at_first_call

    def fn_ident(self, name: str) -> str:
        """The Python name the module function `name` is called by."""
        ident = self.fn_idents.get(name)
        if ident is None:
            ident = self.fn_idents[name] = f"_f{len(self.fn_idents)}"
        return ident

    def body_source(self, e: Any, b, params: tuple[str, ...]) -> str | None:
        """`e` as source over the parameters `_a0, _a1, ...` (no frame list), or None when it needs
        more slots than its parameters."""
        self.slot_names = tuple(f"_a{i}" for i in range(len(params)))
        try:
            source = self.source(e, b, {})
        except IndexError:
            return None
        finally:
            self.slot_names = None
        return source if b.code.nlocals == len(params) else None

    def first_parts(self, e: ast.ListComp, b, params: tuple[str, ...]) -> tuple[str, str, str | None, str] | None:
        """A comprehension over the parameters `_a0, ...` as (variable, items, condition, item)
        sources, or None (see `body_source`)."""
        self.slot_names = tuple(f"_a{i}" for i in range(len(params)))
        try:
            items = self.source(e.iter, b, {})
            var = f"_v{next(self._ids)}"
            inner = {e.var: var}
            cond = self.source(e.cond, b, inner) if e.cond is not None else None
            elt = self.source(e.elt, b, inner)
        except IndexError:
            return None
        finally:
            self.slot_names = None
        return (var, items, cond, elt) if b.code.nlocals == len(params) else None

    def slot(self, i: int) -> str:
        names = self.slot_names
        return f"L[{i}]" if names is None else names[i]

    def constant(self, value: Any) -> str:
        if value is None or isinstance(value, bool | int):
            return repr(value)
        name = f"_k{next(self._ids)}"
        self.ns[name] = value
        return name

    # ---- one method per node kind; `comp` maps comprehension variables to Python names ----
    def source(self, e: Any, b, comp: dict[str, str]) -> str:
        return getattr(self, f"src_{type(e).__name__}")(e, b, comp)

    def src_Temp(self, e, b, comp) -> str:
        return self.slot(e.slot)

    def src_Num(self, e, b, comp) -> str:
        return self.constant(e.value)

    src_Str = src_Bool = src_Num

    def src_NoneLit(self, e, b, comp) -> str:
        return "None"

    def src_Name(self, e: ast.Name, b, comp) -> str:
        n = e.id
        if n in comp:
            return comp[n]
        if n in b.slots:
            return self.slot(b.slots[n])
        if n in self.names.counters:
            return f"_counter(rt, {self.constant(n)})"
        return self.constant(n)  # a declared name evaluates to itself

    def src_Attr(self, e: ast.Attr, b, comp) -> str:
        obj = self.source(e.obj, b, comp)
        if e.name == "id":
            return obj
        if e.name in ENTITY_ATTR_INDEX:
            index = ENTITY_ATTR_INDEX[e.name]
            return f"{'_attr' if index in CHANGING_FIELDS else '_fixed_attr'}(rt, {obj}, {index})"
        return f"rt.get_attr({obj}, {self.constant(e.name)})"

    def src_Index(self, e: ast.Index, b, comp) -> str:
        obj = self.source(e.obj, b, comp)
        if type(e.index) is ast.Num and type(e.index.value) is int and e.index.value >= 0:
            return f"_item({obj}, {e.index.value})"
        return f"_index({obj}, {self.source(e.index, b, comp)})"

    def src_Call(self, e: ast.Call, b, comp) -> str:
        args = [self.source(a, b, comp) for a in e.args]
        if isinstance(e.func, ast.Attr):  # an expression field (other script calls are hoisted)
            obj = self.source(e.func.obj, b, comp)
            return f"rt.call_fn_script({obj}, {self.constant(e.func.name)}, [{', '.join(args)}])"
        n = e.func.id
        if n in self.names.owned_zones:
            return f"({self.constant(n + '@')} + str({args[0]}))"
        if n in self.names.fns:
            return f"{self.fn_ident(n)}(rt{''.join(', ' + a for a in args)})"
        inner = e.args[0] if len(e.args) == 1 else None
        if (n == "first" and not e.kwargs and isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                and inner.func.id in self.names.first_fns):
            inner_args = "".join(", " + self.source(a, b, comp) for a in inner.args)
            return f"{self.fn_ident(inner.func.id)}_first(rt{inner_args})"
        if e.kwargs:  # as a mapping: a DSL name may be a Python keyword (`class=`)
            pairs = ", ".join(f"{self.constant(k.name)}: {self.source(k.value, b, comp)}" for k in e.kwargs)
            args.append(f"**{{{pairs}}}")
        return f"_p_{n}(rt{''.join(', ' + a for a in args)})"

    def arith(self, op: str, left: str, right: str) -> str:
        """The source of `left op right` (arithmetic on sources)."""
        if op in INT_FAST:
            return f"_int{ord(op)}({left}, {right})"
        return f"_arith(_op{ord(op)}, {left}, {right})"

    def src_BinOp(self, e: ast.BinOp, b, comp) -> str:
        return self.arith(e.op, self.source(e.left, b, comp), self.source(e.right, b, comp))

    def src_Compare(self, e: ast.Compare, b, comp) -> str:
        test = _NONEMPTY_TESTS.get((e.op, e.right.value)) if type(e.right) is ast.Num else None
        if test is not None and self._is_count_of_comprehension_fn(e.left):
            inner = e.left.args[0]
            args = "".join(", " + self.source(a, b, comp) for a in inner.args)
            found = f"{self.fn_ident(inner.func.id)}_any(rt{args})"
            return found if test else f"(not {found})"
        return f"({self.source(e.left, b, comp)} {e.op} {self.source(e.right, b, comp)})"

    def _is_count_of_comprehension_fn(self, e) -> bool:
        """`count(f(...))` for a module function that is one comprehension (it has an `_any` twin
        that stops at the first item: compile.py `_first_source`)."""
        return (type(e) is ast.Call and type(e.func) is ast.Name and e.func.id == "count"
                and e.func.id not in self.names.fns and len(e.args) == 1 and not e.kwargs
                and type(e.args[0]) is ast.Call and type(e.args[0].func) is ast.Name
                and e.args[0].func.id in self.names.first_fns and not e.args[0].kwargs)

    def src_Neg(self, e: ast.Neg, b, comp) -> str:
        return self.arith("-", "0", self.source(e.operand, b, comp))

    def src_Not(self, e: ast.Not, b, comp) -> str:
        return f"(not {self.source(e.operand, b, comp)})"

    src_BoolOp = src_Compare  # `(left and right)` is written like `(left == right)`

    def src_ListLit(self, e: ast.ListLit, b, comp) -> str:
        return "(" + "".join(self.source(i, b, comp) + ", " for i in e.items) + ")"

    def src_ListComp(self, e: ast.ListComp, b, comp) -> str:
        items = self.source(e.iter, b, comp)
        var = f"_v{next(self._ids)}"
        inner = {**comp, e.var: var}
        cond = f" if {self.source(e.cond, b, inner)}" if e.cond is not None else ""
        return f"tuple([{self.source(e.elt, b, inner)} for {var} in _as_list({items}){cond}])"  # a list: no generator frames

    def src_IfExp(self, e: ast.IfExp, b, comp) -> str:
        return (f"({self.source(e.then, b, comp)} if {self.source(e.cond, b, comp)} "
                f"else {self.source(e.orelse, b, comp)})")

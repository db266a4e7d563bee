"""The script checker: names, arity and simple types, against the registry and the module's names.

It returns diagnostics and never raises. The environment (what names a module declares) is
built by the ruleset layer; this file knows only the language.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import WARNING, Diagnostic, Span, did_you_mean
from nemesis_rules.dsl.proptypes import Names, PropType, value_problem
from nemesis_rules.engine.primitives import ENTITY_ATTRS, REGISTRY, Primitive

STRING_LIKE = {"str", "entity", "zone", "die", "kind", "action"}
PAUSING_KINDS = {"chance", "decision"}


@attrs.frozen
class Callable_:
    """Something a script can call: what it is, its parameters, whether it may pause."""

    what: str  # procedure | function | phase | zone | primitive | script
    params: tuple[str, ...]
    pauses: bool
    primitive: Primitive | None = None


@attrs.define
class Environment:
    values: dict[str, str] = attrs.Factory(dict)  # name -> what it is (symbol, component, kind, ...)
    counters: set[str] = attrs.Factory(set)
    callables: dict[str, Callable_] = attrs.Factory(dict)
    events: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    props: set[str] = attrs.Factory(set)  # every prop of every kind
    scripts: dict[str, set[tuple[str, ...]]] = attrs.Factory(dict)  # script field -> its parameter lists (one a kind)
    fn_scripts: dict[str, tuple[str, ...]] = attrs.Factory(dict)  # expression fields (kinds' `functions:`)
    messages: set[str] = attrs.Factory(set)  # message keys in the English catalog
    used_messages: set[str] = attrs.Factory(set)
    called: set[str] = attrs.Factory(set)  # procedures and functions called somewhere
    used_names: set[str] = attrs.Factory(set)  # declared names that scripts mention
    options: set[str] = attrs.Factory(set)
    prop_types: dict[str, list[PropType]] = attrs.Factory(dict)  # prop -> its types (one a kind declaring it)
    names: Names = Names((), (), {})  # what prop values may name (kinds' typed props)
    bounds: dict[str, tuple[int, int]] = attrs.Factory(dict)  # counter -> its declared min and max


def static_type(e: ast.Expr, env: Environment) -> str:
    """A type when it is evident without running anything, else `any`."""
    match e:
        case ast.Num():
            return "int"
        case ast.Str():
            return "str"
        case ast.Bool() | ast.Compare() | ast.Not():
            return "bool"
        case ast.NoneLit():
            return "none"
        case ast.ListLit() | ast.ListComp():
            return "list"
        case ast.Neg():
            return "int"
        case ast.Name(id=n) if n in env.counters:
            return "int"
        case ast.Name(id=n) if n in env.values:
            return {"die": "die", "kind": "kind", "zone": "zone", "action": "action"}.get(env.values[n], "str")
        case ast.Call(func=ast.Name(id=n)) if n in REGISTRY and n not in env.callables:
            return REGISTRY[n].returns
        case ast.Call(func=ast.Name(id=n)) if env.callables.get(n, Callable_("", (), False)).what == "zone":
            return "zone"
    return "any"


def _compatible(have: str, want: str) -> bool:
    if "any" in (have, want) or have == want:
        return True
    if have == "none":
        return want in STRING_LIKE or want == "none"  # none stands for "no entity"
    return have in STRING_LIKE and want in STRING_LIKE and not (want in ("die", "kind") and have != "str")


class Checker:
    """Checks one procedure-like body at a time; `diagnostics` collects every finding."""

    def __init__(self, env: Environment) -> None:
        self.env = env
        self.diagnostics: list[Diagnostic] = []
        self.pure, self.what = False, "a function"

    def error(self, code: str, message: str, span: Span, help: str = "", severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(code, message, span, severity, help))

    # ---- entry points ----
    def check_body(self, params: Iterable[str], body: tuple[ast.Stmt, ...], pure: bool = False) -> None:
        self.pure = pure
        self._block(body, set(params), loop=False)

    def check_expr(self, params: Iterable[str], e: ast.Expr, pure: bool = True, what: str = "a function") -> None:
        """`what` names the expression in messages: "a function", "a `when` condition", ..."""
        self.pure, self.what = pure, what
        self.expr(e, set(params))

    # ---- statements ----
    def _block(self, body: tuple[ast.Stmt, ...], scope: set[str], loop: bool) -> None:
        ended = False
        for s in body:
            if ended:
                self.error("W502", "unreachable statement", s.span, "remove it, or move it before the "
                           "return/break/continue", WARNING)
                ended = False  # report once per block
            self.stmt(s, scope, loop)
            if isinstance(s, ast.Return | ast.Break | ast.Continue):
                ended = True

    def stmt(self, s: ast.Stmt, scope: set[str], loop: bool) -> None:
        match s:
            case ast.Let(name=n, value=v):
                self.expr(v, scope)
                if n in self.env.counters:
                    self.error("E500", f"`{n}` is a counter; pick another variable name", s.span,
                               "assign the counter without `let`")
                scope.add(n)  # a variable may shadow a declared name inside its procedure
            case ast.Assign(target=t, value=v):
                self.expr(v, scope)
                self._target(t, scope)
                self._assigned(t, v, scope)
            case ast.AugAssign(target=t, value=v):
                self.expr(v, scope)
                self._target(t, scope)
            case ast.Return(value=v):
                if v is not None:
                    self.expr(v, scope)
            case ast.Break() | ast.Continue():
                if not loop:
                    self.error("E505", f"`{'break' if isinstance(s, ast.Break) else 'continue'}` outside a loop",
                               s.span, "use it inside `for`, `repeat` or `while`")
            case ast.Pass():
                pass
            case ast.Emit(event=ev, args=args):
                for a in args:
                    self.expr(a, scope)
                if ev not in self.env.events:
                    self.error("E308", f"unknown event `{ev}`", s.span,
                               did_you_mean(ev, self.env.events) or f"declare it: `event {ev}(...)`")
                elif len(args) != len(self.env.events[ev]):
                    self.error("E400", f"event `{ev}` takes {len(self.env.events[ev])} arguments, "
                               f"got {len(args)}", s.span)
            case ast.ExprStmt(expr=e):
                self.expr(e, scope)
            case ast.If(branches=branches, orelse=orelse):
                for b in branches:
                    self.expr(b.cond, scope)
                    self._block(b.body, scope, loop)
                self._block(orelse, scope, loop)
            case ast.For(var=v, iter=it, body=body):
                self.expr(it, scope)
                scope.add(v)
                self._block(body, scope, True)
            case ast.Repeat(count=c, body=body):
                self.expr(c, scope)
                self._block(body, scope, True)
            case ast.While(cond=c, body=body):
                self.error("W800", "a `while` loop has no bound but the step budget", s.span,
                           "prefer `for` or `repeat n`; add `# noqa: W800` if the loop must run until a "
                           "condition", WARNING)
                self.expr(c, scope)
                self._block(body, scope, True)
            case ast.Match(subject=subj, cases=cases):
                self.expr(subj, scope)
                for c in cases:
                    for p in c.patterns:
                        if isinstance(p, ast.Name):
                            self._name(p, scope)
                    self._block(c.body, scope, loop)

    def _target(self, t: ast.Expr, scope: set[str]) -> None:
        if self.pure:
            self.error("E402", f"{self.what} cannot change the state", t.span, "use a `proc`")
        if isinstance(t, ast.Name):
            if t.id not in scope and t.id not in self.env.counters:
                hint = did_you_mean(t.id, scope | self.env.counters) or f"declare it first: `let {t.id} = ...`"
                self.error("E300", f"assignment to unknown variable `{t.id}`", t.span, hint)
        else:
            self.expr(t, scope)

    def _assigned(self, t: ast.Expr, v: ast.Expr, scope: set[str]) -> None:
        """A literal assigned to a counter fits its bounds, one assigned to a prop fits the prop's type."""
        if isinstance(t, ast.Name) and t.id in self.env.bounds and t.id not in scope:
            lo, hi = self.env.bounds[t.id]
            n = _literal(v, scope, self.env)
            if isinstance(n, int) and not isinstance(n, bool) and not lo <= n <= hi:
                self.error("E807", f"counter `{t.id}` is set to {n}, outside its bounds {lo}..{hi}", v.span,
                           "change the value, or the counter's `min`/`max` in its YAML")
        elif isinstance(t, ast.Attr) and t.name in self.env.prop_types:
            self._prop_value(t.name, self.env.prop_types[t.name], v, scope)

    def _prop_value(self, prop: str, types: list[PropType], v: ast.Expr, scope: set[str]) -> None:
        if isinstance(v, ast.Str) and all(_names_something(t) for t in types):
            known = self.env.names.declared
            hint = f"write the name without quotes: `{v.value}`" if v.value in known else \
                did_you_mean(v.value, known) or "write a declared name, without quotes"
            self.error("E404", f"prop `{prop}` holds a name, not a string: {v.value!r}", v.span, hint)
            return
        value = _literal(v, scope, self.env)
        if value is _UNKNOWN:
            return
        problems = [value_problem(t, value, self.env.names) for t in types]
        if all(problems) and (first := problems[0]) is not None:
            code = "E403" if first.code == "E202" else first.code
            self.error(code, f"prop `{prop}`: {first.message}", v.span, first.help)

    # ---- expressions ----
    def expr(self, e: ast.Expr | None, scope: set[str]) -> None:
        match e:
            case None | ast.Num() | ast.Str() | ast.Bool() | ast.NoneLit():
                pass
            case ast.Name():
                self._name(e, scope)
            case ast.Attr(obj=o, name=n):
                self.expr(o, scope)
                if n not in self.env.props and n not in ENTITY_ATTRS:
                    self.error("E306", f"unknown property `{n}`", e.span,
                               did_you_mean(n, self.env.props | set(ENTITY_ATTRS)) or "declare it in a kind's props")
            case ast.Index(obj=o, index=i):
                self.expr(o, scope)
                self.expr(i, scope)
            case ast.Call():
                self._call(e, scope)
            case ast.BinOp(left=a, right=b) | ast.BoolOp(left=a, right=b) | ast.Compare(left=a, right=b):
                self.expr(a, scope)
                self.expr(b, scope)
            case ast.Neg(operand=o) | ast.Not(operand=o):
                self.expr(o, scope)
            case ast.ListLit(items=items):
                for i in items:
                    self.expr(i, scope)
            case ast.ListComp(elt=elt, var=v, iter=it, cond=cond):
                self.expr(it, scope)
                inner = scope | {v}
                self.expr(elt, inner)
                if cond is not None:
                    self.expr(cond, inner)
            case ast.IfExp(cond=c, then=t, orelse=o):
                for x in (c, t, o):
                    self.expr(x, scope)

    def _name(self, e: ast.Name, scope: set[str]) -> None:
        n = e.id
        if n in scope or n in self.env.counters:
            return
        if n in self.env.values:
            self.env.used_names.add(n)
            return
        if n in self.env.callables or n in REGISTRY:
            self.error("E402", f"`{n}` is a procedure or function: call it with `{n}(...)`", e.span)
            return
        known = scope | set(self.env.values) | self.env.counters
        self.error("E300", f"unknown name `{n}`", e.span, did_you_mean(n, known) or
                   "declare it (a variable with `let`, or a symbol, component, zone ... in YAML)")

    def _call(self, e: ast.Call, scope: set[str]) -> None:
        for a in e.args:
            self.expr(a, scope)
        for k in e.kwargs:
            self.expr(k.value, scope)
        if isinstance(e.func, ast.Attr):
            self._script_call(e, scope)
            return
        if not isinstance(e.func, ast.Name):
            self.error("E402", "only named procedures and functions can be called", e.span)
            return
        name = e.func.id
        if name in scope:
            self.error("E402", f"`{name}` is a variable, not a procedure or function", e.func.span,
                       "only declared procedures, functions and primitives can be called")
            return
        target = self.env.callables.get(name)
        if target is None and name in REGISTRY:
            target = Callable_("primitive", (), REGISTRY[name].kind in PAUSING_KINDS, REGISTRY[name])
        if target is None:
            code = "E302" if name in scope or name in self.env.values else "E301"
            known = set(self.env.callables) | set(REGISTRY)
            self.error(code, f"unknown procedure or primitive `{name}`", e.func.span,
                       did_you_mean(name, known) or "see docs/dsl-reference.md for the primitives")
            return
        self.env.called.add(name)
        if self.pure and (target.pauses or target.what in ("procedure", "phase") or
                          (target.primitive and target.primitive.kind == "effect")):
            self.error("E402", f"{self.what} cannot call `{name}`, which changes the state or waits",
                       e.span, "use a `proc`, or compute the value with functions and primitives only"
                       if self.what == "a function" else "do it in the body, which may wait and change the state")
        if target.primitive is not None:
            self._primitive_args(e, target.primitive)
            if name == "log" and e.args:
                for key in _message_keys(e.args[0]):
                    self._message(key)
            if name == "option" and e.args and isinstance(e.args[0], ast.Str | ast.Name):
                self._option(e.args[0])
            if name == "choose":
                for k in e.kwargs:
                    if k.name == "prompt":
                        for key in _message_keys(k.value):
                            self._message(key)
            return
        for arg in e.args:  # a script's parameters are untyped: a string naming a component is a slip
            if isinstance(arg, ast.Str) and arg.value in self.env.names.kind_of:
                self._id_as_string(arg, f"{target.what} `{name}` is given a string")
        if e.kwargs:
            self.error("E400", f"`{name}` takes no keyword arguments", e.kwargs[0].span)
        if len(e.args) != len(target.params):
            self.error("E400", f"{target.what} `{name}` takes {len(target.params)} arguments "
                       f"({', '.join(target.params)}), got {len(e.args)}", e.span)

    def _option(self, arg: ast.Str | ast.Name) -> None:
        name = arg.value if isinstance(arg, ast.Str) else arg.id
        options = self.env.options
        if name not in options:
            self.error("E309", f"unknown option `{name}`", arg.span,
                       did_you_mean(name, options) or "declare it under `options:` in module.yaml")

    def _message(self, key: ast.Str) -> None:
        self.env.used_messages.add(key.value)
        if self.env.messages and key.value not in self.env.messages:
            self.error("E307", f"unknown message key `{key.value}`", key.span,
                       did_you_mean(key.value, self.env.messages) or "add it under `messages:` in i18n/en.yaml")

    def _script_call(self, e: ast.Call, scope: set[str]) -> None:
        attr = e.func
        assert isinstance(attr, ast.Attr)
        self.expr(attr.obj, scope)
        if attr.name in self.env.fn_scripts:  # an expression field: a function, callable anywhere
            params = self.env.fn_scripts[attr.name]
            if e.kwargs or len(e.args) != len(params):
                self.error("E400", f"`{attr.name}` takes {len(params)} arguments "
                           f"({', '.join(params)}), got {len(e.args)}", e.span)
            return
        shapes = self.env.scripts.get(attr.name)
        if shapes is None:
            self.error("E302", f"unknown script field `{attr.name}`", attr.span,
                       did_you_mean(attr.name, self.env.scripts) or "declare it under a kind's `scripts:`")
            return
        if self.pure:
            self.error("E402", f"{self.what} cannot run the script `{attr.name}`", e.span, "use a `proc`")
        if e.kwargs or all(len(e.args) != len(params) for params in shapes):
            takes = " or ".join(f"{len(p)} ({', '.join(p)})" for p in sorted(shapes))
            self.error("E400", f"script `{attr.name}` takes {takes} arguments, got {len(e.args)}", e.span,
                       "kinds that declare it: see their `scripts:`" if len(shapes) > 1 else None)

    def _primitive_args(self, e: ast.Call, prim: Primitive) -> None:
        params = prim.params
        if len(e.args) > len(params):
            self.error("E400", f"`{prim.name}` takes at most {len(params)} arguments, got {len(e.args)}",
                       e.span, f"signature: {prim.signature()}")
            return
        given = {p.name for p in params[: len(e.args)]}
        names = {p.name for p in params}
        for k in e.kwargs:
            if k.name in given:
                self.error("E400", f"`{prim.name}` got `{k.name}` twice", k.span)
            elif k.name not in names and not prim.varkw:
                self.error("E400", f"`{prim.name}` has no parameter `{k.name}`", k.span,
                           did_you_mean(k.name, names) or f"signature: {prim.signature()}")
            given.add(k.name)
        missing = [p.name for p in params if p.required and p.name not in given]
        if missing:
            self.error("E400", f"`{prim.name}` is missing {', '.join(missing)}", e.span,
                       f"signature: {prim.signature()}")
        by_name = {p.name: p for p in params}
        pairs = list(zip(params, e.args, strict=False)) + [
            (by_name[k.name], k.value) for k in e.kwargs if k.name in by_name]
        for p, arg in pairs:
            self._arg_type(prim, p.name, p.type, arg)

    def _id_as_string(self, arg: ast.Str, what: str) -> None:
        ids = self.env.names.kind_of
        hint = f"write the id without quotes: `{arg.value}`" if arg.value in ids else \
            did_you_mean(arg.value, ids) or "write a component's id, without quotes"
        self.error("E404", f"{what}, {arg.value!r}, where an id is expected", arg.span, hint)

    def _arg_type(self, prim: Primitive, pname: str, want: str, arg: ast.Expr) -> None:
        if want == "entity" and isinstance(arg, ast.Str):
            self._id_as_string(arg, f"`{prim.name}` wants an entity for `{pname}`")
            return
        have = static_type(arg, self.env)
        if not _compatible(have, want):
            self.error("E401", f"`{prim.name}` wants {want} for `{pname}`, got {have}", arg.span,
                       f"signature: {prim.signature()}")
        elif want in ("die", "kind", "action") and isinstance(arg, ast.Name) and arg.id in self.env.values:
            if self.env.values[arg.id] != want:
                self.error("E401", f"`{arg.id}` is a {self.env.values[arg.id]}, not a {want}", arg.span,
                           f"signature: {prim.signature()}")


_UNKNOWN = object()  # a value known only when the game runs


def _message_keys(e: ast.Expr) -> list[ast.Str]:
    """The message keys an argument may name: a string, or each string branch of `a if c else b`."""
    match e:
        case ast.Str():
            return [e]
        case ast.IfExp(then=then, orelse=orelse):
            return _message_keys(then) + _message_keys(orelse)
    return []


def _literal(e: ast.Expr, scope: set[str], env: Environment) -> object:
    """The value of a literal as a record would write it (a declared name as its text, a list as a
    tuple), or _UNKNOWN."""
    match e:
        case ast.Num(value=n) | ast.Bool(value=n) | ast.Str(value=n):
            return n
        case ast.NoneLit():
            return None
        case ast.Neg(operand=ast.Num(value=n)):
            return -n
        case ast.Name(id=n) if n not in scope and n in env.values:
            return n
        case ast.ListLit(items=items):
            values = tuple(_literal(i, scope, env) for i in items)
            return _UNKNOWN if _UNKNOWN in values else values
    return _UNKNOWN


def _names_something(t: PropType) -> bool:
    """Whether a prop of this type holds declared names (symbols, ids), never free text."""
    while t.item is not None:
        t = t.item
    return t.base in ("symbol", "set", "kind", "entity")

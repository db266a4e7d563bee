"""AST back to DSL text. `parse(to_source(tree)) == tree` for every tree the parser can produce."""

from __future__ import annotations

from collections.abc import Callable

from nemesis_rules.dsl import ast

INDENT = "    "

# Binding strength: higher binds tighter (mirrors the grammar's expression rules). The describer
# (describe.py) brackets its sentences by the same levels.
IF, OR, AND, NOT, CMP, SUM, TERM, NEG, POSTFIX = range(9)
BINOP_LEVEL = {"+": SUM, "-": SUM, "*": TERM, "/": TERM, "%": TERM}


def binding_level(e: ast.Expr) -> int:
    match e:
        case ast.IfExp():
            return IF
        case ast.BoolOp(op="or"):
            return OR
        case ast.BoolOp():
            return AND
        case ast.Not():
            return NOT
        case ast.Compare():
            return CMP
        case ast.BinOp(op=op):
            return BINOP_LEVEL[op]
        case ast.Neg():
            return NEG
    return POSTFIX


def bracketed(text: str, e: ast.Expr, min_level: int) -> str:
    """`e`'s text, parenthesised unless `e` binds at least as tight as `min_level`."""
    return text if binding_level(e) >= min_level else f"({text})"


def operand_levels(e: ast.Expr) -> tuple[tuple[ast.Expr, int], ...]:
    """An operator's operands in reading order, each with the level it needs to go unbracketed."""
    match e:
        case ast.BinOp(op=op, left=left, right=right):
            return (left, BINOP_LEVEL[op]), (right, BINOP_LEVEL[op] + 1)
        case ast.BoolOp(op=op, left=left, right=right):
            lvl = OR if op == "or" else AND
            return (left, lvl), (right, lvl + 1)
        case ast.Compare(left=left, right=right):
            return (left, SUM), (right, SUM)
        case ast.Neg(operand=o):
            return ((o, NEG),)
        case ast.Not(operand=o):
            return ((o, NOT),)
        case ast.IfExp(cond=c, then=t, orelse=o):
            return (t, OR), (c, OR), (o, IF)
    return ()


def operands(e: ast.Expr, render: Callable[[ast.Expr], str]) -> list[str]:
    """An operator's operands rendered by `render`, bracketed where binding strength needs it."""
    return [bracketed(render(child), child, lvl) for child, lvl in operand_levels(e)]


def _at(e: ast.Expr, min_level: int) -> str:
    return bracketed(expr(e), e, min_level)


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _string(value: str) -> str:
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'


def expr(e: ast.Expr) -> str:
    match e:
        case ast.Num(value=v):
            return str(v)
        case ast.Str(value=v):
            return _string(v)
        case ast.Bool(value=v):
            return "true" if v else "false"
        case ast.NoneLit():
            return "none"
        case ast.Name(id=i):
            return i
        case ast.Attr(obj=o, name=n):
            return f"{_at(o, POSTFIX)}.{n}"
        case ast.Index(obj=o, index=i):
            return f"{_at(o, POSTFIX)}[{expr(i)}]"
        case ast.Call(func=f, args=args, kwargs=kwargs):
            parts = [expr(a) for a in args] + [f"{k.name}={expr(k.value)}" for k in kwargs]
            return f"{_at(f, POSTFIX)}({', '.join(parts)})"
        case ast.BinOp(op=op) | ast.BoolOp(op=op) | ast.Compare(op=op):
            left, right = operands(e, expr)
            return f"{left} {op} {right}"
        case ast.Neg():
            return "-" + operands(e, expr)[0]
        case ast.Not():
            return "not " + operands(e, expr)[0]
        case ast.ListLit(items=items):
            return "[" + ", ".join(expr(i) for i in items) + "]"
        case ast.ListComp(elt=elt, var=var, iter=it, cond=cond):
            tail = f" if {_at(cond, OR)}" if cond is not None else ""
            return f"[{expr(elt)} for {var} in {_at(it, OR)}{tail}]"
        case ast.IfExp():
            then, cond, orelse = operands(e, expr)
            return f"{then} if {cond} else {orelse}"
    raise TypeError(f"not an expression node: {e!r}")


def _pattern(p: ast.Pattern) -> str:
    return "_" if isinstance(p, ast.Wildcard) else expr(p)


def _block(stmts: tuple[ast.Stmt, ...], depth: int) -> list[str]:
    lines: list[str] = []
    for s in stmts:
        lines.extend(stmt(s, depth))
    return lines


def _header(text: str, body: tuple[ast.Stmt, ...], depth: int) -> list[str]:
    return [INDENT * depth + text + ":", *_block(body, depth + 1)]


def stmt(s: ast.Stmt, depth: int = 0) -> list[str]:
    pad = INDENT * depth
    match s:
        case ast.Let(name=n, value=v):
            return [f"{pad}let {n} = {expr(v)}"]
        case ast.Assign(target=t, value=v):
            return [f"{pad}{expr(t)} = {expr(v)}"]
        case ast.AugAssign(target=t, op=op, value=v):
            return [f"{pad}{expr(t)} {op} {expr(v)}"]
        case ast.Return(value=v):
            return [pad + ("return" if v is None else f"return {expr(v)}")]
        case ast.Pass():
            return [pad + "pass"]
        case ast.Break():
            return [pad + "break"]
        case ast.Continue():
            return [pad + "continue"]
        case ast.Emit(event=ev, args=args):
            return [f"{pad}emit {ev}({', '.join(expr(a) for a in args)})"]
        case ast.ExprStmt(expr=e):
            return [pad + expr(e)]
        case ast.If(branches=branches, orelse=orelse):
            lines: list[str] = []
            for i, b in enumerate(branches):
                lines += _header(f"{'if' if i == 0 else 'elif'} {expr(b.cond)}", b.body, depth)
            if orelse:
                lines += _header("else", orelse, depth)
            return lines
        case ast.For(var=v, iter=it, body=body):
            return _header(f"for {v} in {expr(it)}", body, depth)
        case ast.Repeat(count=c, body=body):
            return _header(f"repeat {expr(c)}", body, depth)
        case ast.While(cond=c, body=body):
            return _header(f"while {expr(c)}", body, depth)
        case ast.Match(subject=subj, cases=cases):
            lines = [f"{pad}match {expr(subj)}:"]
            for c in cases:
                pats = ", ".join(_pattern(p) for p in c.patterns)
                lines += _header(f"case {pats}", c.body, depth + 1)
            return lines
    raise TypeError(f"not a statement node: {s!r}")


def _sig(name: str, params: tuple[str, ...]) -> str:
    return f"{name}({', '.join(params)})"


def _when(w: ast.Expr | None) -> str:
    return "" if w is None else f" when {expr(w)}"


def decl(d: ast.Decl) -> list[str]:
    """A declaration's lines, its doc (`## ...`) first when it has one."""
    doc = getattr(d, "doc", "")
    return [f"## {doc}"] * bool(doc) + _decl(d)


def _decl(d: ast.Decl) -> list[str]:
    match d:
        case ast.ProcDef(name=n, params=p, body=b, replace=r):
            return _header(("replace proc " if r else "proc ") + _sig(n, p), b, 0)
        case ast.FnDef(name=n, params=p, expr=e):
            return [f"fn {_sig(n, p)} = {expr(e)}"]
        case ast.ModifierDef(name=n, params=p, when=w, op=op, expr=e):
            return [f"modifier {_sig(n, p)}{_when(w)}: {op} {expr(e)}"]
        case ast.EventDef(name=n, params=p):
            return [f"event {_sig(n, p)}"]
        case ast.TriggerDef(event=ev, params=p, when=w, body=b):
            return _header(f"on {_sig(ev, p)}{_when(w)}", b, 0)
        case ast.HookDef(kind=k, target=t, params=p, when=w, body=b):
            kw = "instead of" if k == "instead" else k
            return _header(f"{kw} {_sig(t, p)}{_when(w)}", b, 0)
        case ast.ActionDef(name=n, actor=a, params=ps, cost=c, when=w, body=b):
            params = ", ".join([a] + [f"{p.name} in {expr(p.domain)}" for p in ps])
            cost = "" if c is None else f" cost {expr(c)}"
            return _header(f"action {n}({params}){cost}{_when(w)}", b, 0)
        case ast.PhaseDef(name=n, steps=steps):
            return [f"phase {n}:"] + [f"{INDENT}step {s}" for s in steps]
        case ast.PhaseExtend(name=n, changes=changes):
            return [f"extend phase {n}:"] + [INDENT + _change(c) for c in changes]
    raise TypeError(f"not a declaration node: {d!r}")


def _change(c: ast.StepChange) -> str:
    if c.op == "remove":
        return f"remove step {c.step}"
    if c.op == "replace":
        return f"replace step {c.step} with {c.anchor}"
    return f"step {c.step} {c.op} {c.anchor}"


def to_source(tree: ast.Module | ast.Body) -> str:
    """The tree as DSL text (a module's declarations separated by blank lines)."""
    if isinstance(tree, ast.Body):
        return "\n".join(_block(tree.stmts, 0)) + "\n"
    return "\n\n".join("\n".join(decl(d)) for d in tree.decls) + "\n"

"""AST back to DSL text. `parse(to_source(tree)) == tree` for every tree the parser can produce."""

from __future__ import annotations

from nemesis_rules.dsl import ast

INDENT = "    "

# Binding strength: higher binds tighter (mirrors the grammar's expression rules).
_IF, _OR, _AND, _NOT, _CMP, _SUM, _TERM, _NEG, _POSTFIX = range(9)
_BINOP_LEVEL = {"+": _SUM, "-": _SUM, "*": _TERM, "/": _TERM, "%": _TERM}


def _level(e: ast.Expr) -> int:
    match e:
        case ast.IfExp():
            return _IF
        case ast.BoolOp(op="or"):
            return _OR
        case ast.BoolOp():
            return _AND
        case ast.Not():
            return _NOT
        case ast.Compare():
            return _CMP
        case ast.BinOp(op=op):
            return _BINOP_LEVEL[op]
        case ast.Neg():
            return _NEG
    return _POSTFIX


def _at(e: ast.Expr, min_level: int) -> str:
    """`e` as text, parenthesised unless it binds at least as tight as `min_level`."""
    text = expr(e)
    return text if _level(e) >= min_level else f"({text})"


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
            return f"{_at(o, _POSTFIX)}.{n}"
        case ast.Index(obj=o, index=i):
            return f"{_at(o, _POSTFIX)}[{expr(i)}]"
        case ast.Call(func=f, args=args, kwargs=kwargs):
            parts = [expr(a) for a in args] + [f"{k.name}={expr(k.value)}" for k in kwargs]
            return f"{_at(f, _POSTFIX)}({', '.join(parts)})"
        case ast.BinOp(op=op, left=left, right=right):
            lvl = _BINOP_LEVEL[op]
            return f"{_at(left, lvl)} {op} {_at(right, lvl + 1)}"
        case ast.Neg(operand=o):
            return f"-{_at(o, _NEG)}"
        case ast.Not(operand=o):
            return f"not {_at(o, _NOT)}"
        case ast.BoolOp(op=op, left=left, right=right):
            lvl = _OR if op == "or" else _AND
            return f"{_at(left, lvl)} {op} {_at(right, lvl + 1)}"
        case ast.Compare(op=op, left=left, right=right):
            return f"{_at(left, _SUM)} {op} {_at(right, _SUM)}"
        case ast.ListLit(items=items):
            return "[" + ", ".join(expr(i) for i in items) + "]"
        case ast.ListComp(elt=elt, var=var, iter=it, cond=cond):
            tail = f" if {_at(cond, _OR)}" if cond is not None else ""
            return f"[{expr(elt)} for {var} in {_at(it, _OR)}{tail}]"
        case ast.IfExp(cond=c, then=t, orelse=o):
            return f"{_at(t, _OR)} if {_at(c, _OR)} else {_at(o, _IF)}"
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

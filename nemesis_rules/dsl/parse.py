"""Text to AST: Lark's LALR parser (built once per process) building attrs nodes as it reduces.

`parse_module` and `parse_body` never raise on bad input: they return the AST (or None) and a
list of diagnostics. When a file has a syntax error, each top-level declaration is parsed on its
own, and inside a broken declaration each broken statement is replaced by a neutral one and the
declaration parsed again: one file reports every broken statement, without cascades.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import pickle
import re
import sys
import threading
from pathlib import Path

import attrs
import lark
from lark import Lark, Token
from lark.exceptions import (
    LarkError,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import DedentError, Indenter
from lark.parse_tree_builder import maybe_create_child_filter

from nemesis_rules.cachefiles import cache_dir, keep
from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.engine import limits
from nemesis_rules.paths import grammar_file, grammar_tables_file

MAX_SOURCE_CHARS = 2_000_000

TOKEN_NAMES = {
    "_NL": "end of line",
    "_INDENT": "an indented block",
    "_DEDENT": "the end of a block",
    "$END": "end of file",
    "NAME": "a name",
    "INT": "a number",
    "STRING": "a string",
}


class _Indenter(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token):  # noqa: N802 (Lark's name)
        try:
            yield from super().handle_NL(token)
        except DedentError as err:
            raise _BadDedent(token) from err


class _BadDedent(Exception):
    def __init__(self, token: Token) -> None:
        super().__init__("dedent")
        self.token = token


_OPTIONS = {"parser": "lalr", "start": ["start", "body"], "propagate_positions": True, "maybe_placeholders": True}


@functools.cache
def parser() -> Lark:
    """The grammar's LALR parser. Building its tables takes longer than parsing a whole module,
    so they ship with the package (grammar/nemesis.tables, made by tools/gen_grammar_tables.py
    and used while its key, `tables_key`, matches) and are otherwise kept in the cache folder
    (ruleset/cache.py; off with the cache), found by the grammar, this file, the options and
    Lark's and Python's versions. A missing, stale or unreadable copy is built anew."""
    return _building_ast(_tables())


def _tables() -> Lark:
    text = grammar_file().read_text(encoding="utf-8")
    shipped = _shipped_tables(text)
    if shipped is not None:
        return shipped
    path = _tables_path(text)
    if path is not None:
        with contextlib.suppress(*_UNREADABLE):
            return Lark.load(io.BytesIO(path.read_bytes()))
    built = Lark(text, postlex=_Indenter(), **_OPTIONS)
    if path is not None:
        keep(path, built, _saved)
    return built


_UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError,
               KeyError, IndexError, LarkError)
_TABLES_HEADER = b"nemesis-rules grammar tables "


def tables_key(grammar: str) -> str:
    """What the shipped tables were made from: the grammar, the parser's options and Lark's
    version (the tables are plain data, so Python's version does not matter)."""
    return hashlib.sha256(f"{grammar}\0{_OPTIONS}\0lark {lark.__version__}".encode()).hexdigest()


def shipped_tables(grammar: str) -> bytes:
    """The content of grammar/nemesis.tables for this grammar, this Lark and these options:
    a header line with the key and Lark's version, then `Lark.save`'s pickle without the
    postlexer (given again at load)."""
    out = io.BytesIO()
    Lark(grammar, postlex=_Indenter(), **_OPTIONS).save(out, exclude_options={"postlex"})
    return _TABLES_HEADER + f"{tables_key(grammar)} lark {lark.__version__}\n".encode() + out.getvalue()


def shipped_tables_problem(grammar: str, path: Path | None = None) -> str:
    """Why the shipped tables at `path` (default: grammar/nemesis.tables) are not used for
    `grammar`: an empty string when they are fresh."""
    path = path or grammar_tables_file()
    try:
        with path.open("rb") as f:
            header = f.readline()
    except OSError as err:
        return f"cannot read {path.name}: {err.strerror or err}"
    if not header.startswith(_TABLES_HEADER):
        return f"{path.name} is not a tables file"
    key, _, made_with = header[len(_TABLES_HEADER):].decode("ascii", "replace").strip().partition(" lark ")
    if key == tables_key(grammar):
        return ""
    if made_with != lark.__version__:
        return f"{path.name} was made with lark {made_with}; this is lark {lark.__version__}"
    return f"{path.name} was made from another grammar or other options"


def _shipped_tables(grammar: str) -> Lark | None:
    try:
        data = grammar_tables_file().read_bytes()
    except OSError:
        return None
    header, _, saved = data.partition(b"\n")
    if header != _TABLES_HEADER + f"{tables_key(grammar)} lark {lark.__version__}".encode():
        return None
    with contextlib.suppress(*_UNREADABLE):
        return Lark.__new__(Lark)._load(io.BytesIO(saved), postlex=_Indenter())
    return None


def _tables_path(grammar: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    key = hashlib.sha256(f"{grammar}\0{_OPTIONS}\0{lark.__version__}\0{sys.version}\0".encode()
                         + Path(__file__).read_bytes())
    return folder / "grammar" / f"{key.hexdigest()[:32]}.lark"


def _saved(built: Lark) -> bytes:
    out = io.BytesIO()
    built.save(out)
    return out.getvalue()


class SyntaxProblem(Exception):
    """A well-formed parse tree that is still not a valid program (e.g. `1 = x`)."""

    def __init__(self, message: str, span: Span, code: str = "E100", help: str = "") -> None:
        super().__init__(message)
        self.diagnostic = Diagnostic(code, message, span, help=help)


def _names(tree_or_none) -> tuple[str, ...]:
    return tuple(tree_or_none) if tree_or_none else ()


def _unescape(raw: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), raw[1:-1])


class _ToAst:
    """Builds the attrs nodes; each method is named after its grammar rule (or alias) and called
    as the parser reduces it, with the rule's place (`_Node` bounds, None when it covers no
    text) and its children, as a Lark Transformer with `v_args(meta=True)` would be."""

    def __init__(self, file: str, line_offset: int = 0, col_offset: int = 0) -> None:
        self.file, self.line_offset, self.col_offset = file, line_offset, col_offset

    def _s(self, meta: tuple[int, int, int, int] | None) -> Span:
        if meta is None:
            return Span(self.file, 1 + self.line_offset, 1, 1 + self.line_offset, 1)
        line, column, end_line, end_column = meta
        return Span(self.file, line + self.line_offset, column + self.col_offset,
                    end_line + self.line_offset, end_column + self.col_offset)

    # -- files --
    def start(self, meta, children):
        return ast.Module(tuple(children), span=self._s(meta))

    def body(self, meta, children):
        return ast.Body(tuple(children), span=self._s(meta))

    def names(self, meta, children):
        return tuple(str(c) for c in children)

    def suite(self, meta, children):
        return tuple(children)

    # -- declarations --
    def proc_def(self, meta, c):
        return ast.ProcDef(str(c[0]), _names(c[1]), c[2], span=self._s(meta))

    def replace_proc(self, meta, c):
        return ast.ProcDef(str(c[0]), _names(c[1]), c[2], replace=True, span=self._s(meta))

    def fn_def(self, meta, c):
        return ast.FnDef(str(c[0]), _names(c[1]), c[2], span=self._s(meta))

    def modifier_def(self, meta, c):
        return ast.ModifierDef(str(c[0]), _names(c[1]), c[2], c[3], c[4], span=self._s(meta))

    def mod_op(self, meta, c):
        return str(c[0])

    def event_def(self, meta, c):
        return ast.EventDef(str(c[0]), _names(c[1]), span=self._s(meta))

    def trigger_def(self, meta, c):
        return ast.TriggerDef(str(c[0]), _names(c[1]), c[2], c[3], span=self._s(meta))

    def hook_def(self, meta, c):
        return ast.HookDef(c[0], str(c[1]), _names(c[2]), c[3], c[4], span=self._s(meta))

    def hook_kind(self, meta, c):
        return str(c[0])  # before | after | instead (of)

    def when(self, meta, c):
        return c[0]

    def cost(self, meta, c):
        return c[0]

    def action_param(self, meta, c):
        return ast.ActionParam(str(c[0]), c[1], span=self._s(meta))

    def action_def(self, meta, c):
        name, actor, *params, cost, when, body = c
        return ast.ActionDef(str(name), str(actor), tuple(params), cost, when, body, span=self._s(meta))

    def phase_def(self, meta, c):
        steps = tuple(c[1:])
        return ast.PhaseDef(str(c[0]), tuple(n for n, _ in steps), tuple(s for _, s in steps), span=self._s(meta))

    def step_line(self, meta, c):
        return str(c[0]), self._s(meta)

    def phase_extend(self, meta, c):
        return ast.PhaseExtend(str(c[0]), tuple(c[1:]), span=self._s(meta))

    def step_insert(self, meta, c):
        return ast.StepChange(c[1], str(c[0]), str(c[2]), span=self._s(meta))

    def place(self, meta, c):
        return str(c[0])

    def step_remove(self, meta, c):
        return ast.StepChange("remove", str(c[0]), span=self._s(meta))

    def step_replace(self, meta, c):
        return ast.StepChange("replace", str(c[0]), str(c[1]), span=self._s(meta))

    # -- statements --
    def let_stmt(self, meta, c):
        return ast.Let(str(c[0]), c[1], span=self._s(meta))

    def _target(self, target, meta):
        if not isinstance(target, ast.Name | ast.Attr):
            raise SyntaxProblem(
                "cannot assign to this expression", self._s(meta),
                help="assign to a variable (`x = ...`) or a property (`e.prop = ...`)",
            )
        return target

    def assign_stmt(self, meta, c):
        return ast.Assign(self._target(c[0], meta), c[1], span=self._s(meta))

    def aug_assign(self, meta, c):
        return ast.AugAssign(self._target(c[0], meta), c[1], c[2], span=self._s(meta))

    def aug_op(self, meta, c):
        return str(c[0])

    def return_stmt(self, meta, c):
        return ast.Return(c[0], span=self._s(meta))

    def pass_stmt(self, meta, c):
        return ast.Pass(span=self._s(meta))

    def break_stmt(self, meta, c):
        return ast.Break(span=self._s(meta))

    def continue_stmt(self, meta, c):
        return ast.Continue(span=self._s(meta))

    def emit_stmt(self, meta, c):
        args = c[1] if c[1] else ((), ())
        if args[1]:
            raise SyntaxProblem("an event takes no keyword arguments", self._s(meta))
        return ast.Emit(str(c[0]), args[0], span=self._s(meta))

    def expr_stmt(self, meta, c):
        return ast.ExprStmt(c[0], span=self._s(meta))

    def if_stmt(self, meta, c):
        cond, body, *elifs, orelse = c
        branches = (ast.Branch(cond, body, span=self._s(meta)), *elifs)
        return ast.If(tuple(branches), orelse or (), span=self._s(meta))

    def elif_clause(self, meta, c):
        return ast.Branch(c[0], c[1], span=self._s(meta))

    def else_clause(self, meta, c):
        return c[0]

    def for_stmt(self, meta, c):
        return ast.For(str(c[0]), c[1], c[2], span=self._s(meta))

    def repeat_stmt(self, meta, c):
        return ast.Repeat(c[0], c[1], span=self._s(meta))

    def while_stmt(self, meta, c):
        return ast.While(c[0], c[1], span=self._s(meta))

    def match_stmt(self, meta, c):
        return ast.Match(c[0], tuple(c[1:]), span=self._s(meta))

    def case_clause(self, meta, c):
        return ast.Case(tuple(c[:-1]), c[-1], span=self._s(meta))

    def wildcard(self, meta, c):
        return ast.Wildcard(span=self._s(meta))

    # -- expressions --
    def if_expr(self, meta, c):
        return ast.IfExp(c[1], c[0], c[2], span=self._s(meta))

    def or_op(self, meta, c):
        return ast.BoolOp("or", c[0], c[1], span=self._s(meta))

    def and_op(self, meta, c):
        return ast.BoolOp("and", c[0], c[1], span=self._s(meta))

    def not_op(self, meta, c):
        return ast.Not(c[0], span=self._s(meta))

    def compare(self, meta, c):
        return ast.Compare(c[1], c[0], c[2], span=self._s(meta))

    def comp_op(self, meta, c):
        return str(c[0])

    add_op = mul_op = comp_op

    def in_op(self, meta, c):
        return ast.Compare("in", c[0], c[1], span=self._s(meta))

    def not_in_op(self, meta, c):
        return ast.Compare("not in", c[0], c[1], span=self._s(meta))

    def binop(self, meta, c):
        return ast.BinOp(c[1], c[0], c[2], span=self._s(meta))

    def neg(self, meta, c):
        return ast.Neg(c[0], span=self._s(meta))

    def getattr(self, meta, c):
        return ast.Attr(c[0], str(c[1]), span=self._s(meta))

    def getitem(self, meta, c):
        return ast.Index(c[0], c[1], span=self._s(meta))

    def call(self, meta, c):
        args, kwargs = c[1] if c[1] else ((), ())
        return ast.Call(c[0], args, kwargs, span=self._s(meta))

    def args(self, meta, c):
        positional = tuple(a for a in c if a is not None and not isinstance(a, ast.Kwarg))
        kwargs = tuple(a for a in c if isinstance(a, ast.Kwarg))
        seen_kw = False
        for a in c:
            if isinstance(a, ast.Kwarg):
                seen_kw = True
            elif a is not None and seen_kw:
                raise SyntaxProblem("a positional argument after a keyword argument", self._s(meta))
        return positional, kwargs

    def kwarg(self, meta, c):
        return ast.Kwarg(str(c[0]), c[1], span=self._s(meta))

    def list_lit(self, meta, c):
        return ast.ListLit(tuple(x for x in c if x is not None), span=self._s(meta))

    def list_comp(self, meta, c):
        return ast.ListComp(c[0], str(c[1]), c[2], c[3], span=self._s(meta))

    def var(self, meta, c):
        return ast.Name(str(c[0]), span=self._s(meta))

    def number(self, meta, c):
        return ast.Num(int(c[0]), span=self._s(meta))

    def string(self, meta, c):
        return ast.Str(_unescape(str(c[0])), span=self._s(meta))

    def true(self, meta, c):
        return ast.Bool(True, span=self._s(meta))

    def false(self, meta, c):
        return ast.Bool(False, span=self._s(meta))

    def none(self, meta, c):
        return ast.NoneLit(span=self._s(meta))


# ---- the AST built as the parser reduces ----
class _Node:
    """A rule's result on the parser's stack: its value and the text it covers, its brackets and
    keywords included (Lark's "container", as `propagate_positions` computes it; None when it
    covers none); `children` for a rule that is inlined into its parent (`_rule`, `x*`)."""

    __slots__ = ("value", "children", "line", "column", "end_line", "end_column")


class _Building(threading.local):
    """The parse under way in this thread: its `_ToAst` and the first error one of its methods raised."""

    to_ast: _ToAst | None = None
    error: tuple[str, Exception] | None = None


_BUILDING = _Building()


def _building_ast(built: Lark) -> Lark:
    """`built`, whose parser now calls `_ToAst`'s methods as it reduces (`_callback`) instead of
    building Lark's tree, which a Transformer would then walk: no tree, no second pass, and
    each node's place found once. The spans are those Lark's `propagate_positions` gives."""
    callbacks = built.parser.parser.parser.callbacks
    for rule in list(callbacks):
        name = rule.alias or rule.options.template_source or rule.origin.name
        empty = rule.options.empty_indices if _OPTIONS["maybe_placeholders"] else None
        make_filter = maybe_create_child_filter(rule.expansion, rule.options.keep_all_tokens, False, empty)
        callbacks[rule] = _callback(
            str(name), getattr(_ToAst, name, None),
            make_filter(_same) if make_filter is not None else None,
            bool(rule.options.expand1 and not rule.alias), len(rule.expansion),
        )
    return built


def _same(children: list) -> list:
    return children


def _callback(name: str, method, child_filter, expand_single: bool, size: int):
    if expand_single and size == 1 and child_filter is None:
        return _only_child  # `?sum: term`: the child, which covers exactly this rule's text
    inlined = name.startswith("_")

    def reduce(children: list):
        for first in children:  # the first _Node that covers text, or token, and the last one
            if first is not None and first.line is not None:
                for last in reversed(children):
                    if last is not None and last.line is not None:
                        break
                line, column, end_line, end_column = first.line, first.column, last.end_line, last.end_column
                break
        else:
            line = column = end_line = end_column = None
        kept = child_filter(children) if child_filter is not None else children
        if expand_single and len(kept) == 1:  # `?atom: "(" expr ")"`: the child, covering this text
            only = kept[0]
            if line is not None and type(only) is _Node:
                only.line, only.column, only.end_line, only.end_column = line, column, end_line, end_column
            return only
        node = _Node()
        node.line, node.column, node.end_line, node.end_column = line, column, end_line, end_column
        if inlined:
            node.children = kept
            return node
        try:
            if method is None:
                raise LarkError(f"no method for the grammar's rule {name}")
            meta = None if line is None else (line, column, end_line, end_column)
            node.value = method(_BUILDING.to_ast, meta, [c.value if type(c) is _Node else c for c in kept])
        except Exception as err:  # the first one is raised once the text has parsed, as a Transformer would
            if _BUILDING.error is None:
                _BUILDING.error = (name, err)
            node.value = None
        return node

    return reduce


def _only_child(children: list):
    return children[0]


# ---- errors to diagnostics ----
def _describe(token_type: str) -> str:
    if token_type in TOKEN_NAMES:
        return TOKEN_NAMES[token_type]
    pattern = parser().get_terminal(token_type).pattern
    return f"`{pattern.value}`" if pattern.type == "str" else token_type.lower()


def _expected_text(expected: set[str]) -> str:
    names = sorted({_describe(t) for t in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _token_span(file: str, token: Token, line_offset: int, col_offset: int) -> Span:
    line = token.line or 1
    col = token.column or 1
    end_col = token.end_column if token.end_column and token.end_line == line else col + max(1, len(token))
    return Span(file, line, col, line, end_col).shifted(line_offset, col_offset)


def _diagnose(err: Exception, file: str, text: str, line_offset: int, col_offset: int) -> Diagnostic:
    if isinstance(err, _BadDedent):
        span = _token_span(file, err.token, line_offset, col_offset)
        line = span.line + 1 if text else span.line
        return Diagnostic(
            "E102", "this line's indentation matches no enclosing block",
            Span(file, line, 1, line, 2), help="indent by the same amount as the block it belongs to",
        )
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "$END":
            return _at_end(file, text, line_offset, err.expected)
        span = _token_span(file, tok, line_offset, col_offset)
        if tok.type in ("_INDENT", "_DEDENT"):
            line = (tok.end_line or tok.line or 1) + line_offset
            span = Span(file, line, 1, line, max(2, (tok.end_column or 1)))
            return Diagnostic("E102", "unexpected indentation", span,
                              help=f"expected {_expected_text(err.expected)}")
        shown = "end of line" if tok.type == "_NL" else f"`{tok}`"
        return Diagnostic("E101", f"unexpected {shown}", span,
                          help=f"expected {_expected_text(err.expected)}")
    if isinstance(err, UnexpectedCharacters):
        span = Span(file, err.line, err.column, err.line, err.column + 1).shifted(line_offset, col_offset)
        char = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        return Diagnostic("E100", f"unexpected character {char!r}", span,
                          help="strings use double quotes; names use letters, digits and _")
    if isinstance(err, UnexpectedEOF):
        return _at_end(file, text, line_offset, err.expected)
    return Diagnostic("E100", f"cannot parse: {err}", Span(file, 1 + line_offset, 1, 1 + line_offset, 2))


def _at_end(file: str, text: str, line_offset: int, expected) -> Diagnostic:
    last = max(1, text.rstrip("\n").count("\n") + 1)
    span = Span(file, last + line_offset, 1, last + line_offset, 2)
    return Diagnostic("E101", "unexpected end of file", span,
                      help=f"expected {_expected_text(set(expected or ()))}")


def _run(text: str, start: str, file: str, line_offset: int, col_offset: int):
    """The AST of `text`. A syntax error is raised first; else a problem a node's method found
    (the first in the order a Transformer would meet it, children before their parent) as a
    VisitError."""
    building = _BUILDING
    before = building.to_ast, building.error
    building.to_ast, building.error = _ToAst(file, line_offset, col_offset), None
    try:
        top = parser().parse(text, start=start)
        error = building.error
    finally:
        building.to_ast, building.error = before
    if error is not None:
        raise VisitError(error[0], None, error[1])
    return top.value


def _parse_or_diagnose(text: str, start: str, file: str, line_offset: int, col_offset: int):
    try:
        tree = _run(text, start, file, line_offset, col_offset)
        problems = _beyond_limits(tree)
        return (None, problems) if problems else (tree, [])
    except VisitError as err:
        if isinstance(err.orig_exc, SyntaxProblem):
            return None, [err.orig_exc.diagnostic]
        if isinstance(err.orig_exc, ValueError):  # a number of more than 4,300 digits
            span = Span(file, 1 + line_offset, 1, 1 + line_offset, 2)
            return None, [Diagnostic("E804", f"a literal beyond the limits: {str(err.orig_exc)[:80]}", span,
                                     help=f"integers stay within ±{limits.MAX_INT}")]
        raise
    except (UnexpectedInput, _BadDedent) as err:
        return None, [_diagnose(err, file, text, line_offset, col_offset)]
    except (LarkError, RecursionError) as err:
        span = Span(file, 1 + line_offset, 1, 1 + line_offset, 2)
        return None, [Diagnostic("E100", f"cannot parse this script: {type(err).__name__}", span)]


MAX_FINDINGS_PER_DECLARATION = 10
_FIELDS: dict[type, tuple[str, ...]] = {}


def _beyond_limits(tree) -> list[Diagnostic]:
    """E805 for nesting deeper than the limit, E804 for literals too large (one walk, no recursion:
    the compiled code and the checker could not take what a hostile script nests)."""
    found: list[Diagnostic] = []
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, tuple):
            stack.extend((x, depth) for x in node)
            continue
        kind = type(node)
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = (tuple(a.name for a in attrs.fields(kind) if a.name != "span")
                                      if attrs.has(kind) else ())
        if not fields:
            continue
        if depth >= limits.MAX_NESTING:
            return [Diagnostic("E805", f"nested deeper than {limits.MAX_NESTING} levels", node.span,
                               help="split it with `let` or a function")]
        if kind is ast.Num and not -limits.MAX_INT <= node.value <= limits.MAX_INT:
            found.append(Diagnostic("E804", f"integer beyond the limit of ±{limits.MAX_INT}", node.span))
        elif kind is ast.Str and len(node.value) > limits.MAX_LENGTH:
            found.append(Diagnostic("E804", f"string longer than {limits.MAX_LENGTH:,} characters", node.span))
        stack.extend((getattr(node, name), depth + 1) for name in fields)
    return found


def _later_errors(text: str, file: str, line_offset: int, first: Diagnostic) -> list[Diagnostic]:
    """Further syntax errors in a declaration: recover at statement level and parse again.

    The broken line is replaced by a neutral statement at its indentation (`pass`, or
    `if true:` for a block header, so its block stays a block) and the declaration is parsed
    again; line numbers do not move. A header line cannot be replaced: recovery stops there."""
    lines = text.split("\n")
    found: list[Diagnostic] = []
    error = first
    while len(found) < MAX_FINDINGS_PER_DECLARATION - 1 and error.code in ("E100", "E101"):
        i = error.span.line - line_offset - 1
        if not 0 < i < len(lines):
            break
        code = lines[i].split("#", 1)[0].rstrip()
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines[i] = indent + ("if true:" if code.endswith(":") else "pass")
        _, again = _parse_or_diagnose("\n".join(lines), "start", file, line_offset, 0)
        if not again or again[0].span.line <= error.span.line:
            break
        error = again[0]
        found.append(error)
    return found


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    return text if text.endswith("\n") else text + "\n"


def _too_long(text: str, file: str) -> list[Diagnostic]:
    if len(text) <= MAX_SOURCE_CHARS:
        return []
    return [Diagnostic("E104", f"script too long ({len(text)} characters; the limit is "
                       f"{MAX_SOURCE_CHARS})", Span(file, 1, 1, 1, 2), help="split it into several files")]


_TOP_LEVEL = re.compile(r"^[^\s#]", re.MULTILINE)


def _chunks(text: str) -> list[tuple[int, str]]:
    """Top-level declarations with their line offsets, for reporting every broken one."""
    starts = [m.start() for m in _TOP_LEVEL.finditer(text)] or [0]
    if starts[0] != 0:
        starts.insert(0, 0)
    bounds = [*starts, len(text)]
    return [(text.count("\n", 0, a), text[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


_BRACKETS = {"(": 1, "[": 1, ")": -1, "]": -1}


def irregular_indentation(text: str, file: str, line_offset: int = 0, col_offset: int = 0) -> list[Diagnostic]:
    """W103 for lines indented by no whole number of the file's indent unit."""
    starts: list[tuple[int, int]] = []  # (line number, indentation) of lines that start a statement
    depth = 0
    for number, line in enumerate(text.split("\n"), 1):
        code = re.sub(r'"([^"\\]|\\.)*"', '""', line).split("#", 1)[0]
        if code.strip() and depth == 0:
            starts.append((number, len(code) - len(code.lstrip(" "))))
        depth = max(0, depth + sum(_BRACKETS.get(ch, 0) for ch in code))
    unit = min((indent for _, indent in starts if indent), default=0)
    return [Diagnostic("W103", f"indented by {indent} spaces, not a multiple of {unit}",
                       Span(file, n + line_offset, 1 + col_offset, n + line_offset, 1 + col_offset + indent),
                       "warning", "indent by whole units; a one-space slip can move a line to another block")
            for n, indent in starts if unit and indent % unit]


def parse_module(text: str, file: str = "<string>") -> tuple[ast.Module | None, list[Diagnostic]]:
    """Parse a `.nem` file. Returns the module (None if any syntax error) and diagnostics.

    Warnings (irregular indentation) come with a tree; errors come without one."""
    text = _normalise(text)
    if too_long := _too_long(text, file):
        return None, too_long
    tree, diags = _parse_or_diagnose(text, "start", file, 0, 0)
    if not diags:
        return with_docs(tree, text), irregular_indentation(text, file)
    diags = []
    for offset, chunk in _chunks(text):
        chunk = _normalise(chunk)
        _, found = _parse_or_diagnose(chunk, "start", file, offset, 0)
        diags.extend(found)
        if found:
            diags.extend(_later_errors(chunk, file, offset, found[0]))
    if not diags:  # the chunks parse alone but not together: report the whole-file error
        diags = _parse_or_diagnose(text, "start", file, 0, 0)[1]
    return None, diags


def parse_module_reusing(text: str, file: str, kept: dict[str, tuple[int, tuple]]) -> tuple[ast.Module | None, list[Diagnostic]]:
    """`parse_module`, parsing again only the top-level declarations whose text is not in `kept`
    (text -> (line offset, trees) from the last call): an editor re-checks a file after a change.

    A file with a syntax error goes through `parse_module`, so it reports exactly the same."""
    text = _normalise(text)
    if _too_long(text, file):
        return parse_module(text, file)
    decls: list[ast.Decl] = []
    fresh: dict[str, tuple[int, tuple]] = {}
    for offset, chunk in _chunks(text):
        was, trees = kept.get(chunk, (0, None))
        if trees is None:
            tree = _parse_or_diagnose(_normalise(chunk), "start", file, 0, 0)[0]
            if tree is None:
                return parse_module(text, file)
            trees = tree.decls
        trees = _moved(trees, offset - was)
        fresh[chunk] = (offset, trees)
        decls += trees
    kept.clear()
    kept.update(fresh)
    span = Span(file, decls[0].span.line, 1, decls[-1].span.end_line, decls[-1].span.end_column) if decls else Span(file)
    return with_docs(ast.Module(tuple(decls), span=span), text), irregular_indentation(text, file)


_DOCUMENTED = (ast.ProcDef, ast.FnDef, ast.EventDef, ast.ActionDef)


def with_docs(module: ast.Module, text: str) -> ast.Module:
    """`module` with each definition's doc: the `##` comment lines right above its first line."""
    lines = text.split("\n")

    def doc_above(line: int) -> str:
        first = line - 1  # an index into `lines`: the definition is lines[line - 1]
        while first > 0 and lines[first - 1].startswith("##"):
            first -= 1
        return " ".join(text[2:].strip() for text in lines[first:line - 1]).strip()

    decls = tuple(attrs.evolve(d, doc=doc_above(d.span.line)) if isinstance(d, _DOCUMENTED) else d
                  for d in module.decls)
    return attrs.evolve(module, decls=decls)


def _moved(node, lines: int):
    """`node` with every span `lines` further down."""
    if not lines:
        return node
    if isinstance(node, tuple):
        return tuple(_moved(n, lines) for n in node)
    if isinstance(node, Span):
        return node.shifted(lines)
    if isinstance(node, ast.NODE_TYPES):
        return attrs.evolve(node, **{f.name: _moved(getattr(node, f.name), lines) for f in attrs.fields(type(node))})
    return node


def parse_body(
    text: str, file: str = "<string>", line_offset: int = 0, col_offset: int = 0
) -> tuple[ast.Body | None, list[Diagnostic]]:
    """Parse a script field (statements only); offsets place spans in the enclosing file."""
    text = _normalise(text)
    if too_long := _too_long(text, file):
        return None, too_long
    tree, diags = _parse_or_diagnose(text, "body", file, line_offset, col_offset)
    if tree is not None:
        diags = irregular_indentation(text, file, line_offset, col_offset)
    return tree, diags


def parse_expr(text: str, file: str = "<string>") -> tuple[ast.Expr | None, list[Diagnostic]]:
    """Parse one expression (used by tests and tools)."""
    body, diags = parse_body(text, file)
    if body is None:
        return None, diags
    if len(body.stmts) != 1 or not isinstance(body.stmts[0], ast.ExprStmt):
        return None, [Diagnostic("E100", "expected one expression", Span(file, 1, 1, 1, 2))]
    return body.stmts[0].expr, []


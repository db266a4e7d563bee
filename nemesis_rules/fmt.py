"""`nemesis fmt`: `.nem` files in one layout, statement by statement through the AST printer.

Each logical line (a declaration header, a statement, a step) is parsed in its context and
printed by `nemesis_rules.dsl.printer`, so spacing, quoting and indentation are the printer's.
What the author chose is kept: comments (a trailing comment keeps its column when it still
fits), blank lines (at most two in a row), parentheses the printer would drop, one-line suites
(`on x(): pass`) and statements written over several lines (kept as written, re-indented).
The result must parse to the same tree, else the file is left alone. Formatting is idempotent.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable

import attrs

from nemesis_rules.dsl import printer
from nemesis_rules.dsl.diagnostics import Diagnostic, Span
from nemesis_rules.dsl.parse import parse_body, parse_module

INDENT = printer.INDENT
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|\d+|==|!=|<=|>=|\+=|-=|\S')
_BRACKETS = {"(": 1, "[": 1, ")": -1, "]": -1}
WORD = re.compile(r"[A-Za-z_]\w*")


@attrs.frozen
class Formatted:
    text: str | None  # None: the file has errors and is left as it is
    diagnostics: tuple[Diagnostic, ...] = ()


@attrs.define
class _Line:
    """A logical line: one or more physical lines (brackets or `\\` continue a statement)."""

    physical: list[str]
    code: str = ""  # the code of a one-line statement, without indentation or comment
    comment: str = ""  # its trailing comment, or a comment line's text
    indent: int = 0
    comment_column: int = 0

    @property
    def blank(self) -> bool:
        return not self.code and not self.comment and len(self.physical) == 1

    @property
    def is_code(self) -> bool:
        return bool(self.code) or len(self.physical) > 1


# ---- splitting the text ----
def _split_comment(line: str) -> tuple[str, str]:
    """(code, comment) of a physical line; a `#` inside a string is code."""
    in_string = False
    i = 0
    while i < len(line):
        ch = line[i]
        if in_string and ch == "\\":
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            return line[:i], line[i:]
        i += 1
    return line, ""


def _indent_of(line: str) -> int:
    width = 0
    for ch in line:
        if ch == " ":
            width += 1
        elif ch == "\t":
            width += 8 - width % 8
        else:
            break
    return width


def _logical_lines(text: str) -> list[_Line]:
    lines: list[_Line] = []
    group: list[str] = []
    depth = 0
    for raw in text.split("\n"):
        code, _ = _split_comment(raw)
        group.append(raw)
        depth = max(0, depth + sum(_BRACKETS.get(ch, 0) for ch in re.sub(r'"(?:[^"\\]|\\.)*"', "", code)))
        if depth > 0 or code.rstrip().endswith("\\"):
            continue
        lines.append(_make_line(group))
        group = []
    if group:
        lines.append(_make_line(group))
    return lines


def _make_line(physical: list[str]) -> _Line:
    first = physical[0]
    code, comment = _split_comment(first)
    line = _Line(physical, indent=_indent_of(first))
    if len(physical) == 1:
        line.code, line.comment = code.strip(), comment.rstrip()
        line.comment_column = len(code.expandtabs(8))
    return line


# ---- one logical line in its context ----
def _printed(parse: Callable[[], object], render: Callable[[object], list[str]]) -> list[str] | None:
    try:
        tree = parse()
        return render(tree) if tree is not None else None
    except (TypeError, IndexError, AttributeError):
        return None


def _module_lines(text: str) -> list[str] | None:
    def render(tree) -> list[str]:
        return printer.decl(tree.decls[0]) if len(tree.decls) == 1 else []

    return _printed(lambda: parse_module(text)[0], render)


def _body_lines(text: str) -> list[str] | None:
    def render(tree) -> list[str]:
        return printer.stmt(tree.stmts[0]) if len(tree.stmts) == 1 else []

    return _printed(lambda: parse_body(text)[0], render)


def _one_line(lines: list[str] | None, skip: int = 0) -> str | None:
    """The printed statement on one line: itself, or a header and its one-statement suite."""
    if not lines:
        return None
    lines = lines[skip:]
    if len(lines) == 1:
        return lines[0].strip()
    if len(lines) == 2 and lines[1].startswith(INDENT):
        return f"{lines[0].strip()} {lines[1].strip()}"
    return None


def _header(lines: list[str] | None, skip: int = 0) -> str | None:
    return lines[skip].strip() if lines and len(lines) > skip else None


@functools.lru_cache(maxsize=8192)
def canonical(code: str, context: str) -> tuple[str | None, str | None]:
    """The printed form of one line of code in `context`, and the context of the block it opens."""
    header = code.endswith(":")
    word = (WORD.match(code) or [""])[0]
    if context == "phase":
        return _header(_module_lines(f"phase p:\n{INDENT}{code}\n"), 1), None
    if context == "extend":
        return _header(_module_lines(f"extend phase p:\n{INDENT}{code}\n"), 1), None
    if context == "match":
        text = f"match x:\n{INDENT}{code}{' pass' if header else ''}\n"
        lines = _body_lines(text)
        return (_header(lines, 1), "body") if header else (_one_line(lines, 1), None)
    if context == "module":
        if header and word == "phase":
            return _header(_module_lines(f"{code}\n{INDENT}step s\n")), "phase"
        if header and word == "extend":
            return _header(_module_lines(f"{code}\n{INDENT}remove step s\n")), "extend"
        lines = _module_lines(code + (" pass\n" if header else "\n"))
        return (_header(lines), "body") if header else (_one_line(lines), None)
    if word == "elif":
        printed, opens = canonical("if" + code[4:], context)
        return (None if printed is None else "el" + printed), opens
    if word == "else":
        rest = code[4:].strip()[1:].strip()
        if not rest:
            return "else:", "body"
        printed, _ = canonical(rest, context)
        return (None if printed is None else f"else: {printed}"), None
    if header and word == "match":
        return _header(_body_lines(f"{code}\n{INDENT}case _: pass\n")), "match"
    lines = _body_lines(code + (" pass\n" if header else "\n"))
    return (_header(lines), "body") if header else (_one_line(lines), None)


def _opens(code: str, context: str) -> str:
    """The context of the block a (multi-line) header opens."""
    word = (WORD.match(code) or [""])[0]
    if context == "module":
        return {"phase": "phase", "extend": "extend"}.get(word, "body")
    return "match" if word == "match" else "body"


def with_parentheses(printed: str, source: str, context: str) -> str:
    """`printed` with the parentheses the author wrote around sub-expressions put back."""
    ours = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(printed)]
    theirs = _TOKEN.findall(source)
    if [t for t, _, _ in ours] == theirs:
        return printed
    matcher = difflib.SequenceMatcher(None, [t for t, _, _ in ours], theirs, autojunk=False)
    before: dict[int, str] = {}  # printed token index -> parentheses to write before it
    after: dict[int, str] = {}
    for op, i1, _, j1, j2 in matcher.get_opcodes():
        added = theirs[j1:j2]
        if op != "insert" or not set(added) <= {"(", ")"}:
            continue
        closing = "".join(t for t in added if t == ")")
        opening = "".join(t for t in added if t == "(")
        if closing and i1 > 0:
            after[i1 - 1] = after.get(i1 - 1, "") + closing
        if opening and i1 < len(ours):
            before[i1] = before.get(i1, "") + opening
    out, at = [], 0
    for i, (_, start, end) in enumerate(ours):
        out += [printed[at:start], before.get(i, ""), printed[start:end], after.get(i, "")]
        at = end
    result = "".join(out) + printed[at:]
    # only if the parentheses changed nothing: the line must print exactly as before
    return result if canonical(result, context)[0] == printed else printed


# ---- the file ----
def format_text(text: str, file: str = "<string>") -> Formatted:
    """`text` formatted, or `Formatted(None, errors)` when it has syntax errors."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    tree, diags = parse_module(text, file)
    if tree is None:
        return Formatted(None, tuple(d for d in diags if d.is_error))
    lines = _logical_lines(text)
    layout = _layout(lines)
    out: list[str] = []
    for i, line in enumerate(lines):
        if line.blank:
            out.append("")
        elif not line.is_code:
            out.append(" " * _comment_indent(lines, i, layout) + line.comment)
        else:
            out += _format_code(line, *layout[i])
    result = _tidy_blank_lines(out)
    if result != text and parse_module(result, file)[0] != tree:
        return Formatted(None, (Diagnostic("E999", "the formatter would change what the file means; "
                                           "left as it is", Span(file, 1, 1, 1, 2), help="please report this"),))
    return Formatted(result)


def _layout(lines: list[_Line]) -> dict[int, tuple[int, str]]:
    """For each code line: its new indentation and its printed code ("" when kept as written).

    Blocks are followed as the parser's indenter does; each block knows what it holds
    (declarations, statements, a match's cases, a phase's steps)."""
    stack: list[tuple[int, str]] = [(0, "module")]  # (indentation, context) of the open blocks
    pending: str | None = None  # the context of the block the last header opens
    found: dict[int, tuple[int, str]] = {}
    for i, line in enumerate(lines):
        if not line.is_code:
            continue
        if pending is not None and line.indent > stack[-1][0]:
            stack.append((line.indent, pending))
        while len(stack) > 1 and line.indent < stack[-1][0]:
            stack.pop()
        context = stack[-1][1]
        if line.code:
            printed, pending = canonical(line.code, context)
            printed = with_parentheses(printed, line.code, context) if printed is not None else line.code
        else:
            code = _split_comment(line.physical[-1])[0].rstrip()
            printed, pending = "", (_opens(line.physical[0].strip(), context) if code.endswith(":") else None)
        found[i] = (len(INDENT) * (len(stack) - 1), printed)
    return found


def _format_code(line: _Line, indent: int, printed: str) -> list[str]:
    if len(line.physical) > 1:  # written over several lines: kept, moved with its first line
        shift = indent - line.indent
        return [_shifted(p.expandtabs(8), shift) for p in line.physical]
    code = " " * indent + printed
    if not line.comment:
        return [code]
    gap = line.comment_column - len(code)
    return [code + (" " * gap if gap >= 1 else "  ") + line.comment]


def _shifted(line: str, shift: int) -> str:
    if not line.strip():
        return ""
    if shift >= 0:
        return (" " * shift + line).rstrip()
    lead = len(line) - len(line.lstrip(" "))
    return line[min(lead, -shift):].rstrip()


def _comment_indent(lines: list[_Line], i: int, new: dict[int, tuple[int, str]]) -> int:
    """A comment line moves with the code line next to it that it was aligned with."""
    own = lines[i].indent
    for step in (1, -1):
        j = i + step
        while 0 <= j < len(lines) and not lines[j].is_code:
            j += step
        if 0 <= j < len(lines) and lines[j].indent == own:
            return new[j][0]
    return own


def _tidy_blank_lines(out: list[str]) -> str:
    tidy: list[str] = []
    for line in out:
        if line == "" and (not tidy or tidy[-2:] == ["", ""]):
            continue
        tidy.append(line)
    while tidy and tidy[-1] == "":
        tidy.pop()
    return "\n".join(tidy) + "\n" if tidy else ""

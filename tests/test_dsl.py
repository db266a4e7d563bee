"""The language: parse, print back, diagnose bad input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.parse import parse_body, parse_module
from nemesis_rules.dsl.printer import to_source
from tests.strategies import modules


@given(modules)
def test_printed_module_parses_back_to_the_same_tree(tree: ast.Module) -> None:
    text = to_source(tree)
    parsed, diagnostics = parse_module(text, "round_trip.nem")
    assert diagnostics == [], text
    assert parsed == tree, text


@given(st.text(max_size=300))
def test_any_text_gives_a_tree_or_diagnostics(text: str) -> None:
    tree, diagnostics = parse_module(text, "fuzz.nem")
    assert (tree is None) == any(d.is_error for d in diagnostics)
    for d in diagnostics:
        assert d.span.file == "fuzz.nem" and d.span.line >= 1 and d.code[1] == "1"


@given(st.lists(st.sampled_from(["proc a(x):", "    ", "if", "x", ":", "\n", "\t", "(", ")", "[", "]",
                                 "let", "=", "match", "case", "1", '"s"', "#c", "\r\n", "else:", "-"]),
                max_size=40))
def test_token_soup_never_raises(parts: list[str]) -> None:
    text = " ".join(parts)
    tree, diagnostics = parse_module(text, "soup.nem")
    assert (tree is None) == any(d.is_error for d in diagnostics)


def test_every_broken_declaration_is_reported() -> None:
    text = "proc a():\n    let = 1\n\nproc b():\n    pass\n\nproc c(:\n    pass\n"
    _, diagnostics = parse_module(text, "two.nem")
    assert [(d.code, d.span.line) for d in diagnostics] == [("E101", 2), ("E101", 7)]


def test_diagnostic_renders_a_caret_under_the_token() -> None:
    text = "proc a():\n    x = = 1\n"
    _, [d] = parse_module(text, "caret.nem")
    assert d.render(text).splitlines()[1:4] == ["  |", "2 |     x = = 1", "  |         ^"]


def test_bad_indentation_names_the_line() -> None:
    _, [d] = parse_module("proc a():\n        x()\n    y()\n", "indent.nem")
    assert (d.code, d.span.line) == ("E102", 3)


def test_script_field_spans_point_into_the_yaml_file() -> None:
    body, diagnostics = parse_body("x += 1\ny(\n", "cards.yaml", line_offset=10, col_offset=6)
    assert body is None
    assert (diagnostics[0].span.file, diagnostics[0].span.line) == ("cards.yaml", 12)


def test_assignment_to_an_expression_is_refused() -> None:
    _, [d] = parse_module("proc a():\n    1 = 2\n")
    assert d.message == "cannot assign to this expression"


def test_inline_and_block_suites_give_the_same_tree() -> None:
    inline, _ = parse_module("proc a(x):\n    if x: return 1\n")
    block, _ = parse_module("proc a(x):\n    if x:\n        return 1\n")
    assert inline == block


def test_a_line_indented_by_an_odd_amount_is_flagged_even_when_it_parses() -> None:
    text = "proc a(xs):\n    for x in xs:\n       log(\"y\")\n    pass\n"
    tree, diagnostics = parse_module(text, "odd.nem")
    assert tree is not None
    assert [(d.code, d.span.line) for d in diagnostics] == [("W103", 3)]
    assert parse_module("proc a(x):\n    f(x,\n       x)\n")[1] == []  # lines inside brackets are free


def test_several_errors_in_one_declaration_are_each_reported_once() -> None:
    text = "proc a():\n    let = 1\n    x = 2\n    y = = 3\n    if z w:\n        w(,)\n    pass\n"
    _, diagnostics = parse_module(text, "many.nem")
    assert [(d.code, d.span.line) for d in diagnostics] == [("E101", 2), ("E101", 4), ("E101", 5), ("E101", 6)]

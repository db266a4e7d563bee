"""`nemesis fmt`: the project's own scripts are formatted; formatting keeps comments and meaning,
keeps the author's layout choices, and formatting twice changes nothing."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nemesis_rules.cli.main import main
from nemesis_rules.dsl import printer
from nemesis_rules.dsl.parse import parse_module
from nemesis_rules.fmt import format_text
from nemesis_rules.paths import rulesets_dir
from tests.strategies import modules


def test_the_project_scripts_are_formatted(capsys):
    assert main(["fmt", "--check", str(rulesets_dir())]) == 0, capsys.readouterr().out
    assert "0 file(s) would reformat" in capsys.readouterr().err


def test_spacing_and_indentation_become_the_printers():
    messy = 'proc  go( a,b ):\n  let x=1+ 2*a\n  if x>=3 :\n\tlog( "hi",n=x )\n'
    assert format_text(messy).text == (
        'proc go(a, b):\n    let x = 1 + 2 * a\n    if x >= 3:\n        log("hi", n=x)\n')


def test_the_authors_layout_is_kept():
    text = (
        "# a heading comment\n"
        "fn f(a, b) = (a and b) or not a   # aligned\n"
        "fn g(a) = 1 if a else (2 if not a else 3)\n"
        "\n\n"
        "on ping(x): pass\n"
        "proc p(x):\n"
        "    # about the loop\n"
        "    for y in [1,\n"
        "              2]:\n"
        "        x += y  # add\n"
        "    # after the loop, still in p\n"
    )
    assert format_text(text).text == text.replace("[1,\n              2]", "[1,\n              2]")


def test_extra_blank_lines_and_trailing_spaces_go():
    assert format_text("\n\nfn f() = 1   \n\n\n\n\nfn g() = 2\n\n\n").text == "fn f() = 1\n\n\nfn g() = 2\n"


def test_a_file_with_a_syntax_error_is_left_alone(tmp_path, capsys):
    result = format_text("proc p(:\n    pass\n", "bad.nem")
    assert result.text is None and result.diagnostics[0].code.startswith("E1")
    bad = tmp_path / "bad.nem"
    bad.write_text("proc p(:\n    pass\n")
    assert main(["fmt", str(bad)]) == 2
    assert bad.read_text() == "proc p(:\n    pass\n"
    assert "bad.nem:1:" in capsys.readouterr().err


def test_fmt_writes_and_check_reports(tmp_path, capsys):
    script = tmp_path / "s.nem"
    script.write_text("fn f( ) = 1+1\n")
    assert main(["fmt", "--check", str(tmp_path)]) == 1
    assert "would reformat" in capsys.readouterr().out
    assert main(["fmt", "--diff", str(script)]) == 1
    assert "+fn f() = 1 + 1" in capsys.readouterr().out
    assert main(["fmt", str(tmp_path)]) == 0
    assert script.read_text() == "fn f() = 1 + 1\n"
    assert main(["fmt", "--check", str(script)]) == 0


# ---- generated scripts, with comments, blank lines and loose spacing ----
_COMMENT = st.from_regex(r"# [a-z#\" ]{0,10}", fullmatch=True).map(str.rstrip)


@st.composite
def commented_scripts(draw):
    tree = draw(modules)
    lines = printer.to_source(tree).split("\n")[:-1]
    out = []
    for line in lines:
        for _ in range(draw(st.integers(0, 1))):  # a comment line, at this line's indentation or any
            indent = draw(st.sampled_from([len(line) - len(line.lstrip()), 0, 2, 6]))
            out.append(" " * indent + draw(_COMMENT))
        if draw(st.booleans()):
            line = line.replace(", ", ",").replace(" = ", "=", 1) if '"' not in line else line
        if line.strip() and draw(st.booleans()):
            line += " " * draw(st.integers(1, 12)) + draw(_COMMENT)
        out.append(line)
        out += [""] * draw(st.integers(0, 3))
    return tree, "\n".join(out) + "\n"


def _comments(text: str) -> list[str]:
    return re.findall(r"# [a-z#\" ]*", "\n".join(line for line in text.split("\n") if line.strip().startswith("#")
                                               or re.search(r"\s# ", line)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commented_scripts())
def test_formatting_twice_changes_nothing(case):
    tree, text = case
    once = format_text(text)
    assert once.text is not None, once.diagnostics
    assert parse_module(once.text)[0] == tree
    assert sorted(c.rstrip() for c in _comments(once.text)) == sorted(c.rstrip() for c in _comments(text))
    assert format_text(once.text).text == once.text

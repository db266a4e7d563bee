"""nemesis-lint's command line: formats, exit codes, filters, noqa, explain, crash safety.

The loader is replaced by fakes (`fake_loader`) so that these tests pin the command's own
behaviour; tests/test_lint_rulesets.py runs the real loader on fixture modules.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # until pyproject sets pytest's `pythonpath = ["."]`
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nemesis_rules.dsl.diagnostics import Diagnostic, Span  # noqa: E402
from nemesis_rules.lint import cli, codes, formats  # noqa: E402
from nemesis_rules.ruleset import check_api  # noqa: E402

JSON_KEYS = {"path", "line", "column", "end_line", "end_column", "code", "severity", "message",
             "help"}

RULES_NEM = """\
proc setup():
    shufle(deck)
    let x = bouns  # noqa: E300
    let y = bouns  # noqa: E301
    let z = bouns  # noqa
"""
COMPONENTS_YAML = """\
components:
  - id: gem
    cuont: 3   # noqa: unknown-field
    kind: crad
"""


@pytest.fixture
def module(tmp_path: Path) -> Path:
    folder = tmp_path / "toy"
    folder.mkdir()
    (folder / "module.yaml").write_text("id: toy\n")
    (folder / "rules.nem").write_text(RULES_NEM)
    (folder / "components.yaml").write_text(COMPONENTS_YAML)
    return folder


def findings_for(folder: Path) -> list[Diagnostic]:
    nem, yaml = str(folder / "rules.nem"), str(folder / "components.yaml")
    return [
        Diagnostic("E301", "unknown primitive `shufle`", Span(nem, 2, 5, 2, 11),
                   help="did you mean `shuffle`?"),
        Diagnostic("E300", "unknown name `bouns`", Span(nem, 3, 13, 3, 18)),
        Diagnostic("E300", "unknown name `bouns`", Span(nem, 4, 13, 4, 18)),
        Diagnostic("E300", "unknown name `bouns`", Span(nem, 5, 13, 5, 18)),
        Diagnostic("E200", "unknown field `cuont`", Span(yaml, 3, 5, 3, 10)),
        Diagnostic("E304", "unknown kind `crad`", Span(yaml, 4, 11, 4, 15),
                   help="did you mean `card`?"),
        Diagnostic("W503", "procedure `setup` is never used", Span(nem, 1, 6, 1, 11),
                   severity="warning"),
    ]


def sources_of(folder: Path) -> dict[str, str]:
    return {str(p): p.read_text() for p in folder.iterdir()}


@pytest.fixture
def fake_loader(monkeypatch: pytest.MonkeyPatch, module: Path) -> list[list[Path]]:
    """Replace the loader by one that reports `findings_for(module)`; returns its calls."""
    calls: list[list[Path]] = []

    def check_paths(paths: list[Path]) -> tuple[list[Diagnostic], dict[str, str]]:
        calls.append(list(paths))
        return findings_for(module), sources_of(module)

    monkeypatch.setattr(check_api, "check_paths", check_paths)
    return calls


def use_loader(monkeypatch: pytest.MonkeyPatch, diagnostics: list[Diagnostic],
               sources: dict[str, str] | None = None) -> None:
    monkeypatch.setattr(check_api, "check_paths", lambda paths: (diagnostics, sources or {}))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# ---- text ----


def test_text_shows_concise_line_caret_and_help(fake_loader, module, capsys):
    status, out, _ = run(capsys, str(module))
    nem = module / "rules.nem"
    assert status == 1
    assert f"{nem}:2:5: E301 unknown primitive `shufle`\n" in out
    assert "2 |     shufle(deck)\n  |     ^^^^^^\n  = help: did you mean `shuffle`?" in out
    assert out.rstrip().endswith("Found 3 errors, 1 warning.")


def test_concise_is_one_line_a_finding(fake_loader, module, capsys):
    status, out, _ = run(capsys, "--format", "concise", str(module))
    lines = out.splitlines()
    assert status == 1 and len(lines) == 5
    assert lines[0] == f"{module / 'components.yaml'}:4:11: E304 unknown kind `crad`"
    assert lines[-1] == "Found 3 errors, 1 warning."


def test_text_has_no_escape_codes_when_not_a_terminal(fake_loader, module, capsys):
    _, out, _ = run(capsys, str(module))
    assert "\x1b" not in out


def test_no_color_wins_over_force_color(fake_loader, module, capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = run(capsys, str(module))
    assert "\x1b" not in out


def test_force_color_colours_the_code(fake_loader, module, capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = run(capsys, str(module))
    assert "\x1b[" in out
    assert "E301" in re.sub(r"\x1b\[[0-9;]*m", "", out)


def test_findings_are_sorted_by_file_and_position(fake_loader, module, capsys):
    _, out, _ = run(capsys, "--format", "json", str(module))
    rows = [(r["path"], r["line"], r["column"]) for r in json.loads(out)]
    assert rows == sorted(rows)


def test_clean_run_says_all_checks_passed(monkeypatch, module, capsys):
    use_loader(monkeypatch, [])
    status, out, _ = run(capsys, str(module))
    assert (status, out) == (0, "All checks passed!\n")


def test_statistics_count_findings_a_code(fake_loader, module, capsys):
    status, out, _ = run(capsys, "--statistics", str(module))
    assert status == 1
    assert out.splitlines() == [
        "1  E300  unknown-name",
        "1  E301  unknown-primitive",
        "1  E304  unknown-kind",
        "1  W503  unused-procedure",
        "Found 3 errors, 1 warning.",
    ]


def test_control_characters_in_sources_are_not_printed(monkeypatch, tmp_path, capsys):
    source = "proc a():\n    \x1b[31mboom\x07\n"
    path = str(tmp_path / "a.nem")
    use_loader(monkeypatch, [Diagnostic("E101", "unexpected \x1b[2J", Span(path, 2, 5, 2, 9))],
               {path: source})
    (tmp_path / "a.nem").write_text(source)
    _, out, _ = run(capsys, path)
    assert "\x1b" not in out and "\x07" not in out


# ---- exit codes ----


def test_warnings_alone_exit_zero_unless_strict(monkeypatch, module, capsys):
    warning = Diagnostic("W800", "`while` loop", Span(str(module / "rules.nem"), 1, 1, 1, 5),
                         severity="warning")
    use_loader(monkeypatch, [warning])
    assert run(capsys, str(module))[0] == 0
    assert run(capsys, "--strict", str(module))[0] == 1


def test_missing_path_is_e104_and_exit_2(fake_loader, module, capsys):
    status, out, _ = run(capsys, str(module), str(module / "nope"))
    assert status == 2
    assert f"{module / 'nope'}:1:1: E104 no such file or folder" in out
    assert "E301" in out  # the readable path was still linted


def test_usage_errors_exit_2(capsys):
    for argv in (["--format", "xml"], ["--bogus"], ["--select", "X9"], ["--ignore", "E9999"]):
        status, out, err = run(capsys, *argv)
        assert status == 2, argv
        assert "Traceback" not in out + err


def test_help_and_version_exit_0(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "--format" in out
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.startswith("nemesis-lint ")


def test_default_path_is_the_rulesets_folder(monkeypatch, capsys):
    seen: list[list[Path]] = []
    monkeypatch.setattr(check_api, "check_paths", lambda paths: (seen.append(paths), ([], {}))[1])
    assert run(capsys)[0] == 0
    assert [p.name for p in seen[0]] == ["rulesets"]


def test_a_module_id_is_linted_as_its_folder(fake_loader, capsys):
    """Issue #38: `nemesis-lint base` was E104 though every other command takes module ids."""
    status, out, _ = run(capsys, "base")
    assert "E104" not in out
    assert [p.resolve() for p in fake_loader[0]] == [(ROOT / "rulesets" / "base").resolve()]


def test_an_unknown_module_id_is_still_e104(fake_loader, capsys):
    status, out, _ = run(capsys, "no_such_module")
    assert status == 2 and "no_such_module:1:1: E104" in out


def dependency(tmp_path: Path) -> tuple[Path, Diagnostic]:
    """A module `base` next to `toy`, and a finding in it (a dependency's, when toy is named)."""
    folder = tmp_path / "base"
    folder.mkdir()
    (folder / "module.yaml").write_text("id: base\n")
    return folder, Diagnostic("E300", "unknown name `x`", Span(str(folder / "rules.nem"), 1, 1, 1, 2))


def test_findings_in_dependencies_are_one_line_unless_asked(monkeypatch, module, tmp_path, capsys):
    base, finding = dependency(tmp_path)
    use_loader(monkeypatch, [*findings_for(module), finding])
    status, out, _ = run(capsys, str(module))
    assert status == 1 and "E301" in out and "rules.nem:1:1: E300" not in out
    assert out.rstrip().endswith("1 finding in dependencies not shown: base (1); --dependencies shows them")
    status, out, _ = run(capsys, str(module), "--dependencies")
    assert f"{base / 'rules.nem'}:1:1: E300" in out and "not shown" not in out
    status, out, _ = run(capsys, str(tmp_path))  # both modules named: everything shows
    assert f"{base / 'rules.nem'}:1:1: E300" in out and "not shown" not in out


def test_a_dependency_error_still_fails_the_run(monkeypatch, module, tmp_path, capsys):
    _, finding = dependency(tmp_path)
    use_loader(monkeypatch, [finding])
    status, out, _ = run(capsys, str(module))
    assert status == 1 and "1 finding in dependencies" in out
    assert "All checks passed" not in out and "a dependency has errors" in out


def test_missing_translations_are_one_line_unless_asked(monkeypatch, module, capsys):
    en = str(module / "i18n" / "en.yaml")
    missing = [Diagnostic("W600", f"`names.{k}` has no pl translation", Span(en, i, 3, i, 4), severity="warning")
               for i, k in enumerate(("gem", "trap"), 1)]
    use_loader(monkeypatch, missing)
    status, out, _ = run(capsys, str(module))
    assert status == 0 and "W600 `names" not in out
    assert "2 missing translations (W600) not shown: toy (2); --translations shows them" in out
    for asking in ("--translations", "--select=W600"):
        out = run(capsys, str(module), asking)[1]
        assert out.count("W600 `names") == 2 and "not shown" not in out, asking


def test_machine_formats_keep_the_count_off_stdout(monkeypatch, module, tmp_path, capsys):
    _, finding = dependency(tmp_path)
    use_loader(monkeypatch, [finding])
    status, out, err = run(capsys, str(module), "--format", "json")
    assert json.loads(out) == [] and "1 finding in dependencies" in err


TOY = ROOT / "tests" / "fixtures" / "toy"


@pytest.mark.parametrize(("before", "after", "place", "message"), [
    ("counters:\n  round: {min: 0, max: 30, start: 0}\n", "counters:\n", "24:1", "section `counters:` is empty"),
    ("counters:\n  round: {min: 0, max: 30, start: 0}\n", "counters:\n  - round\n", "24:1",
     "section `counters:` must be a mapping, not a list"),
    ("symbols: [gem, trap, attack, boost, shield, lucky, goal_reached, time_up]", "symbols: {gem: 1}", "1:1",
     "section `symbols:` must be a list, not a mapping"),
    ("  d6: [1, 2, 3, 4, 5, 6]\n", "  d6:\n", "28:3", "section `dice.d6:` is empty"),
    ("    props: {value: int, suit: symbol}\n", "    props: 5\n", "8:5",
     "section `kinds.card.props:` must be a mapping, not int 5"),
], ids=["empty", "list-for-mapping", "mapping-for-list", "nested-empty", "nested-scalar"])
def test_a_misshapen_yaml_section_is_one_error_at_its_line(tmp_path, capsys, before, after, place, message):
    """Issue #38: an empty `counters:` gave "E202 ... 'NoneType' object has no attribute 'items'"
    and follow-on findings for every name the file declares."""
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    components = folder / "components.yaml"
    text = components.read_text(encoding="utf-8")
    assert before in text
    components.write_text(text.replace(before, after), encoding="utf-8")
    status, out, _ = run(capsys, str(folder), "--format", "concise")
    assert status == 1
    assert out.splitlines() == [f"{components}:{place}: E202 {message}", "Found 1 error, 0 warnings."]
    rendered = run(capsys, str(folder))[1]
    assert "= help: write" in rendered and "object" not in rendered


# ---- json, sarif, github ----


def test_json_is_one_array_with_exactly_the_documented_keys(fake_loader, module, capsys):
    status, out, _ = run(capsys, "--format", "json", str(module))
    rows = json.loads(out)
    assert status == 1 and isinstance(rows, list) and len(rows) == 4
    assert all(set(row) == JSON_KEYS for row in rows)
    assert {row["severity"] for row in rows} == {"error", "warning"}
    first = rows[0]
    assert first["path"].endswith("components.yaml") and first["code"] == "E304"
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (4, 11, 4, 15)


def test_json_of_a_clean_run_is_an_empty_array(monkeypatch, module, capsys):
    use_loader(monkeypatch, [])
    assert json.loads(run(capsys, "--format", "json", str(module))[1]) == []


def test_sarif_structure(fake_loader, module, capsys):
    status, out, _ = run(capsys, "--format", "sarif", str(module))
    log = json.loads(out)
    assert status == 1 and log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    (the_run,) = log["runs"]
    driver = the_run["tool"]["driver"]
    rules = driver["rules"]
    assert driver["name"] == "nemesis-lint"
    assert {r["id"] for r in rules} >= {c.code for c in codes.CODES}
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["level"] in {"error", "warning"}
    for result in the_run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"error", "warning"} and result["message"]["text"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) > (region["startLine"], region["startColumn"])


def test_sarif_lists_codes_the_registry_lacks(monkeypatch, module, capsys):
    use_loader(monkeypatch, [Diagnostic("E390", "new check", Span("a.nem", 1, 1, 1, 2))])
    log = json.loads(run(capsys, "--format", "sarif", str(module))[1])
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    result = log["runs"][0]["results"][0]
    assert rules[result["ruleIndex"]]["id"] == "E390"


def test_github_annotations(fake_loader, module, capsys):
    status, out, _ = run(capsys, "--format", "github", str(module))
    lines = out.splitlines()
    assert status == 1 and len(lines) == 4
    pattern = r"::(error|warning) file=[^,]+,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[EW]\d{3}::.+"
    assert all(re.fullmatch(pattern, line) for line in lines), lines
    assert f"::error file={module / 'rules.nem'},line=2,col=5,endLine=2,endColumn=11," \
           f"title=E301::unknown primitive `shufle`" in lines


def test_github_escapes_newlines_and_separators(monkeypatch, capsys, tmp_path):
    path = str(tmp_path / "a,b:c.nem")
    use_loader(monkeypatch, [Diagnostic("E100", "50% bad\nline", Span(path, 1, 1, 1, 2))])
    (tmp_path / "a,b:c.nem").write_text("x\n")
    out = run(capsys, "--format", "github", path)[1]
    assert out.count("\n") == 1
    assert "a%2Cb%3Ac.nem" in out and out.endswith("::50%25 bad%0Aline\n")


# ---- select / ignore ----


def codes_reported(capsys, *argv: str) -> list[str]:
    out = run(capsys, "--format", "json", *argv)[1]
    return sorted(row["code"] for row in json.loads(out))


def test_select_by_prefix(fake_loader, module, capsys):
    assert codes_reported(capsys, "--select", "E3", str(module)) == ["E300", "E301", "E304"]


def test_ignore_by_code_and_name(fake_loader, module, capsys):
    reported = codes_reported(capsys, "--ignore", "E301,unused-procedure", str(module))
    assert reported == ["E300", "E304"]


def test_more_specific_selector_wins(fake_loader, module, capsys):
    assert codes_reported(capsys, "--select", "E301", "--ignore", "E3", str(module)) == ["E301"]
    assert codes_reported(capsys, "--select", "E3", "--ignore", "E3", str(module)) == []


def test_ignoring_every_error_leaves_exit_zero(fake_loader, module, capsys):
    assert run(capsys, "--ignore", "E", str(module))[0] == 0


def test_unknown_selector_suggests_a_name(capsys):
    status, _, err = run(capsys, "--select", "unknown-primitve")
    assert status == 2 and "did you mean `unknown-primitive`?" in err


# ---- noqa ----


def test_noqa_in_nem_and_yaml(fake_loader, module, capsys):
    rows = json.loads(run(capsys, "--format", "json", str(module))[1])
    kept = {(Path(r["path"]).name, r["line"], r["code"]) for r in rows}
    assert kept == {
        ("rules.nem", 1, "W503"),
        ("rules.nem", 2, "E301"),
        ("rules.nem", 4, "E300"),  # its comment names another code
        ("components.yaml", 4, "E304"),
    }


def test_noqa_naming_another_code_does_not_suppress(monkeypatch, module, capsys):
    nem = str(module / "rules.nem")
    use_loader(monkeypatch, [Diagnostic("E300", "x", Span(nem, 4, 13, 4, 18))], sources_of(module))
    assert codes_reported(capsys, str(module)) == ["E300"]


def test_noqa_needs_the_findings_own_line(monkeypatch, module, capsys):
    nem = str(module / "rules.nem")
    use_loader(monkeypatch, [Diagnostic("E301", "x", Span(nem, 2, 5, 2, 11))], sources_of(module))
    assert codes_reported(capsys, str(module)) == ["E301"]


# ---- explain ----


@pytest.mark.parametrize("key", ["E301", "e301", "unknown-primitive"])
def test_explain_prints_the_documentation(capsys, key):
    status, out, _ = run(capsys, "--explain", key)
    assert status == 0 and out.startswith("E301 unknown-primitive (error)")
    for title in codes.SECTIONS:
        assert f"## {title}" in out


def test_rule_subcommand_is_explain(capsys):
    assert run(capsys, "rule", "W800")[1].startswith("W800 unbounded-loop")


def test_explain_unknown_code(capsys):
    status, out, err = run(capsys, "--explain", "E3000")
    assert status == 2 and not out and "unknown code" in err


# ---- module folders ----


def test_files_and_folders_are_passed_to_the_loader_as_given(fake_loader, module, capsys):
    run(capsys, str(module / "rules.nem"), str(module), str(module))
    assert fake_loader == [[module / "rules.nem", module]]


# ---- never a traceback ----


def assert_no_traceback(status: int, out: str, err: str) -> None:
    assert status in (0, 1, 2)
    assert "Traceback" not in out + err


def test_a_crashing_loader_is_e999_and_exit_2(monkeypatch, module, capsys):
    def crash(paths):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(check_api, "check_paths", crash)
    status, out, err = run(capsys, str(module))
    assert_no_traceback(status, out, err)
    assert status == 2
    assert "E999 internal error: RecursionError: maximum recursion depth exceeded" in out


@pytest.mark.parametrize("answer", [None, ([1], {}), (["x"], []), 42, ([], {"a": 1})])
def test_a_malformed_loader_answer_is_handled(monkeypatch, module, capsys, answer):
    monkeypatch.setattr(check_api, "check_paths", lambda paths: answer)
    status, out, err = run(capsys, "--format", "json", str(module))
    assert_no_traceback(status, out, err)
    json.loads(out)


def test_a_crashing_formatter_is_exit_2(fake_loader, module, capsys, monkeypatch):
    def crash(*args):
        raise ValueError("boom")

    monkeypatch.setitem(formats.FORMATTERS, "json", crash)
    status, out, err = run(capsys, "--format", "json", str(module))
    assert_no_traceback(status, out, err)
    assert status == 2 and "E999 internal error: ValueError: boom" in err


def test_keyboard_interrupt_is_not_a_traceback(monkeypatch, module, capsys):
    def interrupt(paths):
        raise KeyboardInterrupt

    monkeypatch.setattr(check_api, "check_paths", interrupt)
    status, out, err = run(capsys, str(module))
    assert status == 130 and "Traceback" not in out + err


ARGV_WORDS = st.sampled_from([
    "--format", "text", "json", "sarif", "github", "xml", "--select", "--ignore", "E", "E3",
    "W5", "ALL", "unknown-name", "--strict", "--statistics", "--explain", "E300", "rule",
    "--version", "-h", "--", "-", "", "\x00", "\udcff", "nope/", ".",
])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=st.lists(st.one_of(ARGV_WORDS, st.text(max_size=8)), max_size=6))
def test_fuzzed_argv_never_shows_a_traceback(argv):
    out, err = io.StringIO(), io.StringIO()
    original = check_api.check_paths
    check_api.check_paths = lambda paths: ([], {})
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(argv)
    finally:
        check_api.check_paths = original
    assert status in (0, 1, 2)
    assert "Traceback" not in out.getvalue() + err.getvalue()


def test_the_command_never_shows_a_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "bad.nem"
    bad.write_bytes(b"\xff\xfe\x00proc (:\n\t\x1b")
    for argv in ([str(bad)], [str(tmp_path / "missing")], ["--format", "sarif", str(tmp_path)]):
        done = subprocess.run([sys.executable, "-m", "nemesis_rules.lint", *argv], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode in (1, 2), done
        assert "Traceback" not in done.stdout + done.stderr

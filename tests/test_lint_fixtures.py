"""nemesis-lint on fixture modules, with the real loader: one fixture a code.

Each folder of tests/fixtures/lint/ holds the files that differ from `_base` (a small clean
module); the expectations sit in the files, as jlox's tests do: `# expect: E300` on the line
where the finding must start. A fixture passes when every expected code is reported on its
line and no other error is reported on a line without an expectation. The text output of
each fixture is snapshotted in `<fixture>.snap` (record with NEMESIS_UPDATE_SNAPSHOTS=1).

These tests skip while `check_paths` is the stub.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # until pyproject sets pytest's `pythonpath = ["."]`
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nemesis_rules.lint import cli, codes  # noqa: E402
from nemesis_rules.ruleset import check_api  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "lint"
BASE = FIXTURES / "_base"
NAMES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and not p.name.startswith("_"))
EXPECT = re.compile(r"#\s*expect:\s*([EW]\d{3}(?:\s*,\s*[EW]\d{3})*)")
UPDATE = bool(os.environ.get("NEMESIS_UPDATE_SNAPSHOTS"))

# Where the checker and a fixture's expectation still differ. strict: a fix makes the test
# XPASS and fail, as a reminder to delete the entry.
KNOWN_GAPS: dict[str, str] = {}


def with_known_gaps(names: list[str]) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_GAPS[n], strict=True))
            if n in KNOWN_GAPS else n for n in names]


def loader_is_ready() -> bool:
    try:
        check_api.check_paths([BASE])
    except NotImplementedError:
        return False
    except Exception:  # a crash is for the tests below to report
        return True
    return True


pytestmark = pytest.mark.skipif(not loader_is_ready(), reason="check_paths is still the stub")


def build(name: str, where: Path) -> Path:
    """A copy of `_base` with the fixture's files laid over it, in `where/fixture`."""
    folder = where / "fixture"
    shutil.copytree(BASE, folder)
    shutil.copytree(FIXTURES / name, folder, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".keep"))
    return folder


def expectations(folder: Path) -> set[tuple[str, int, str]]:
    found = set()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.split("\n"), start=1):
            for match in EXPECT.finditer(line):
                for code in re.split(r"\s*,\s*", match.group(1)):
                    found.add((path.relative_to(folder).as_posix(), number, code))
    return found


def lint(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(list(argv))
    return status, out.getvalue(), err.getvalue()


def reported(folder: Path, rows: list[dict]) -> set[tuple[str, int, str, str]]:
    result = set()
    for row in rows:
        path = Path(row["path"])
        relative = path.resolve().relative_to(folder.resolve()).as_posix()
        result.add((relative, row["line"], row["code"], row["severity"]))
    return result


@pytest.mark.parametrize("name", with_known_gaps(NAMES))
def test_fixture_reports_what_it_expects(name, tmp_path):
    folder = build(name, tmp_path)
    expected = expectations(folder)
    status, out, err = lint("--format", "json", "--translations", str(folder))  # every finding
    assert "Traceback" not in out + err
    found = reported(folder, json.loads(out))
    missing = expected - {(f, n, c) for f, n, c, _ in found}
    assert not missing, f"not reported: {sorted(missing)}; reported: {sorted(found)}"
    expected_lines = {(f, n) for f, n, _ in expected}
    stray = {x for x in found if x[3] == "error" and (x[0], x[1]) not in expected_lines}
    assert not stray, f"unexpected errors: {sorted(stray)}"
    assert status == expected_status(found)


def expected_status(found: set[tuple[str, int, str, str]]) -> int:
    if {code for _, _, code, _ in found} & codes.FATAL_CODES:
        return 2
    return 1 if any(severity == "error" for *_, severity in found) else 0


@pytest.mark.parametrize("name", NAMES)
def test_fixture_text_snapshot(name, tmp_path, monkeypatch):
    build(name, tmp_path)
    monkeypatch.chdir(tmp_path)
    _, out, _ = lint("--translations", "fixture")
    snapshot = FIXTURES / f"{name}.snap"
    if UPDATE:
        snapshot.write_text(out, encoding="utf-8")
    if not snapshot.exists():
        pytest.skip(f"no snapshot yet: run with NEMESIS_UPDATE_SNAPSHOTS=1 to record {snapshot.name}")
    assert out == snapshot.read_text(encoding="utf-8")


def test_every_reported_code_is_registered(tmp_path):
    unknown = set()
    for name in NAMES:
        folder = build(name, tmp_path / name)
        rows = json.loads(lint("--format", "json", str(folder))[1])
        unknown |= {row["code"] for row in rows} - set(codes.BY_CODE)
    assert not unknown, "add these codes to nemesis_rules/lint/codes.py"


def test_shipped_rulesets_lint_clean():
    modules = [p for p in cli.default_path().glob("*/module.yaml")]
    assert {p.parent.name for p in modules} >= {"base", "carnomorphs", "void_seeders"}
    status, out, _ = lint(str(cli.default_path()))
    assert status == 0, out
    assert out.startswith("All checks passed!"), out  # no error and no warning (base DECISIONS V8)


# ---- fuzzing the files: never a traceback ----

NASTY = st.sampled_from([
    b"", b"\xef\xbb\xbfproc main():\n    pass\n", b"proc main():\r\n    pass\r\n",
    b"proc main():\n\tpass\n", b"proc main():\n    let x = " + b"(" * 3000 + b"1" + b")" * 3000 + b"\n",
    b"proc main():\n" + b"    if true:\n" * 1 + b"".join(b"    " * i + b"if true:\n" for i in range(2, 300)),
    b"\xff\xfe\x00\x00", b"\x00" * 100, b"proc", b"proc main(", b"    \n\n\t\t\n",
])
CONTENT = st.one_of(NASTY, st.binary(max_size=300), st.text(max_size=300).map(str.encode))
TARGET = st.sampled_from(["rules.nem", "components.yaml", "module.yaml", "i18n/en.yaml"])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(target=TARGET, content=CONTENT)
def test_fuzzed_files_never_show_a_traceback(tmp_path_factory, target, content):
    folder = build("clean", tmp_path_factory.mktemp("fuzz"))
    (folder / target).write_bytes(content)
    status, out, err = lint("--format", "json", str(folder))
    assert status in (0, 1, 2)
    assert "Traceback" not in out + err
    rows = json.loads(out)
    assert status == 0 or rows


def test_a_directory_where_a_file_is_expected(tmp_path):
    folder = build("clean", tmp_path)
    (folder / "rules.nem").unlink()
    (folder / "rules.nem").mkdir()
    status, out, err = lint(str(folder))
    assert status in (1, 2) and "Traceback" not in out + err


def test_a_five_megabyte_file(tmp_path):
    folder = build("clean", tmp_path)
    line = b"    log(\"hello\")\n"
    (folder / "rules.nem").write_bytes(b"proc main():\n" + line * (5_000_000 // len(line)))
    status, out, err = lint("--format", "json", str(folder))
    assert status in (0, 1, 2) and "Traceback" not in out + err

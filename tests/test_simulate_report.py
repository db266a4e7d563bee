"""`nemesis simulate`: the sections a module's `report:` declares (crew survival, by character,
rounds, causes of death, cards played), their data in `--out`, and the checks of `report:`."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from nemesis_rules.cli.main import main
from nemesis_rules.ruleset.compose import compose
from nemesis_rules.ruleset.validate import validate

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "tests" / "fixtures" / "toy"
BASE = ("--modules", f"base,{ROOT / 'tests' / 'fixtures' / 'base_testboard'}")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    old = sys.stdin
    sys.stdin = io.StringIO("")
    try:
        code = main(list(argv))
    finally:
        sys.stdin = old
    return code, capsys.readouterr().out


def section(out: str, title: str) -> list[str]:
    """The indented lines under `title:`."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        rows.append(line)
    return rows


# ---- base on the test board ----
@pytest.fixture(scope="module")
def base_report() -> dict[str, object]:
    """20 base games (2 players), run once for the tests below: the report and the JSONL."""
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "games.jsonl"
        buf = io.StringIO()
        old = sys.stdout
        sys.stdout = buf
        try:
            code = main(["simulate", *BASE, "--games", "20", "--jobs", "1", "--out", str(out_file)])
        finally:
            sys.stdout = old
        rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    return {"code": code, "out": buf.getvalue(), "rows": rows}


def test_base_report_has_every_section(base_report):
    out = base_report["out"]
    assert base_report["code"] == 0 and "errors: none" in out
    for title in ("crew survival: ", "by character:", "rounds played: mean ", "causes of death",
                  "cards played (log message `card_played`)"):
        assert title in out, out
    assert section(out, "by character:")[0].split() == ["character", "players", "survived", "won"]


def test_base_report_numbers_agree(base_report):
    out = base_report["out"]
    m = re.search(r"^crew survival: (\d+) of (\d+)", out, re.M)
    survived, players = int(m[1]), int(m[2])
    assert players == 2 * 20 and survived <= players
    table = section(out, "by character:")[1:]
    assert sum(int(row.split()[-3]) for row in table) == players  # each player-game in one row
    dead = int(re.search(r"^causes of death \((\d+) dead\):", out, re.M)[1])
    assert dead == players - survived
    assert sum(int(row.split()[-2]) for row in section(out, "causes of death")) == dead
    assert "not recorded" not in out  # every way base kills a character names its cause
    rounds = [r["report"]["rounds"] for r in base_report["rows"]]
    assert f"min {min(rounds)}, max {max(rounds)}" in out


def test_base_jsonl_carries_the_report(base_report):
    rows = base_report["rows"]
    assert len(rows) == 20
    causes = set()
    for r in rows:
        report = r["report"]
        assert isinstance(report["rounds"], int) and report["rounds"] >= 1
        assert [p["seat"] for p in report["players"]] == [0, 1]
        for p in report["players"]:
            assert set(p) == {"seat", "group", "survived", "cause", "objectives"}
            assert p["objectives"] and all(o.startswith("objective_") and "#" not in o for o in p["objectives"])
            assert p["group"] in {"captain", "scout", "mechanic", "scientist", "pilot", "soldier"}
            assert (p["cause"] is None) == p["survived"]
            causes.add(p["cause"])
            if p["seat"] in r["result"]["winners"]:
                assert p["survived"]
        assert not any(c.startswith("intruder_") for c in report["plays"])  # nobody plays the intruders
    assert {c for c in causes if c} <= {"killed_by_attack", "killed_by_wounds", "killed_by_larva",
                                       "killed_in_airlock", "killed_at_jump", "killed_with_ship",
                                       "killed_by_engines", "killed_off_course", "killed_by_contamination"}


def test_base_same_seed_same_report(capsys, base_report):
    code, again = run(capsys, "simulate", *BASE, "--games", "20", "--jobs", "2")
    assert code == 0
    assert again == base_report["out"]


def test_base_intruder_player_cards_played(capsys):
    code, out = run(capsys, "simulate", *BASE, "--games", "6", "--players", "3", "--seed", "3",
                    "--jobs", "1", "--option", "mode=intruder_player")
    assert code == 0
    rows = section(out, "cards played")
    assert any(row.lstrip().startswith("intruder_") for row in rows), out
    total = int(re.search(r"total (\d+) plays of (\d+) cards", out)[1])
    assert sum(int(row.split()[-2]) for row in rows[:-1]) == total


# ---- a toy module with a report, and bad reports ----
def toy_with(tmp_path: Path, report: str, extra_nem: str = "") -> Path:
    """A copy of the toy module whose module.yaml ends with `report`."""
    folder = tmp_path / "toy"
    shutil.copytree(TOY, folder)
    (folder / "module.yaml").write_text((TOY / "module.yaml").read_text() + report)
    if extra_nem:
        (folder / "report.nem").write_text(extra_nem)
    return folder


TOY_REPORT = """report:
  rounds: round
  player: {survived: at_goal, group: lane}
  plays: {message: advanced, arg: who}
"""
TOY_FNS = """fn at_goal(p) = p.pos >= goal()
fn lane(p) = none
"""


def test_toy_without_report_has_no_new_sections(capsys):
    code, out = run(capsys, "simulate", "--modules", str(TOY), "--games", "5", "--jobs", "1")
    assert code == 0
    for title in ("crew survival", "rounds played", "causes of death", "cards played", "by "):
        assert f"\n{title}" not in out


def test_toy_report_sections(capsys, tmp_path):
    folder = toy_with(tmp_path, TOY_REPORT, TOY_FNS)
    code, out = run(capsys, "simulate", "--modules", str(folder), "--games", "10", "--players", "2", "--jobs", "1")
    assert code == 0, out
    assert re.search(r"^crew survival: \d+ of 20 ", out, re.M)
    assert "by group:" in out and "  (none)  " in out  # no label for the rows: `group`, `(none)`
    assert "causes of death" not in out  # no `cause` declared
    assert re.search(r"^  player1 \(Player 1\) +\d+", out, re.M)  # the players, counted from `advanced`
    assert "rounds played: mean" in out


def test_report_function_with_a_wrong_value_is_a_game_error(capsys, tmp_path):
    folder = toy_with(tmp_path, "report:\n  player: {survived: where}\n", "fn where(p) = p.pos\n")
    code, out = run(capsys, "simulate", "--modules", str(folder), "--games", "3", "--jobs", "1")
    assert code == 0
    assert "errors: 3 games" in out and "report function `where` gave" in out


@pytest.mark.parametrize(("report", "code", "text", "at"), [
    ("  rounds: rund\n", "E300", "unknown counter `rund`", "rund"),
    ("  player: {survived: at_gaol}\n", "E302", "unknown function `at_gaol`", "at_gaol"),
    ("  player:\n    cause: take_turn\n", "E402", "names the procedure `take_turn`", "take_turn"),
    ("  player: {group: stride}\n", "E400", "must take 1 parameter", "stride"),
    ("  plays: {message: advance, arg: who}\n", "E307", "unknown message key `advance`", "advance"),
    ("  plays: {message: advanced, arg: whom}\n", "E400", "has no argument `whom`", "whom"),
    ("  cards: {drawn: [hand, hnad]}\n", "E305", "report `cards.drawn`: unknown zone `hnad`", "hnad"),
])
def test_bad_report_is_a_diagnostic_at_its_place(tmp_path, report, code, text, at):
    folder = toy_with(tmp_path, "report:\n" + report, TOY_FNS)
    comp = compose([folder])
    validate(comp)
    found = [d for d in comp.diagnostics if d.is_error]
    assert len(found) == 1, found
    d = found[0]
    lines = (folder / "module.yaml").read_text().splitlines()
    line = max(i for i, text_line in enumerate(lines, 1) if at in text_line)
    column = lines[line - 1].index(at) + 1
    assert (d.code, d.span.file.endswith("toy/module.yaml"), d.span.line, d.span.column) == (code, True, line, column)
    assert text in d.message


def test_report_composes_field_by_field(tmp_path):
    toy_with(tmp_path, TOY_REPORT, TOY_FNS)  # module `toy`, with the full report
    upper = tmp_path / "upper"
    upper.mkdir()
    (upper / "module.yaml").write_text("id: upper\nname: Upper\nversion: 0.1.0\nrequires: [toy]\n"
                                       "report:\n  player: {group: side}\n")
    (upper / "rules.nem").write_text("fn side(p) = p.lucky\n")
    comp = compose([upper], search=[tmp_path])
    validate(comp)
    assert not [d for d in comp.diagnostics if d.is_error], comp.diagnostics
    assert {f: (d.value if isinstance(d.value, str) else d.value.message, d.module) for f, d in comp.report.items()} == {
        "rounds": ("round", "toy"), "player.survived": ("at_goal", "toy"), "player.group": ("side", "upper"),
        "plays": ("advanced", "toy")}

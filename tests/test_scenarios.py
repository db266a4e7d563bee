"""Scenario files and their runner (nemesis_rules/scenario.py, `nemesis scenario`).

Every file under tests/scenarios/ is one test. The unit tests below write small scenarios on
the toy module and check what the runner reports: failures with expected/actual and the line
of the expectation, and clear errors (never tracebacks) for bad files.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nemesis_rules.cli import scenario_cmd
from nemesis_rules.scenario import ScenarioError, load, run_file

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"
TOY = ROOT / "tests" / "fixtures" / "toy"
# scenarios under a `pending/` folder show a rule the scripts still get wrong (each is explained in
# its folder's README.md); they are kept but not run
FILES = sorted(p for p in SCENARIOS.rglob("*.yaml") if "pending" not in p.relative_to(SCENARIOS).parts)

def _param(path: Path):
    name = path.relative_to(SCENARIOS).as_posix()
    return pytest.param(path, id=name)


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_scenario_file(path: Path) -> None:
    report = run_file(path)
    assert report.error is None, report.error
    assert report.passed, "\n".join(str(c) for c in report.failures)


def test_there_are_toy_scenarios() -> None:
    assert len([p for p in FILES if p.parent.name == "toy"]) >= 6


# ---- helpers ----
def _write(tmp_path: Path, body: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    head = f"modules: [{TOY.as_posix()}]\nplayers: 2\nseed: 1\n"
    path.write_text(head + textwrap.dedent(body), encoding="utf-8")
    return path


def _line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def _error(tmp_path: Path, body: str) -> str:
    report = run_file(_write(tmp_path, body))
    assert report.status == "ERROR", report.checks
    return report.error


# ---- failures: expected vs actual, at the expectation's line ----
def test_wrong_expectation_fails_with_line_and_values(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        chance: [4, 1]
        decisions: [advance]
        expect:
          - props: {player1: {pos: 4}}
          - props: {player1: {pos: 5}}   # wrong
        """)
    report = run_file(path)
    assert report.status == "FAIL"
    [failure] = report.failures
    assert failure.loc.line == _line_of(path, "# wrong")
    assert "player1.pos: expected 5, got 4" in failure.message
    assert str(failure).startswith(f"{path}:{failure.loc.line}: ")


def test_each_kind_of_check_reports_actual_values(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        expect:
          - zone: {discard: [shove#1]}
          - zone_size: {bag: 5}
          - contains: {bag: [sprint#1]}
          - counters: {round: 3}
          - over: true
          - result: {reason: goal_reached}
          - decision: {player: 1, options: [advance]}
          - log_contains: [blocked]
        """)
    messages = [c.message for c in run_file(path).failures]
    assert messages[0] == "zone `discard` (top first): expected [shove#1], got []"
    assert messages[1] == "size of zone `bag`: expected 5, got 6"
    assert messages[2].startswith("zone `bag` lacks [sprint#1]; it holds [gem#1")
    assert messages[3] == "counter `round`: expected 3, got 1"
    assert messages[4] == "game over: expected true, got false"
    assert "but it is not over" in messages[5]
    assert "deciding player (seat): expected 1, got 0" in messages[6]
    assert "decision options: expected [advance], got [advance, play, dig]" in messages[6]
    assert messages[7].startswith("no log entry matches blocked")


def test_choice_that_is_not_an_option_lists_the_options(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        decisions: [{choose: fly}]
        expect: [{over: false}]
        """)
    [failure] = run_file(path).failures
    assert failure.loc.line == _line_of(path, "fly")
    assert "fly is not an option" in failure.message
    assert "0: advance (Advance), 1: play (Play a card), 2: dig (Dig in the bag), 3: null (pass)" \
        in failure.message


def test_wrong_decider_stops_the_scenario(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        decisions: [{player: 1, choose: advance}]
        expect: [{over: true}]
        """)
    report = run_file(path)
    [failure] = report.failures
    assert "expected player 1 (player2) to decide, but 0 (player1) decides" in failure.message
    assert len(report.checks) == 1  # the expectations after it are not checked


def test_unexpected_rules_error_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        chance: [7]
        decisions: [advance]
        expect: [{over: false}]
        """)
    [failure] = run_file(path).failures
    assert failure.loc.line == _line_of(path, "decisions:")
    assert "the game stopped with an error" in failure.message and "impossible" in failure.message


def test_expected_error_that_does_not_happen_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        chance: [1, 1]
        decisions: [advance]
        expect: [{error: impossible}]
        """)
    [failure] = run_file(path).failures
    assert "expected an error containing 'impossible'" in failure.message


def test_unused_chance_fails(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        chance: [4, 1, 6]
        decisions: [advance]
        expect: [{props: {player1: {pos: 4}}}]
        """)
    [failure] = run_file(path).failures
    assert failure.loc.line == _line_of(path, "chance:")
    assert "1 scripted outcome(s) never used: [6]" in failure.message


# ---- bad input: clear errors with file:line and did-you-mean ----
@pytest.mark.parametrize(("body", "needle", "expected"), [
    ("expect: [{over: false}]\nplayres: 3\n", "playres", "unknown key `playres`"),
    ("expect: [{zone_sise: {bag: 1}}]\n", "zone_sise", "did you mean `zone_size`?"),
    ("position:\n  props: {player1: {poss: 1}}\nexpect: [{over: false}]\n", "poss",
     "player1 (a player) has no prop `poss`; did you mean `pos`?"),
    ("position:\n  props: {playr1: {pos: 1}}\nexpect: [{over: false}]\n", "playr1",
     "no entity `playr1`; did you mean `player1`?"),
    ("position:\n  zones: {dek: [sprint#1]}\nexpect: [{over: false}]\n", "dek",
     "no zone `dek`; did you mean `deck`?"),
    ("position:\n  zones: {hand: [sprint#1]}\nexpect: [{over: false}]\n", "hand",
     "it is a zone per owner: write e.g. `hand@player1`"),
    ("position:\n  counters: {rounds: 2}\nexpect: [{over: false}]\n", "rounds",
     "no counter `rounds`; did you mean `round`?"),
    ("position:\n  counters: {round: 99}\nexpect: [{over: false}]\n", "round: 99",
     "counter `round` takes an integer from 0 to 30, got 99"),
    ("position:\n  props: {player1: {pos: high}}\nexpect: [{over: false}]\n", "pos: high",
     "prop `pos` of player1 is int, got high"),
    ("position:\n  zones: {bag: [gem#1]}\nexpect: [{over: false}]\n", "bag:",
     "which the position does not place"),
    ("setup: {run_until: first_decisions}\nexpect: [{over: false}]\n", "run_until",
     "did you mean `first_decision`?"),
    ("decisions: [{choose: advance, index: 0}]\nexpect: [{over: false}]\n", "choose:",
     "exactly one of `choose:`"),
    ("expect: [{zone: [deck]}]\n", "zone:", "`zone` expects a mapping, got a list"),
    ("expect: [{props: {sprint#1: {valeu: 3}}}]\n", "valeu", "did you mean `value`?"),
    ("expect: [{result: {winners: [player7]}}]\n", "player7", "no player player7"),
    ("expect: [{log_contains: [{msg: x, bogus: 1}]}]\n", "bogus", "a log entry to find is"),
    ("options: {length: long}\nexpect: [{over: false}]\n", "modules:",
     "cannot start the game: option `length` takes one of ['standard', 'short'], got 'long'"),
    ("expect:\n  - over: [true\n", "over", "not valid YAML"),
    ("position:\n  links: {gem#1: [gem#2, gem#3]}\nexpect: [{over: false}]\n", "links:",
     "these rules never lay a link in play"),
])
def test_bad_files_give_clear_errors(tmp_path: Path, body: str, needle: str, expected: str) -> None:
    path = _write(tmp_path, body)
    report = run_file(path)
    assert report.status == "ERROR", report.checks
    assert expected in report.error
    if "YAML" not in expected:
        assert report.error.startswith(f"{path}:{_line_of(path, needle)}: ")


def test_unknown_module_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("modules: [nosuchmodule]\nexpect: [{over: false}]\n", encoding="utf-8")
    report = run_file(path)
    assert report.status == "ERROR" and "no module `nosuchmodule`" in report.error


def test_relative_module_paths_resolve_against_the_file(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(TOY, tmp_path / "mods" / "toy")
    (tmp_path / "s").mkdir()
    path = tmp_path / "s" / "rel.yaml"
    path.write_text("modules: [../mods/toy]\nplayers: 1\nexpect: [{over: false}]\n", encoding="utf-8")
    assert run_file(path).passed


def test_load_raises_scenario_error_with_location(tmp_path: Path) -> None:
    path = _write(tmp_path, "expect: [{over: false}]\nsteps: 3\n")
    with pytest.raises(ScenarioError) as info:
        load(path)
    assert info.value.loc.line == _line_of(path, "steps:")


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert "the file is empty" in run_file(empty).error
    assert "cannot read the file" in run_file(tmp_path / "missing.yaml").error


def test_position_places_tops_and_exact_contents(tmp_path: Path) -> None:
    path = _write(tmp_path, """
        position:
          zones:
            hand@player1: {only: [gem#1], rest: discard}
            deck: {top: [shove#2, sprint#2], bottom: [trap#1]}
          face: {gem#1: down}
        expect:
          - zone: {hand@player1: [gem#1]}
          - zone_size: {discard: 2, deck: 11, bag: 4}
          - props: {gem#1: {zone: hand@player1, face_up: false}, trap#1: {zone: deck}}
          - face: {gem#1: down}
        """)
    report = run_file(path)
    assert report.passed, [str(c) for c in report.failures]
    report = run_file(_write(tmp_path, """
        position:
          zones: {deck: {top: [shove#2, sprint#2]}}
        expect: [{zone: {deck: [shove#2, sprint#2]}}]
        """, "t.yaml"))
    assert "expected [shove#2, sprint#2], got [shove#2, sprint#2, " in report.failures[0].message


# ---- the command ----
def test_command_exit_codes_and_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "expect: [{over: false}]\n", "good.yaml")
    bad = _write(tmp_path, "expect: [{over: true}]\n", "bad.yaml")
    broken = _write(tmp_path, "expect: [{overr: true}]\n", "broken.yaml")
    assert scenario_cmd.main([str(good)]) == 0
    assert scenario_cmd.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"PASS {good}" in out and f"FAIL {bad}" in out
    assert f"  {bad}:4: over: game over: expected true, got false" in out
    assert scenario_cmd.main([str(bad), str(broken)]) == 2
    assert f"ERROR {broken}:4: unknown key `overr`" in capsys.readouterr().out
    assert scenario_cmd.main([str(tmp_path / "nope.yaml")]) == 2
    assert scenario_cmd.main([]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_command_runs_folders() -> None:
    assert scenario_cmd.main([str(SCENARIOS / "toy" / "advance.yaml"), "-q"]) == 0


def test_docs_example_is_a_real_scenario() -> None:
    import re

    doc = (ROOT / "docs" / "scenarios.md").read_text(encoding="utf-8")
    block = re.search(r"## A complete example\n\n```yaml\n(.*?)```", doc, re.S)
    assert block is not None
    first_line = block.group(1).splitlines()[0]
    path = ROOT / first_line.removeprefix("# ").strip()
    assert path.read_text(encoding="utf-8") == block.group(1)
    assert run_file(path).passed


def test_show_prints_the_position_after_setup_and_each_steps_log(capsys) -> None:
    """issue #38 point 5: seeing where a seed dealt the rooms needed a check made to fail."""
    from nemesis_rules.cli.scenario_cmd import main

    path = next(p for p in sorted(Path("tests/scenarios/toy").glob("*.yaml")))
    assert main(["--show", str(path)]) in (0, 1)
    out = capsys.readouterr().out
    assert "position after setup (seed" in out and "counters:" in out and "log of step 1" in out

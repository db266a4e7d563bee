"""Nemesis: Lockdown on its provisional board (`--option board=provisional`,
rulesets/lockdown/board_provisional.yaml; issue #34 points 1 and 3): the layout built from every
known fact, the rest invented and said so. Checks that the option is said in the setup log, the
simulate report's caveat, the play screen and the component names; that without it setup still
refuses; and that Lockdown alone and with each module that has a Lockdown part plays for 1-5
players under base's property checks (tests/test_base_properties.py), a few seeds by default and
many in the slow run (NEMESIS_LOCKDOWN_SEEDS).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_base_properties import many_games_keep_every_property, play_checked, seeds_from_env

from nemesis_rules import Game, load_ruleset
from nemesis_rules.cli.render import screen_data
from nemesis_rules.dsl.diagnostics import RulesError

ROOT = Path(__file__).resolve().parents[1]
PROVISIONAL = {"board": "provisional"}
WITH = ("", "chytrids", "void_seeders", "carnomorphs", "aftermath", "lockdown_medic", "base_characters")
PLAYER_COUNTS = range(1, 6)
SLOW_SEEDS = seeds_from_env("NEMESIS_LOCKDOWN_SEEDS", "100")
ENDS = ("jump", "ship_destroyed", "all_characters_dead")
NOTE = "Provisional board: the printed layout is unknown"


def modules(other: str) -> list[str]:
    return ["lockdown", other] if other else ["lockdown"]


@pytest.fixture(scope="module")
def lockdown():
    return load_ruleset("lockdown")


def test_without_the_option_setup_still_refuses(lockdown):
    with pytest.raises(RulesError) as err:
        Game.new(lockdown, players=2, seed=1)
    assert "Corridors and their numbers" in str(err.value) and "CSS tokens" in str(err.value)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    from nemesis_rules.cli.main import main
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_setup_log_and_the_play_screen_say_provisional_board(lockdown):
    game = Game.new(lockdown, players=2, seed=1, **PROVISIONAL)
    assert any(entry["msg"] == "provisional_board" for entry in game.log)
    panels = screen_data(lockdown, game.view(0))["panels"]
    assert [NOTE] in [row for panel in panels for row in panel["rows"]]


def test_the_simulate_report_says_provisional_board(capsys):
    code, out, err = cli(capsys, "simulate", "--modules", "lockdown", "--option", "board=provisional",
                         "--players", "2", "--games", "2", "--jobs", "1")
    assert code == 0 and "errors: none" in out, err
    assert f"* provisional_board ({NOTE})" in out, out


def test_the_cards_list_names_the_provisional_board(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    code, out, err = cli(capsys, "cards", "--modules", "lockdown", "--kind", "tech_hub")
    assert code == 0 and "Technical Corridors space (provisional board: the printed layout is unknown)" in out, err


def test_the_printed_board_has_no_caveat_and_lays_no_invented_token():
    game = Game.new(load_ruleset("lockdown", "tests/fixtures/lockdown_testboard_invented"), players=2, seed=1)
    assert not any(entry["msg"] == "provisional_board" for entry in game.log)
    assert len(game.state.zones["provisional_box"]) == 20 + 7 + 7       # every invented token stays boxed


def test_void_seeders_tokens_reach_the_elevator_shafts_of_the_provisional_board():
    """Void Seeders deal a token on each Elevator Shaft before setup (lc §6.1): the provisional
    board lays its rooms and tokens first, as a printed board has them from the start."""
    game = Game.new(load_ruleset("lockdown", "void_seeders"), players=2, seed=3, **PROVISIONAL)
    for shaft in ("pv_elevator_s01", "pv_elevator_s02", "pv_elevator_s03"):
        assert len(game.state.zones[f"room_exploration@{shaft}"]) == 1, shaft


@pytest.mark.parametrize("other", WITH)
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_combination_plays_on_the_provisional_board(other, players):
    rules = load_ruleset(*modules(other))
    out = play_checked(rules, players, seed=players, reload=False, **PROVISIONAL)
    assert out["result"]["reason"] in ENDS


@pytest.mark.slow
@pytest.mark.parametrize("other", WITH)
def test_many_games_of_every_combination_on_the_provisional_board(other):
    many_games_keep_every_property(load_ruleset(*modules(other)), PROVISIONAL, PLAYER_COUNTS, SLOW_SEEDS)


# ---------------------------------------------------------------- bring your own board (issue #34 point 2)

TEMPLATE = ROOT / "docs" / "lockdown-board-template"
FILLED = ROOT / "tests" / "fixtures" / "lockdown_testboard_invented"   # a main-side board, filled in


def lint(capsys, path) -> tuple[int, str]:
    from nemesis_rules.lint.cli import main
    code = main([str(path)])
    return code, capsys.readouterr().out


def test_the_template_lints_clean_and_setup_names_what_to_fill_in(capsys):
    code, out = lint(capsys, TEMPLATE)
    assert code == 0, out
    with pytest.raises(RulesError) as err:
        Game.new(load_ruleset("lockdown", TEMPLATE), players=2, seed=1)
    assert "Corridors and their numbers" in str(err.value) and "Section of each Room slot" in str(err.value)


def test_a_broken_board_gets_lint_errors_naming_file_line_and_fact(capsys, tmp_path):
    board = tmp_path / "my_board"
    shutil.copytree(FILLED, board)
    path = board / "components.yaml"
    text = path.read_text()
    # Room 7 -> 1 from ld_slot_i_02, which already carries 1 (from ld_slot_i_01): a number twice
    text = text.replace("ends: [ld_slot_i_02, ld_slot_i_03], labels: [2, 1]", "ends: [ld_slot_i_02, ld_slot_i_03], labels: [1, 1]")
    # a Staircase no Corridor reaches, with no Corridor Number at all
    text += "  - {id: st_lost, kind: room_slot, props: {side: main, slot_class: staircase, number: 26}}\n"
    path.write_text(text)
    code, out = lint(capsys, board)
    assert code != 0
    lines = text.splitlines()
    line_of = {cid: next(i for i, line in enumerate(lines, 1) if f"id: {cid}," in line) for cid in ("ld_slot_i_02", "st_lost")}
    assert re.search(rf"components.yaml:{line_of['ld_slot_i_02']}:\d+: E508 `ld_slot_i_02` carries label 1 on more "
                     r"than one link: `c_slot_i_01__slot_i_02`, `c_slot_i_02__slot_i_03`", out), out
    assert re.search(rf"components.yaml:{line_of['st_lost']}:\d+: E509 `st_lost` cannot be reached", out), out
    assert re.search(rf"components.yaml:{line_of['st_lost']}:\d+: W507 `st_lost` has no link labelled 1, 2, 3, 4", out), out


def test_the_provisional_board_lints_without_a_graph_finding(capsys):
    code, out = lint(capsys, ROOT / "rulesets" / "lockdown")
    assert code == 0 and not re.search(r"W507|E508|E509", out), out

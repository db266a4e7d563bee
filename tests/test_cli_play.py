"""`nemesis play` driven through its standard input: to the end, save and load, hot seat."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from nemesis_rules.cli.main import main
from nemesis_rules.ruleset.check_api import check_paths

ROOT = Path(__file__).resolve().parents[1]
TOY = str(ROOT / "tests" / "fixtures" / "toy")
ALWAYS_FIRST = "1\n" * 400  # more than a toy game needs


def play(capsys: pytest.CaptureFixture[str], stdin: str, *argv: str) -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        code = main(["play", *argv])
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return code, out, err


def test_one_human_plays_to_the_end(capsys):
    code, out, err = play(capsys, ALWAYS_FIRST, "--modules", TOY, "--players", "1", "--seed", "2")
    assert code == 0, err
    assert out.count("Player 1 sees") > 3
    assert "Choose an action" in out and "   1. Advance" in out
    assert "Game over: goal reached. Winners: Player 1" in out
    assert "Traceback" not in out + err


def test_one_human_against_a_bot(capsys):
    code, out, _ = play(capsys, ALWAYS_FIRST, "--modules", TOY, "--players", "2", "--seed", "8",
                        "--bots", "random", "--lang", "pl")
    assert code == 0
    assert "Player 1 widzi" in out and "Wybierz akcję" in out        # the screen's own words in Polish
    assert "hand (Player 2): ukrytych: 2" in out
    assert "Koniec gry: goal reached. Wygrywają: " in out


def test_save_in_the_middle_then_load(capsys, tmp_path):
    save = tmp_path / "mid.json"
    straight = play(capsys, ALWAYS_FIRST, "--modules", TOY, "--players", "1", "--seed", "2")[1]
    code, out, _ = play(capsys, f"1\n1\nsave {save}\nquit\n", "--modules", TOY, "--players", "1", "--seed", "2")
    assert code == 0 and f"Saved to {save}" in out and "Left the game unfinished" in out
    assert json.loads(save.read_text())["moves"] == [0, 0]
    code, resumed, err = play(capsys, ALWAYS_FIRST, "--load", str(save))
    assert code == 0, err
    assert _ending(resumed) == _ending(straight)
    assert main(["replay", str(save)]) == 0


def _ending(out: str) -> str:
    return out[out.rindex("the table"):]


def test_hot_seat_shows_only_the_active_players_view(capsys):
    code, out, _ = play(capsys, "quit\n", "--modules", TOY, "--players", "2", "--humans", "2", "--seed", "1")
    assert code == 0
    screen = out[: out.index("Choose an action")]
    assert "Player 1: your turn" in screen
    assert "hand (Player 1): " in screen and "hand (Player 2): 2 hidden" in screen


def test_wrong_input_asks_again(capsys):
    code, out, _ = play(capsys, "abc\n0\n99\nhelp\nsave\nquit\n", "--modules", TOY, "--players", "1")
    assert code == 0
    assert out.count("Not an option: type a number from 1 to 4") == 3
    assert "Type the number of an option" in out and "Say where: `save FILE`." in out


def test_end_of_input_leaves_the_game(capsys):
    code, out, _ = play(capsys, "", "--modules", TOY, "--players", "1")
    assert code == 0 and "(end of input)" in out


def test_unwritable_save_is_reported_and_play_goes_on(capsys, tmp_path):
    code, out, _ = play(capsys, f"save {tmp_path}/no/such/dir/x.json\nquit\n", "--modules", TOY, "--players", "1")
    assert code == 0 and "Could not save to" in out


# ---- base Nemesis on the printed board (plain action cards from a test fixture to pay costs)
BASE = "base"


def test_base_game_from_the_first_decision_to_its_end_with_a_save_between(capsys, tmp_path):
    argv = ("--modules", BASE, "--players", "2", "--humans", "1", "--bots", "heuristic", "--seed", "1")
    code, straight, err = play(capsys, ALWAYS_FIRST * 10, *argv)
    assert code == 0, err
    assert "Choose your character" in straight
    assert "Game over: " in straight and "Traceback" not in straight + err
    save = tmp_path / "base.json"
    code, first_half, _ = play(capsys, "1\n" * 20 + f"save {save}\nquit\n", *argv)
    assert code == 0 and f"Saved to {save}" in first_half
    code, resumed, err = play(capsys, ALWAYS_FIRST * 10, "--load", str(save))
    assert code == 0, err
    assert _ending(resumed) == _ending(straight)
    assert main(["replay", str(save)]) == 0


def screen_of(capsys, *argv: str) -> str:
    code, out, err = play(capsys, "quit\n", *argv)
    assert code == 0, err
    return out[: out.index("a number, `log`, `save FILE`")]


def test_base_screen_is_the_modules_panels(capsys):
    screen = screen_of(capsys, "--players", "2", "--humans", "2", "--seed", "1")   # base alone
    assert screen.splitlines()[2] == "Round: 0"                      # only the listed counters
    assert re.search(r"Time track +0 +16 ", screen)                # a panel of the tracks
    ship = screen[screen.index("\nShip ("):screen.index("\nIn the rooms\n")]
    assert re.search(r"\n11 +Hibernatorium +1 #15, 2 #6, 3 #8, 4 #14 ", ship)  # where each corridor leads
    assert re.search(r"\n2 +\? +3 Cockpit, 4 #6, 1 2 Tech ", ship)  # unexplored: `?`; 1, 2 is one corridor
    assert ship.index("\n9 ") < ship.index("\n10 ") < ship.index("\n11 ")  # by room number
    assert re.search(r"\n11 +- +- +Character Corpse \(blue\)", screen[screen.index("\nIn the rooms\n"):])
    assert re.search(r"Player 1 +- +- +On board +0 +0 +no ", screen[screen.index("\nCrew\n"):])
    assert "Intruder bag: 12 hidden" in screen and "Supply:" not in screen   # listed zones only


def test_base_screen_keeps_the_other_hand_hidden(capsys):
    argv = ("--modules", BASE, "--players", "2", "--humans", "2", "--seed", "1")
    code, out, _ = play(capsys, "1\n1\nquit\n", *argv)
    assert code == 0
    turn = out[out.index("Player 1 sees", out.index("Choose your character") + 1):]
    assert "Hand (Player 1): " in turn and "Hand (Player 2)" not in turn


def module_with_screen(tmp_path: Path, screen: str) -> Path:
    folder = tmp_path / "screened"
    (folder / "rules").mkdir(parents=True)
    (folder / "module.yaml").write_text(f"id: screened\nname: S\nversion: 0.1.0\nrequires: [toy]\nscreen:\n{screen}")
    (folder / "rules" / "s.nem").write_text("fn rows_of(me) = [[p, p == me] for p in players()]\nfn two(a, b) = 0\n")
    return folder


@pytest.mark.parametrize(("screen", "code", "line"), [
    ("  counters: [no_such_counter]\n", "E300", 6),
    ("  zones: [no_such_zone]\n", "E305", 6),
    ("  panels:\n    - {rows: no_such_fn}\n", "E302", 7),
    ("  panels:\n    - {rows: two}\n", "E400", 7),
])
def test_a_bad_screen_is_reported_on_its_line(tmp_path, screen, code, line):
    folder = module_with_screen(tmp_path, screen)
    found = [d for d in check_paths([folder])[0] if d.code == code]
    assert found and found[0].span.line == line, check_paths([folder])[0]


def test_a_screen_panel_is_drawn_from_its_function(capsys, tmp_path):
    folder = module_with_screen(tmp_path, "  panels:\n    - {title: table, rows: rows_of, columns: [who, me]}\n")
    screen = screen_of(capsys, "--modules", f"{TOY},{folder}", "--players", "2", "--seed", "1")
    assert "table\nwho       me   \nPlayer 1  true \nPlayer 2  false" in screen


def test_base_in_russian_names_the_screen_and_the_ship(capsys):
    code, out, _ = play(capsys, "quit\n", "--modules", BASE, "--players", "2", "--seed", "1", "--lang", "ru")
    assert code == 0
    assert "Игрок 1 видит" in out and "Корабль" in out and "Экипаж" in out
    assert "Игра прервана до конца." in out


def test_log_shows_the_whole_history_the_screen_cuts(capsys):
    code, out, _ = play(capsys, "1\n" * 6 + "log\nquit\n", "--modules", "base", "--players", "2", "--seed", "2")
    assert code == 0
    before, _, whole = out.partition("> log\n")
    screen_tail = before[before.rindex("log:"):]
    entries = [line for line in whole.splitlines()[1:] if line.startswith("  · ")]
    assert len(entries) > len([line for line in screen_tail.splitlines() if line.startswith("  · ")])
    assert f"the whole log ({len(entries)} entries):" in whole

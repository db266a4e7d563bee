"""The `nemesis play` screen fits a terminal of 80 columns (issue #36 point 6): every line of a
mid-game screen of base, Lockdown on its provisional board and Retaliation, its menu included,
is at most 80 columns, and each room of base's ship panel is one line that names where each
corridor leads; intruders show their injuries and weapons their ammo."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from nemesis_rules import Game
from nemesis_rules.bots import make_bot, play_turn
from nemesis_rules.cli import render
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.unavailable import unavailable_actions
from tests.positions import choose, put

WIDTH = 80
PLAYERS = 3


def mid_game_screen(modules: tuple[str, ...], moves: int, lang: str = "en", **options) -> tuple[str, Game]:
    """The screen (and menu) the deciding seat reads after `moves` heuristic moves, at 80 columns."""
    rules = cached_rules(modules, lang)
    game = Game.new(rules, PLAYERS, 5, **options)
    bots = {s: make_bot("heuristic", s) for s in range(PLAYERS)}
    for _ in range(moves):
        play_turn(game, bots)
    assert not game.over
    out = io.StringIO()
    console = Console(file=out, width=WIDTH, highlight=False, soft_wrap=True)  # as `nemesis play` makes it
    view = game.view(game.decision.player)
    render.view_screen(console, rules, view)
    render.menu(console, rules, game.decision, view, unavailable_actions(game, game.decision.player))
    return out.getvalue(), game


@pytest.mark.parametrize(("modules", "moves", "options"), [
    (("base",), 60, {}),
    (("lockdown",), 40, {"board": "provisional"}),
    (("retaliation",), 60, {}),
])
def test_every_line_of_a_mid_game_screen_fits_80_columns(modules, moves, options):
    screen, _ = mid_game_screen(modules, moves, **options)
    long = [line for line in screen.splitlines() if len(line) > WIDTH]
    assert not long, long


def test_each_room_of_the_base_ship_is_one_line_naming_where_its_corridors_lead():
    screen, game = mid_game_screen(("base",), 60)
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Ship ("))
    end = lines.index("In the rooms")
    rows = lines[start + 2:end]
    assert [row.split()[0] for row in rows] == [str(n) for n in range(1, 22)]  # one line a room space
    cockpit = rows[0]
    assert cockpit.split()[1] == "Cockpit" and "#3" in cockpit and "3 Nest" in cockpit  # 3 leads to the Nest
    assert "1, 2, 3, 4" not in screen
    rooms = "\n".join(lines[end:lines.index("Crew")])
    assert "Queen 2 inj." in rooms  # an intruder with its injuries
    crew = "\n".join(lines[lines.index("Crew"):])
    assert "Shotgun 2" in crew and "ammo" in crew  # a weapon with its ammo


@pytest.mark.parametrize(("lang", "reason", "heading"), [
    ("en", "Movement: you are in combat", "Not available now:"),
    ("pl", ": jesteś w Walce", "Teraz niedostępne:"),
    ("ru", ": вы в Бою", "Сейчас недоступно:"),
])
def test_the_menu_lists_why_an_action_is_unavailable_within_80_columns(lang, reason, heading):
    """Issue #36 point 6 (DECISIONS.md U5): in combat (an Adult in the Scout's room) the menu lists
    the actions not offered, each with why, one a line cut to the screen's width."""
    rules = cached_rules(("base",), lang)
    game = Game.new(rules, 1, 1)
    put(game, "adult_figure#1", "room_contents@main_hibernatorium")
    choose(game, "scout")
    out = io.StringIO()
    console = Console(file=out, width=WIDTH, highlight=False, soft_wrap=True)
    render.menu(console, rules, game.decision, game.view(0), unavailable_actions(game, 0))
    lines = out.getvalue().splitlines()
    listed = lines[lines.index(heading) + 1:-1]
    assert len(listed) >= 3 and any(line.strip().endswith(reason) for line in listed), lines
    assert all(len(line) <= WIDTH for line in lines), lines


@pytest.mark.parametrize(("lang", "facility", "crew", "knowledge"), [
    ("en", "Facility (", "Crew", "Knowledge"),
    ("pl", "Baza (", "Załoga", "Wiedza"),
])
def test_the_lockdown_screen_has_facility_and_crew_panels_and_lists_no_room_tile(lang, facility, crew, knowledge):
    """Lockdown DECISIONS D26-D28: Lockdown's screen draws nemesis_core's facility panel (one row a
    room space with a tile, by its number) and its own crew panel with Knowledge, and counts its
    piles instead of listing each room tile and exploration token of the board, within 80 columns."""
    screen, game = mid_game_screen(("lockdown",), 40, lang, board="provisional")
    lines = screen.splitlines()
    assert not [line for line in lines if len(line) > WIDTH]
    start = next(i for i, line in enumerate(lines) if line.startswith(facility))
    numbers = [line.split()[0] for line in lines[start + 2:start + 8]]
    assert numbers == ["1", "2", "3", "4", "5", "6"], lines[start:start + 8]
    assert "Repository" in screen or "Magazyn" in screen  # an explored room by name
    at = lines.index(crew)
    assert knowledge in lines[at + 1] + lines[at + 2]
    view = game.view(game.decision.player)
    board_zones = {render.zone_label(game.rules, k) for k in view["zones"]
                   if k.partition("@")[0] in ("room_tile", "room_exploration")}
    assert board_zones and not [line for line in lines if any(line.startswith(z) for z in board_zones)]

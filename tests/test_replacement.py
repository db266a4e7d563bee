"""An `instead of` applies once to one moment (DESIGN.md §4b, issue #38): while a replacement's
body runs, the moments it causes are not replaced by it again (the next handler, or the
procedure's own body, performs them); once its body ends it applies as before. The marker is the
body's frame on the game's stack, so it holds across a decision, a save and a copy."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from tests.conftest import FIXTURES
from tests.strategies import play_randomly


def _module(tmp_path: Path, script: str) -> Path:
    folder = tmp_path / "replace_once"
    folder.mkdir()
    (folder / "module.yaml").write_text(
        "id: replace_once\nname: replace_once\nversion: 0.1.0\nplayers: {min: 1, max: 1}\nentry: main\n")
    (folder / "rules.nem").write_text(textwrap.dedent(script))
    return folder


def _messages(game: Game) -> list[tuple]:
    return [(e["msg"], e["args"].get("n")) for e in game.log]


# `step` called twice, its body logging its argument
STEP_TWICE = """
proc main():
    let p = player_at(0)
    step(p, 0)
    step(p, 10)
    end_game("done", [p])

proc step(p, n):
    log("body", n=n)
"""

# `step` is replaced by a body that performs `step` again: without the rule it replaces itself
# until the nesting limit.
SELF_CAUSED = STEP_TWICE + """
instead of step(p, n):
    log("replaced", n=n)
    step(p, n + 1)
"""


def test_a_replacement_does_not_replace_the_moment_its_own_body_causes(tmp_path: Path) -> None:
    game = Game.new(load_ruleset(_module(tmp_path, SELF_CAUSED)), players=1)
    assert game.result == {"reason": "done", "winners": (0,)}
    # each outer call is replaced; the inner one runs the body; the second call is replaced again
    assert _messages(game) == [("replaced", 0), ("body", 1), ("replaced", 10), ("body", 11)]


TWO_HANDLERS = """
proc main():
    let p = player_at(0)
    step(p, 0)
    end_game("done", [p])

proc step(p, n):
    log("body", n=n)

instead of step(p, n):
    log("first", n=n)
    step(p, n + 1)

instead of step(p, n):
    log("second", n=n)
    step(p, n + 1)
"""


def test_the_moment_a_replacement_causes_goes_to_the_next_handler_then_to_the_body(tmp_path: Path) -> None:
    """The last-declared handler applies first; inside its body the other one still may."""
    game = Game.new(load_ruleset(_module(tmp_path, TWO_HANDLERS)), players=1)
    assert game.over
    assert _messages(game) == [("second", 0), ("first", 1), ("body", 2)]


DECIDING = STEP_TWICE + """
instead of step(p, n):
    let c = choose(p, [1, 2])
    log("replaced", n=n)
    step(p, n + c)
"""


def test_the_marker_holds_across_a_decision_a_save_and_a_copy(tmp_path: Path) -> None:
    """The body waits for a decision: its frame on the stack is the marker, so the game saved,
    loaded or copied there still runs the inner moment's own body, then replaces the next call."""
    rules = load_ruleset(_module(tmp_path, DECIDING))
    game = Game.new(rules, players=1)
    assert [f[0] for f in game.state.stack][-1].startswith("step@instead#")
    for twin in (game.clone(), Game.from_json(rules, game.to_json()), game):
        twin.apply(1)  # c = 2
        assert _messages(twin) == [("replaced", 0), ("body", 2)]
        assert twin.decision is not None  # the second call is replaced again: its body asks
        twin.apply(0)
        assert _messages(twin)[2:] == [("replaced", 10), ("body", 11)] and twin.over


def _play_flee_instead(games: int) -> None:
    """The issue's naive mod over base (tests/fixtures/flee_instead): every game ends, and the
    retreat's own entries are performed, not replaced again (an intruder enters a lit room)."""
    rules = load_ruleset("base", FIXTURES / "flee_instead")
    entered = 0
    for seed in range(games):
        game = Game.new(rules, players=4, seed=seed)
        play_randomly(game, seed)
        assert game.over, seed
        entered += sum(e["msg"] == "entered_lit_room" for e in game.log)
    assert entered > 0


def test_the_naive_retreat_instead_of_entering_plays_20_games() -> None:
    _play_flee_instead(20)


@pytest.mark.slow
def test_the_naive_retreat_instead_of_entering_plays_200_games() -> None:
    _play_flee_instead(200)

"""The engine on the toy game: full games, determinism, save/clone, budgets, illegal moves, views."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nemesis_rules import Game, IllegalMoveError, RulesError, load_ruleset
from nemesis_rules.engine import primitives
from nemesis_rules.engine.program import CALL, CHOOSE, EMIT
from nemesis_rules.engine.state import E_ZONE
from nemesis_rules.engine.view import seen_state
from tests.conftest import TOY
from tests.strategies import play_randomly

ROOT = Path(__file__).resolve().parent.parent


def test_toy_game_ends_for_1000_seeds(toy_rules) -> None:
    reasons = set()
    for seed in range(1000):
        game = Game.new(toy_rules, players=1 + seed % 4, seed=seed)
        play_randomly(game, seed)
        assert game.over and game.decision is None
        assert game.result["reason"] in ("goal_reached", "time_up")
        reasons.add(game.result["reason"])
    assert "goal_reached" in reasons


def test_every_entity_is_in_exactly_the_zone_it_says(toy_rules) -> None:
    game = Game.new(toy_rules, players=3, seed=5)
    rnd = random.Random(5)
    while not game.over:
        st = game.state
        listed = [e for zone in st.zones.values() for e in zone]
        assert len(listed) == len(set(listed))
        for zone, members in st.zones.items():
            assert all(st.entities[e][E_ZONE] == zone for e in members)
        game.apply(rnd.randrange(len(game.decision.options)))


_PLAY_SCRIPT = textwrap.dedent("""
    import hashlib, random, sys
    from nemesis_rules import Game, load_ruleset
    rules = load_ruleset(sys.argv[1])
    for seed in range(int(sys.argv[2])):
        game = Game.new(rules, players=1 + seed % 4, seed=seed)
        rnd = random.Random(seed)
        while not game.over:
            game.apply(rnd.randrange(len(game.decision.options)))
        print(seed, hashlib.sha256(game.to_json().encode()).hexdigest())
""")


def _play_in_process(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", _PLAY_SCRIPT, str(TOY), "20"], capture_output=True,
                          text=True, env=env, cwd=ROOT, check=True)
    return done.stdout


def test_same_seed_and_decisions_give_identical_json_across_processes() -> None:
    first, second = _play_in_process("1"), _play_in_process("4242")
    assert first == second and len(first.splitlines()) == 20


def _policy(seed: int, step: int, n: int) -> int:
    return random.Random(seed * 100_003 + step).randrange(n)


def _finish(game: Game, seed: int, step: int) -> str:
    while not game.over:
        game.apply(_policy(seed, step, len(game.decision.options)))
        step += 1
    return game.to_json()


@pytest.mark.parametrize("seed", range(12))
def test_copies_taken_at_any_decision_continue_exactly(toy_rules, seed: int) -> None:
    game = Game.new(toy_rules, players=2 + seed % 3, seed=seed)
    copies = []
    step = 0
    while not game.over:
        text = game.to_json()
        restored = Game.from_json(toy_rules, text)
        assert restored.to_json() == text and restored.state == game.state
        assert list(restored.state.entities) == list(game.state.entities)  # creation order kept
        copies.append((step, game.clone(), restored))
        game.apply(_policy(seed, step, len(game.decision.options)))
        step += 1
    final = game.to_json()
    for at, clone, restored in copies:
        assert _finish(clone, seed, at) == final
        assert _finish(restored, seed, at) == final


def _module(tmp_path: Path, script: str, name: str = "loop") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "module.yaml").write_text(
        f"id: {name}\nname: {name}\nversion: 0.1.0\nplayers: {{min: 1, max: 2}}\nentry: main\n")
    (folder / "rules.nem").write_text(textwrap.dedent(script))
    return folder


@pytest.mark.parametrize("script, line", [
    ("proc main():\n    let n = 0\n    while true:\n        n += 1\n", 4),
    ("proc main():\n    again()\n\nproc again():\n    again()\n", 5),
    ("fn deep(x) = deep(x + 1)\nproc main():\n    let y = deep(1)\n", 3),
])
def test_endless_scripts_stop_with_a_located_rules_error(tmp_path: Path, script: str, line: int) -> None:
    rules = load_ruleset(_module(tmp_path, script))
    with pytest.raises(RulesError) as err:
        Game.new(rules, players=1)
    [d] = err.value.diagnostics
    assert d.span.file.endswith("rules.nem") and d.span.line == line


def test_a_rules_error_stops_the_game_for_good(tmp_path: Path) -> None:
    script = "proc main():\n    let p = player_at(0)\n    let x = choose(p, [1, 2])\n    fail(\"broken\")\n"
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    with pytest.raises(RulesError, match="broken"):
        game.apply(0)
    with pytest.raises(RulesError, match="broken"):
        game.apply(0)


@pytest.mark.parametrize("bad", [-1, 99, "0", 1.0, None, True])
def test_illegal_option_is_refused_and_changes_nothing(toy_rules, bad) -> None:
    game = Game.new(toy_rules, players=2, seed=3)
    before = game.to_json()
    with pytest.raises(IllegalMoveError):
        game.apply(bad)
    assert game.to_json() == before


def test_an_option_of_an_earlier_decision_is_refused(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=3)
    stale = game.decision.options[-1]
    game.apply(0)
    while len(game.decision.options) > stale.index and game.decision.options[stale.index] == stale:
        game.apply(0)
    before = game.to_json()
    with pytest.raises(IllegalMoveError):
        game.apply(stale)
    assert game.to_json() == before


def test_applying_after_the_end_is_refused(toy_rules) -> None:
    game = Game.new(toy_rules, players=1, seed=1)
    play_randomly(game, 1)
    with pytest.raises(IllegalMoveError, match="over"):
        game.apply(0)


def test_bad_game_settings_are_refused(toy_rules) -> None:
    for kwargs in ({"players": 9}, {"players": 0}, {"seed": "x"}, {"length": "long"}, {"lenght": "short"}):
        with pytest.raises(RulesError):
            Game.new(toy_rules, **{"players": 2, **kwargs})


def test_corrupt_saves_are_refused(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=3)
    data = json.loads(game.to_json())
    data["stack"][0][0] = "no_such_proc"
    for text in ("", "{}", "[1]", json.dumps(data), game.to_json().replace('"format":3', '"format":7'),
                 game.state.to_json().replace('"format":2', '"format":7')):
        with pytest.raises(RulesError):
            Game.from_json(toy_rules, text)


def _hands(game: Game) -> dict[str, list[str]]:
    return {k: v for k, v in game.state.zones.items() if k.startswith("hand@")}


@given(seed=st.integers(0, 10_000), moves=st.integers(0, 12), data=st.data())
def test_views_do_not_depend_on_others_hidden_cards(toy_rules, seed: int, moves: int, data) -> None:
    game = Game.new(toy_rules, players=3, seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.over:
            return
        game.apply(rnd.randrange(len(game.decision.options)))
    if game.over:
        return
    viewer = data.draw(st.integers(0, 2))
    secret = [z for z in game.state.zones if (z.startswith("hand@") and z != f"hand@player{viewer + 1}")
              or z == "deck"]
    other = game.clone()
    a, b = data.draw(st.sampled_from(secret)), data.draw(st.sampled_from(secret))
    za, zb = other.state.zones[a], other.state.zones[b]
    if not za or not zb:
        return
    i, j = data.draw(st.integers(0, len(za) - 1)), data.draw(st.integers(0, len(zb) - 1))
    if game.state.pending and game.state.pending["player"] != viewer:
        pending = game.state.pending
        other.state.pending = dict(pending, options=tuple(reversed(pending["options"])))
    za[i], zb[j] = zb[j], za[i]
    for eid, zone in ((za[i], a), (zb[j], b)):
        other.state.entities[eid][E_ZONE] = zone
    assert json.dumps(game.view(viewer), sort_keys=True) == json.dumps(other.view(viewer), sort_keys=True)


def test_view_shows_own_hand_but_only_sizes_of_others(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=0)
    view = game.view(0)
    assert len(view["zones"]["hand@player1"]["entities"]) == 2
    assert view["zones"]["hand@player2"] == {"size": 2}
    assert view["zones"]["deck"] == {"size": 10}
    assert set(view["entities"]).isdisjoint(game.state.zones["hand@player2"] + game.state.zones["deck"])
    assert json.loads(json.dumps(view)) is not None


def test_view_log_from_leaves_out_the_lines_already_read(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=0)
    rnd = random.Random(0)
    while len(game.log) < 3 and not game.over:
        game.apply(rnd.randrange(len(game.decision.options)))
    full = game.view(None)
    read = len(game.log) - 1
    assert game.view(None, log_from=read)["log"] == [e for e in game.log[read:] if e["to"] is None]
    assert game.view(None, log_from=0) == full and game.view(None, log_from=len(game.log))["log"] == []
    with pytest.raises(RulesError, match="log_from must be a log index"):
        game.view(None, log_from=-1)


def test_decision_is_shown_in_full_only_to_its_player(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=0)
    mine, theirs = game.view(game.decision.player), game.view(1 - game.decision.player)
    assert "options" in mine["decision"] and set(theirs["decision"]) == {"player", "prompt"}


def test_labels_and_messages_are_translated() -> None:
    rules = load_ruleset(TOY, lang="pl")
    game = Game.new(rules, players=1, seed=2)
    assert {o.label for o in game.decision.options} <= {"Naprzód", "Zagraj kartę", "Szukaj w worku", "pass"}
    assert game.decision.text == "Wybierz akcję"
    with pytest.raises(RulesError, match="no `xx` translation"):
        load_ruleset(TOY, lang="xx")


def _advance(game: Game) -> int:
    return next(o.index for o in game.decision.options if o.value == "advance")


def test_scripted_chance_outcomes_are_used_then_checked(toy_rules) -> None:
    game = Game.new(toy_rules, players=1, seed=0)
    game.force(6, 1)  # the d6, then the omen die
    game.apply(_advance(game))
    assert game.view(0)["entities"]["player1"]["props"]["pos"] == 6
    assert game.log[-1]["text"] == "Player 1 advances 6"
    game.force(7)
    with pytest.raises(RulesError, match="impossible"):
        game.apply(_advance(game))


def test_json_of_equal_states_is_equal(toy_rules) -> None:
    a = Game.new(toy_rules, players=2, seed=11)
    b = Game.new(toy_rules, players=2, seed=11)
    assert a.to_json() == b.to_json()
    assert hashlib.sha256(a.to_json().encode()).hexdigest() == hashlib.sha256(b.to_json().encode()).hexdigest()


def test_explicit_chance_nodes_list_outcomes_and_take_them(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=4, explicit_chance=True)
    rnd = random.Random(4)
    chance_nodes = 0
    while not game.over:
        if game.is_chance_node:
            outcomes = game.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            with pytest.raises(IllegalMoveError):
                game.apply_chance("no such outcome")
            game.apply_chance(rnd.choice(outcomes)[0])
            chance_nodes += 1
        else:
            game.apply(rnd.randrange(len(game.decision.options)))
    assert chance_nodes > 0
    assert Game.new(toy_rules, players=2, seed=4, explicit_chance=True).decision is not None


def test_the_d6_chance_node_is_uniform(toy_rules) -> None:
    game = Game.new(toy_rules, players=1, seed=0, explicit_chance=True)
    game.apply(_advance(game))
    assert game.is_chance_node and game.decision is None
    assert sorted(game.chance_outcomes()) == [(face, 1 / 6) for face in range(1, 7)]
    assert game.view(0)["decision"] == {"player": -1, "prompt": "roll", "chance": True}


def test_keyed_list_primitives(tmp_path: Path) -> None:
    script = ("proc main():\n    let xs = [\"a\", \"b\", \"c\", \"d\"]\n    let ks = [3, 1, 3, 0]\n"
              "    log(\"r\", s=sort_by(xs, ks), lo=min_by(xs, ks), hi=max_by(xs, ks), t=\"p\" + text(4))\n"
              "    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert game.log[0]["args"] == {"s": ("d", "b", "a", "c"), "lo": "d", "hi": "a", "t": "p4"}


def test_flatten_joins_lists_in_order_and_refuses_what_is_not_a_list_of_lists(tmp_path: Path) -> None:
    script = ("proc main():\n    log(\"r\", f=flatten([[1, 2], [], [3], [[4]]]), e=flatten([]))\n"
              "    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert game.log[0]["args"] == {"f": (1, 2, 3, (4,)), "e": ()}
    bad = tmp_path / "bad"
    bad.mkdir()
    with pytest.raises(RulesError, match="expected a list, got 3"):
        Game.new(load_ruleset(_module(bad, "proc main():\n    log(\"r\", f=flatten([[1], 3]))\n")), players=1)


def test_a_program_compiled_at_first_call_plays_the_same_games(monkeypatch) -> None:
    """build_program(lazy=True), as nemesis-lint builds without its cache: every step and function
    compiled by Python when first called, the same game move for move."""
    import functools

    from nemesis_rules import api
    from nemesis_rules.engine import compile as engine_compile

    monkeypatch.setenv("NEMESIS_CACHE_DIR", "off")
    eager = load_ruleset(TOY)
    monkeypatch.setattr(api, "build_program", functools.partial(engine_compile.build_program, lazy=True))
    lazy = load_ruleset(TOY)
    before = len(lazy.program.compiled)  # what the build itself runs (constant `case` patterns)
    assert before < len(eager.program.compiled) / 10
    for seed in range(3):
        games = [Game.new(rules, players=2, seed=seed) for rules in (eager, lazy)]
        rnd = random.Random(seed)
        while not games[0].over:
            pick = rnd.randrange(len(games[0].decision.options))
            for game in games:
                game.apply(pick)
            assert games[1].state == games[0].state
        assert games[1].to_json() == games[0].to_json()
    assert len(lazy.program.compiled) > before


STRAIGHT_SCRIPT = """proc main():
    let p = player_at(0)
    log("sum", n=twice(3))
    finish(p)
    log("after_the_end")

proc twice(n):
    let total = 0
    for i in [n, n]:
        total = add(total, i)
    return total

proc add(a, b):
    return a + b

proc finish(p):
    end_game("done", [p])
    log("not_reached")

proc asks(p):
    return choose(p, [1, 2])

proc again(n):
    if n > 0:
        again(n - 1)
"""


def test_procedures_that_never_wait_run_without_a_frame(tmp_path: Path) -> None:
    """straight.py: `twice`, `add`, `finish` are straight; a decision, a call to a procedure that
    decides and recursion are not. A straight step that ends the game ends the run there."""
    rules = load_ruleset(_module(tmp_path, STRAIGHT_SCRIPT))
    straight = {name for name, code in rules.program.procs.items() if code.straight is not None}
    assert {"twice", "add", "finish"} <= straight and not {"asks", "again"} & straight
    assert "main" in straight  # it calls only straight procedures (the interpreter still runs it, the entry)
    game = Game.new(rules, players=1)
    assert [e["msg"] for e in game.log] == ["sum"] and game.log[0]["args"] == {"n": 6}
    assert game.over and game.result == {"reason": "done", "winners": (0,)}


def test_a_game_ended_in_a_straight_procedures_let_stops_where_its_return_would(tmp_path: Path) -> None:
    script = ("proc main():\n    let p = player_at(0)\n    stop(p)\n    log(\"after\")\n\n"
              "proc stop(p):\n    let x = end_game(\"done\", [p])\n    let y = 1\n")
    rules = load_ruleset(_module(tmp_path, script))
    assert rules.program.procs["stop"].straight is not None
    game = Game.new(rules, players=1)
    assert game.over and game.log == []


@pytest.mark.parametrize("callee, line, message", [
    ("proc spin():\n    let n = 0\n    while true:\n        n += 1\n", 12, "units of work"),
    ("proc spin():\n    let n = 0\n    n = n + \"x\"\n", 11, "cannot combine"),
])
def test_a_fault_in_a_straight_procedure_names_its_own_line(tmp_path: Path, callee, line, message) -> None:
    script = ("proc main():\n    let p = player_at(0)\n    outer()\n    end_game(\"done\", [])\n\n"
              "proc outer():\n    spin()\n\n" + callee)
    rules = load_ruleset(_module(tmp_path, script))
    assert rules.program.procs["spin"].straight is not None
    with pytest.raises(RulesError, match=message) as err:
        Game.new(rules, players=1)
    assert f":{line}:" in str(err.value) and "(in `spin`)" in str(err.value)


def test_a_game_the_rules_broke_has_no_save_and_its_copy_stays_broken(tmp_path: Path) -> None:
    """The rules failing mid-run leave the game inside a step: no save could be loaded again
    (the fuzz run found one written anyway), so to_json refuses, and a clone is as broken."""
    script = "proc main():\n    let p = player_at(0)\n    let x = choose(p, [1, 2])\n    let y = x + \"a\"\n"
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    with pytest.raises(RulesError, match="cannot combine"):
        game.apply(0)
    for broken in (game, game.clone()):
        with pytest.raises(RulesError, match="a game the rules broke cannot be saved: .*cannot combine"):
            broken.to_json()
        with pytest.raises(RulesError, match="cannot combine"):
            broken.apply(0)


DIRECT_SCRIPT = """event ping(p, n)

proc main():
    let p = player_at(0)
    let r = outer(p)
    log("outer", r=r)
    end_game("done", [p])

proc outer(p):
    let x = 5
    emit ping(p, x)
    let y = inner(p)
    return x + y

proc inner(p):
    return choose(p, [10, 20])

on ping(p, n):
    log("first", n=n)

on ping(p, n):
    let c = choose(p, [1, 2])
    log("second", c=c)

on ping(p, n):
    log("third", n=n)
"""


def test_a_called_procedure_suspends_with_the_frames_the_step_loop_would_have_made(tmp_path: Path) -> None:
    """straight.py: `outer` runs as a function, its event's handlers too; the second handler's
    decision leaves main at its call, outer after its event, the third handler not yet begun and
    the second at its choose, as stepping would have. Saved and loaded there, the game goes on
    through the third handler, outer's own decision and back to main alike."""
    rules = load_ruleset(_module(tmp_path, DIRECT_SCRIPT))
    procs = rules.program.procs
    assert procs["outer"].direct is not None and procs["outer"].straight is None
    game = Game.new(rules, players=1)
    stack = game.state.stack
    assert [f[0] for f in stack] == ["main", "outer", "on:ping#2", "on:ping#1"]
    assert [f[3] for f in stack] == [0, 1, 0, 0]  # outer returns to main; handlers return nothing
    main_call = next(i for i, op in enumerate(procs["main"].ops) if op[0] == CALL)
    emit_at = next(i for i, op in enumerate(procs["outer"].ops) if op[0] == EMIT)
    choose_at = next(i for i, op in enumerate(procs["on:ping#1"].ops) if op[0] == CHOOSE)
    assert [f[1] for f in stack] == [main_call, emit_at + 1, 0, choose_at]
    assert stack[2][2][:2] == ["player1", 5] and stack[1][2][1] == 5  # the handler's arguments, outer's x
    assert [e["msg"] for e in game.log] == ["first"]
    for twin in (game, Game.from_json(rules, game.to_json())):
        twin.apply(1)
        assert [e["msg"] for e in twin.log] == ["first", "second", "third"]
        assert [f[0] for f in twin.state.stack] == ["main", "outer", "inner"]
        twin.apply(1)
        assert twin.log[-1]["args"] == {"r": 25} and twin.result == {"reason": "done", "winners": (0,)}


def test_a_handler_that_ends_the_game_stops_the_event_and_its_caller(tmp_path: Path) -> None:
    """vm.emit: the handlers after the one that ended the game do not run, nor does the rest of
    the procedure that announced the event, called as a function or stepped by the interpreter."""
    script = ("event ping(p)\n\nproc main():\n    let p = player_at(0)\n    announce(p)\n    log(\"main_goes_on\")\n\n"
              "proc announce(p):\n    emit ping(p)\n    log(\"announce_goes_on\")\n\n"
              "on ping(p):\n    log(\"first\")\n\non ping(p):\n    end_game(\"done\", [p])\n\n"
              "on ping(p):\n    log(\"third\")\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert [e["msg"] for e in game.log] == ["first"] and game.result == {"reason": "done", "winners": (0,)}


def test_procedures_nested_too_deep_stop_at_the_call_in_either_form(tmp_path: Path) -> None:
    """Frames on the stack and procedures running as functions count together: a recursion that
    decides on its way down stops at the limit as one that never decides does."""
    script = ("proc main():\n    let p = player_at(0)\n    dive(p, 0)\n\n"
              "proc dive(p, n):\n    if n % 50 == 49:\n        let c = choose(p, [1, 2])\n    dive(p, n + 1)\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    with pytest.raises(RulesError, match="nested deeper than 200") as err:
        while not game.over:
            game.apply(0)
    assert ":8:" in str(err.value)
    assert len(game.state.stack) + 1 <= 200


def test_an_action_is_available_when_its_domain_has_an_item_even_a_falsy_one(tmp_path: Path) -> None:
    """compile.py `_any_source`: availability stops at a domain's first item, and a first item
    of 0 or none still counts; an empty domain does not."""
    script = ("fn zeros(p) = [x for x in [0, 1] if x < 1]\nfn nones(p) = [x for x in [none] if true]\n"
              "fn empty(p) = [x for x in [1, 2] if x > 5]\n"
              "action pick_zero(who, n in zeros(who)):\n    log(\"zero\", n=n)\n"
              "action pick_none(who, n in nones(who)):\n    log(\"none\")\n"
              "action pick_empty(who, n in empty(who)):\n    log(\"empty\")\n"
              "proc main():\n    let p = player_at(0)\n    let a = choose(p, actions(p))\n    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert [o.value for o in game.decision.options] == ["pick_zero", "pick_none"]


@pytest.mark.parametrize("op, n", [(">", 0), ("!=", 0), (">=", 1), ("==", 0), ("<", 1), ("<=", 0), (">", 1)])
def test_count_of_a_comprehension_function_compared_with_zero(tmp_path: Path, op: str, n: int) -> None:
    """codegen `src_Compare`: `count(f(...)) > 0` and its kin stop at f's first item (f's `_any`
    twin) and answer as the whole count would, remembered or not; other comparisons count."""
    script = (f"fn small(p, k) = [x for x in [0, 1, 2] if x < k]\n"
              f"fn test(p, k) = count(small(p, k)) {op} {n}\n"
              "proc main():\n    let p = player_at(0)\n"
              "    log(\"fresh\", a=test(p, 0), b=test(p, 1), c=test(p, 3))\n"
              "    log(\"kept\", a=count(small(p, 0)), b=count(small(p, 1)), c=count(small(p, 3)))\n"
              "    log(\"again\", a=test(p, 0), b=test(p, 1), c=test(p, 3))\n    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    compare = {">": int.__gt__, "!=": int.__ne__, ">=": int.__ge__, "==": int.__eq__, "<": int.__lt__,
               "<=": int.__le__}[op]
    want = {"a": compare(0, n), "b": compare(1, n), "c": compare(3, n)}
    assert [e["args"] for e in game.log] == [want, {"a": 0, "b": 1, "c": 3}, want]


def test_available_agrees_with_actions_on_the_printed_board() -> None:
    """For every player and every declared action, at the decisions of random base games: the one
    action's generated test, and the closures it falls back on, answer as `actions()` does."""
    from nemesis_rules.engine import vm
    from nemesis_rules.engine.compile import _allowed_closure

    rules = load_ruleset("base")
    program = rules.program
    checked = 0
    for seed in range(2):
        game, rng = Game.new(rules, players=4, seed=seed), random.Random(seed)
        while not game.over:
            if game.move_count % 7 == 0:
                rt = vm.Runtime(program, game._state.clone())
                for p in program.player_ids[:4]:
                    offered = rt.available_actions(p)
                    for info in program.actions:
                        fallback = _allowed_closure(info.available, info.cost)(rt, p)
                        assert rt.action_available(info.name, p) is fallback is (info.name in offered)
                        checked += 1
                    whole, program.available_actions = program.available_actions, None
                    try:  # the list without its generated function: each action's own test in turn
                        assert rt.available_actions(p) == offered
                    finally:
                        program.available_actions = whole
            game.apply(rng.randrange(len(game.decision.options)))
    assert checked > 1000


def test_a_decision_inside_a_call_waits_for_the_player(tmp_path: Path) -> None:
    script = ("proc main():\n    let p = player_at(0)\n    log(\"picked\", what=choose(p, [1, 2, 3]))\n"
              "    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert [o.value for o in game.decision.options] == [1, 2, 3]
    game.apply(2)
    assert game.log[0]["args"] == {"what": 3} and game.over


def test_a_public_entity_is_seen_in_a_zone_only_its_owner_sees(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=0)
    card = game.state.zones["hand@player2"][0]
    assert card not in game.view(0)["entities"]
    game.state.public.append(card)  # what make_public(card) does
    view = game.view(0)
    assert view["zones"]["hand@player2"] == {"size": 2, "public": [card]} and card in view["entities"]
    assert Game.from_json(toy_rules, game.to_json()).state == game.state


def test_names_that_are_python_keywords_are_plain_names(tmp_path: Path) -> None:
    script = ("proc main():\n    let True = [1, 2]\n    let lambda = [x * 2 for x in True if x > 1]\n"
              "    log(\"m\", class=lambda, None=True)\n    end_game(\"done\", [])\n")
    game = Game.new(load_ruleset(_module(tmp_path, script)), players=1)
    assert game.log[0]["args"] == {"class": (4,), "None": (1, 2)}


def test_a_peeked_entity_shows_where_it_lies_to_that_player_only(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=0)
    rt = game._runtime
    second = game.state.zones["deck"][1]
    primitives.peek(rt, "player1", second)
    seen = game.view(0)["zones"]["deck"]
    assert seen["known"] == {second: 1} and second in game.view(0)["entities"]
    assert "known" not in game.view(1)["zones"]["deck"] and second not in game.view(1)["entities"]
    assert Game.from_json(toy_rules, game.to_json()).state == game.state
    members = seen_state(toy_rules.program, game.view(0), toy_rules.fingerprint).zones["deck"]
    assert members[1] == second and all(m.startswith("?") for i, m in enumerate(members) if i != 1)
    primitives.shuffle(rt, "deck")                     # lost in the shuffle
    assert "known" not in game.view(0)["zones"]["deck"] and game.state.known == {}
    primitives.peek(rt, "player2", second)
    rt.move(second, "deck")                            # moved: nobody has looked at it where it is now
    assert game.state.known == {}


@pytest.mark.parametrize("seed", [1, 2])
def test_ask_forced_shows_single_option_choices_and_changes_nothing_else(seed) -> None:
    rules = load_ruleset("base")   # base has one-option choices
    plain = Game.new(rules, players=2, seed=seed)
    asking = Game.new(rules, players=2, seed=seed, ask_forced=True)
    singles = 0
    while not plain.over:
        d = asking.decision
        if len(d.options) == 1 and len(plain.decision.options) > 1 or d.prompt != plain.decision.prompt:
            assert len(d.options) == 1
            singles += 1
            asking.apply(0)
            continue
        plain.apply(0)
        asking.apply(0)
    while not asking.over and len(asking.decision.options) == 1:   # forced choices after the last one
        singles += 1
        asking.apply(0)
    assert asking.over and singles > 0
    assert asking.result == plain.result and asking.state.log == plain.state.log
    assert Game.from_json(rules, asking.to_json()).state == asking.state


# `choose` (any call that waits) anywhere in an expression: hoisted into a step of its own
CHOOSE_ANYWHERE = [
    ("proc g(a, b):\n    log(\"r\", v=a + b)\nproc main():\n    g(1, choose(P, [1, 2]))\n", [1], 3),
    ("fn f(a, b) = a * b\nproc main():\n    log(\"r\", v=f(3, choose(P, [1, 2])))\n", [1], 6),
    ("proc main():\n    log(\"r\", v=[0, choose(P, [1, 2]), 5 - choose(P, [3, 4])])\n", [0, 1], (0, 1, 1)),
    ("proc main():\n    log(\"r\", v=[choose(P, [x, 10 * x]) for x in [1, 2, 3] if x != 2])\n", [1, 0],
     (10, 3)),
    ("proc main():\n    let x = 7\n    let ys = [x + choose(P, [0, x]) for x in [1, 2]]\n    log(\"r\", v=[x, ys])\n",
     [1, 0], (7, (2, 2))),
    ("proc main():\n    log(\"r\", v=[y for y in [1, 2, 3] if choose(P, [true, false])])\n", [1, 0, 0],
     (2, 3)),
    ("proc main():\n    log(\"r\", v=[[choose(P, [a, b]) for b in [3, 4]] for a in [1, 2]])\n", [1, 0, 0, 1],
     ((3, 1), (2, 4))),
    ("proc main():\n    P.score += choose(P, [1, 2])\n    choose(P, [P]).score += 10\n    log(\"r\", v=P.score)\n",
     [1], 12),  # a choice of one option is taken without asking
    ("proc main():\n    choose(P, [gem]).effect(P, choose(P, [1, 5]))\n    log(\"r\", v=P.score)\n", [1], 5),
    ("proc main():\n    log(\"r\", v=choose(P, [1, 2]) if false else choose(P, [3, 4]))\n", [0], 3),
]


@pytest.mark.parametrize("script, answers, value", CHOOSE_ANYWHERE)
def test_choose_anywhere_in_an_expression_waits_and_resumes(tmp_path: Path, script: str, answers, value) -> None:
    folder = _module(tmp_path, script.replace("proc main():\n", "proc main():\n    let P = player_at(0)\n")
                     + "    end_game(\"done\", [])\n")
    (folder / "things.yaml").write_text(
        "kinds:\n  player: {props: {score: int}, defaults: {score: 0}}\n"
        "  gem: {scripts: {effect: [who, n]}}\n"
        "components:\n  - id: gem\n    kind: gem\n    effect: |\n      who.score += n\n")
    game = Game.new(load_ruleset(folder), players=1)
    rules = game.rules
    for answer in answers:
        game = Game.from_json(rules, game.to_json())  # the place inside the expression is data
        game.apply(answer)
    assert game.over and game.log[-1]["args"] == {"v": value}


def test_a_made_entity_never_takes_a_starting_copys_id(tmp_path: Path) -> None:
    """issue #39 point 5: `create` named its entity `gem#1`, the starting copy's id, and replaced it."""
    folder = _module(tmp_path, """
        proc main():
            let made = create(gem, pile)
            log("made", what=made)
            let p = player_at(0)
            let x = choose(p, [1, 2])
        """, name="maker")
    (folder / "parts.yaml").write_text(
        "kinds:\n  card: {}\nzones:\n  pile: {visibility: public}\n"
        "components:\n  - {id: gem, kind: card, zone: pile, count: 2}\n")
    game = Game.new(load_ruleset(folder), players=1)
    pile = game.state.zones["pile"]
    assert len(pile) == 3 and len(set(pile)) == 3 and {"gem#1", "gem#2"} <= set(pile)
    assert Game.from_json(game.rules, game.to_json()).state == game.state  # the game's own save loads


def test_a_component_with_a_players_id_is_refused(tmp_path: Path) -> None:
    folder = _module(tmp_path, "proc main():\n    let n = 1\n", name="squatter")
    (folder / "parts.yaml").write_text("kinds:\n  card: {}\ncomponents:\n  - {id: player1, kind: card}\n")
    with pytest.raises(RulesError, match="player's id"):
        load_ruleset(folder)

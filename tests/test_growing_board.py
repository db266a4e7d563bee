"""A board that grows in play (`connect`, `disconnect`: engine/primitives.py) on a toy that is not
Nemesis (tests/fixtures/explorer): rooms are laid from a hidden pile and joined by passages as
players explore. Every graph read sees the laid links; they are state like any other: cloned,
saved, checked on load, replayed, shown only with what they join."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_memo import _play_both_ways

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.engine import primitives, view
from nemesis_rules.engine.state import E_KIND, E_ZONE
from nemesis_rules.scenario import run_file

EXPLORER = str(Path(__file__).parent / "fixtures" / "explorer")


@pytest.fixture(scope="module")
def rules():
    return load_ruleset(EXPLORER)


def _played(rules, seed: int, moves: int, players: int = 2) -> Game:
    game = Game.new(rules, players=players, seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rnd.randrange(len(game.decision)))
    return game


def _explored(rules) -> Game:
    """A game where player 1 has laid a cave (edge 1 of the camp) and player 2 is to act."""
    game = Game.new(rules, players=2, seed=3)
    game.apply(_option(game, "explore"))
    game.apply(_option(game, 1))
    return game


def _option(game: Game, value) -> int:
    return next(o.index for o in game.decision.options if o.value == value)


def _connect(rt, a, b, link, label_a=None, label_b=None):
    return primitives.REGISTRY["connect"].impl(rt, a, b, link, label_a, label_b)


def _disconnect(rt, link):
    primitives.REGISTRY["disconnect"].impl(rt, link)


def _graph_reads(game: Game) -> dict:
    """What every graph read says at each entity (links, neighbours, ends, labels)."""
    rt = game._runtime
    rt.fresh()
    out = {}
    for eid in dict(game._state.entities):
        links = primitives.GROWN["links"](rt, eid)
        out[eid] = (links, primitives.GROWN["neighbors"](rt, eid),
                    [(primitives.GROWN["ends"](rt, x), primitives.GROWN["label_at"](rt, x, eid)) for x in links])
    return out


def test_only_rules_that_lay_links_read_the_grown_graph(rules):
    assert rules.program.grows
    assert not load_ruleset(str(Path(__file__).parent / "fixtures" / "toy")).program.grows
    assert rules.program.ns["_p_neighbors"] is primitives.GROWN["neighbors"]


@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40))
def test_the_graph_is_what_was_laid(rules, seed, moves):
    game = _played(rules, seed, moves)
    state = game._state
    laid = {row[0]: row for row in state.links}
    for link, a, b, label_a, label_b in state.links:
        for end in (link, a, b):
            assert end in state.entities
        assert state.entities[link][E_KIND] == "passage" and state.entities[link][E_ZONE] == "passages"
        assert {state.entities[a][E_ZONE], state.entities[b][E_ZONE]} == {"map"}
        assert (label_b - label_a) % 4 == 2
    # each room's links are the laid ones that touch it, by their label there
    for eid, (links, neighbors, ends) in _graph_reads(game).items():
        touching = [row for row in state.links if eid in row[1:3]]
        assert sorted(links) == sorted(row[0] for row in touching)
        assert [label for _, label in ends] == sorted(label for _, label in ends)
        assert all(laid[x][1:3] == e for x, (e, _) in zip(links, ends, strict=True))
        assert len(neighbors) == len(links)
    assert sum(1 for e in state.entities.values() if e[E_ZONE] == "passages") == len(state.links)


@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40))
def test_save_load_and_clone_mid_game_change_nothing(rules, seed, moves):
    game = _played(rules, seed, moves)
    twin = game.clone()
    copies = [twin, Game.from_json(rules, game._state.to_json())]  # the clone, the full form
    for verify in ("digest", "replay"):  # the compact save
        copies.append(Game.from_json(rules, game.to_json(), verify=verify))
    for other in copies:
        assert other._state == game._state and _graph_reads(other) == _graph_reads(game)
    before = game._state.to_json()
    _finish(twin, random.Random(seed))
    assert game._state.to_json() == before  # a clone playing on leaves its source as it was
    for other in (game, *copies[1:]):
        _finish(other, random.Random(seed))
        assert other._state == twin._state


def _finish(game: Game, rnd: random.Random) -> None:
    while not game.over:
        game.apply(rnd.randrange(len(game.decision)))


_PLAY = """
import random, sys
from nemesis_rules import Game, load_ruleset
rules = load_ruleset(sys.argv[1])
for seed in range(8):
    game = Game.new(rules, players=1 + seed % 3, seed=seed)
    rnd = random.Random(seed)
    while not game.over:
        game.apply(rnd.randrange(len(game.decision)))
    print(game.state.links, game.to_json())
"""


def test_same_seed_same_board_in_any_process():
    boards = [subprocess.run([sys.executable, "-c", _PLAY, EXPLORER], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).parent.parent, env=dict(os.environ, PYTHONHASHSEED=h)).stdout
              for h in ("1", "4242")]
    assert boards[0] == boards[1] and boards[0].count("rope#") >= 8


def test_kept_function_results_follow_the_growing_graph(rules):
    for seed in range(6):
        _play_both_ways(rules, 2, seed, random.Random(seed))


def test_a_kept_result_is_forgotten_when_a_link_is_laid(rules):
    game = Game.new(rules, players=1, seed=3)
    rt = game._runtime
    exits = rules.program.fns["exits"]
    rt.exposed = False  # keep results between reads, as a game does between its moves
    rt.fresh()
    assert exits(rt, ["camp"]) == ()
    _connect(rt, "camp", "cave#1", "rope#1", 0, 2)
    assert exits(rt, ["camp"]) == ("cave#1",)
    _disconnect(rt, "rope#1")
    assert exits(rt, ["camp"]) == ()


# ---- bad moves and bad saves ----
@pytest.mark.parametrize("args,needle", [
    (("camp", "cave#1", "cave#2"), "not of a link kind"),
    (("camp", "nowhere", "rope#1"), "'nowhere' is not an entity"),
    (("camp", "camp", "rope#1"), "two other entities"),
    (("camp", "cave#1", "rope#1", True), "a link's label is a number"),
    (("camp", "cave#1", "rope#1", (1, "x")), "a link's label is a number"),
])
def test_a_bad_link_is_refused_with_a_clear_error(rules, args, needle):
    game = Game.new(rules, players=1, seed=3)
    with pytest.raises(primitives.ScriptError, match=needle):
        _connect(game._runtime, *args)
    assert game._state.links == ()


def test_a_link_is_laid_once_and_a_label_used_once_per_end(rules):
    rt = Game.new(rules, players=1, seed=3)._runtime
    _connect(rt, "camp", "cave#1", "rope#1", 0, 2)
    with pytest.raises(primitives.ScriptError, match="laid already"):
        _connect(rt, "camp", "cave#2", "rope#1", 1, 3)
    with pytest.raises(primitives.ScriptError, match="camp already has the link rope#1 labelled 0"):
        _connect(rt, "camp", "cave#2", "rope#2", 0, 2)
    with pytest.raises(primitives.ScriptError, match="not a link laid in play"):
        _disconnect(rt, "rope#2")
    assert rt.state.links == (("rope#1", "camp", "cave#1", 0, 2),)


def test_a_printed_link_cannot_be_lifted():
    toy = load_ruleset(str(Path(__file__).parent / "fixtures" / "toy"))
    game = Game.new(toy, players=1, seed=0)
    link = next(iter(toy.program.graph.ends))
    with pytest.raises(primitives.ScriptError, match="printed link"):
        _disconnect(game._runtime, link)


def _tampered(game: Game, edit) -> str:
    data = json.loads(game.to_json())
    del data["_digest"]
    edit(data)
    return json.dumps(data)


@pytest.mark.parametrize("edit,needle", [
    (lambda d: d["links"][0].__setitem__(1, "nowhere"), r"links\[0\]: 'nowhere' is not an entity"),
    (lambda d: d["links"][0].__setitem__(0, "cave#2"), r"links\[0\]: cave#2 is a room, not of a link kind"),
    (lambda d: d["links"].append(list(d["links"][0])), r"links\[1\]: rope#\d is laid already"),
    (lambda d: d["links"].append(["rope#5", d["links"][0][1], "cave#4", d["links"][0][3], 0]),
     r"links\[1\]: \S+ already has the link"),
    (lambda d: d["links"][0].__setitem__(3, [1.5]), r"links\[0\]"),
    (lambda d: d["links"][0].pop(), r"links\[0\]: expected \[link, a, b"),
    (lambda d: d.__setitem__("links", []), "written only when a link is laid"),
    (lambda d: d.__setitem__("links", {"rope#1": 1}), "expected a list of links"),
])
def test_a_forged_link_in_a_save_is_refused(rules, edit, needle):
    game = _explored(rules)
    assert game._state.links
    with pytest.raises(RulesError, match=needle):
        Game.from_json(rules, _tampered(game, edit), verify="structure")


def test_links_in_a_save_of_rules_that_lay_none_are_refused():
    toy = load_ruleset(str(Path(__file__).parent / "fixtures" / "toy"))
    data = json.loads(Game.new(toy, players=2, seed=0).to_json())
    del data["_digest"]
    data["links"] = [["gem#1", "gem#2", "gem#3", None, None]]
    with pytest.raises(RulesError, match="these rules never lay a link in play"):
        Game.from_json(toy, json.dumps(data), verify="structure")


def test_a_forged_link_fails_the_replay_too(rules):
    game = _explored(rules)
    data = json.loads(game.to_json())
    data["links"][0][3] = 0  # laid by edge 1, claimed by edge 0
    body = json.dumps(data)
    with pytest.raises(RulesError):
        Game.from_json(rules, body, verify="replay")
    with pytest.raises(RulesError):
        Game.from_json(rules, body)  # its seal no longer matches


def test_saves_of_a_board_that_never_grew_have_no_links_field(rules):
    game = Game.new(rules, players=2, seed=1)
    assert '"links"' not in game._state.to_json() and '"links"' not in game.to_json()
    assert Game.from_json(rules, game._state.to_json())._state.links == ()


@pytest.mark.parametrize("row,needle", [
    ("[camp, nowhere]", "cannot lay rope#1: 'nowhere' is not an entity"),
    ("[camp]", "link rope#1: write `[a, b]` or `[a, b, label at a, label at b]`, got [camp]"),
    ("[camp, cave#1, [1, x]]", "cannot lay rope#1: a link's label is a number"),
])
def test_a_scenario_lays_links_as_connect_does(tmp_path, row, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(f"modules: [{EXPLORER}]\nplayers: 1\nposition:\n  links:\n    rope#1: {row}\n"
                    "expect: [{over: false}]\n", encoding="utf-8")
    report = run_file(path)
    assert report.status == "ERROR" and report.error.startswith(f"{path}:5: ") and needle in report.error


# ---- what each seat sees ----
def test_a_link_shows_with_what_it_joins(rules):
    game = _explored(rules)
    (link, a, b, label_a, label_b), = game._state.links
    shown = game.view(1)
    assert shown["links"] == [[link, a, b, label_a, label_b]]
    assert {link, a, b} <= set(shown["entities"])
    # a link to a tile still in the hidden pile is hidden with the tile
    hidden = game._state.zones["tiles"][0]
    _connect(game._runtime, "camp", hidden, "rope#5", 3, 1)
    assert [row[0] for row in game.view(0)["links"]] == [link]
    assert hidden not in game.view(0)["entities"]
    for seen in (view.seen_state_of(rules.program, game._state, 0), view.LazySeenState(rules.program, game._state, 0)):
        assert [row[0] for row in seen.links] == [link]


@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40))
def test_a_seat_reads_the_links_its_view_shows(rules, seed, moves):
    game = _played(rules, seed, moves)
    program, state = rules.program, game._state
    for seat in (0, 1, None):
        shown = tuple(map(tuple, view.view(program, state, seat).get("links", ())))
        assert shown == state.links  # every room lies in the public map, every rope in `passages`
        assert view.seen_state(program, view.view(program, state, seat), state.ruleset).links == shown
        assert view.seen_state_of(program, state, seat).links == shown
        assert view.LazySeenState(program, state, seat).links == shown


def test_no_links_key_in_the_view_of_a_board_that_never_grew(rules):
    assert "links" not in Game.new(rules, players=2, seed=1).view(0)

"""A clone shares what it can with its source (copy on access, state.py `Records`), so every way
the engine or a test changes a state must leave the other side as it was, both ways round."""

from __future__ import annotations

import operator
import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nemesis_rules import Game, load_ruleset
from nemesis_rules.engine import primitives as prim
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE, canonical_json


def _midgame(rules, seed: int, moves: int) -> Game:
    game = Game.new(rules, players=3, seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rnd.randrange(len(game.decision.options)))
    return game


def _text(game: Game) -> str:
    return canonical_json(game.state.to_dict())


def _entity(game: Game, rnd: random.Random) -> str:
    return rnd.choice(list(game.state.entities))


def _zone(game: Game, rnd: random.Random) -> str:
    return rnd.choice(sorted(game.state.zones))


def _settable(game: Game, rnd: random.Random) -> tuple[str, str] | None:
    defaults = game.rules.program.kind_defaults
    pairs = [(e, p) for e in game.state.entities for p in defaults.get(game.state.entities[e][E_KIND], ())]
    return rnd.choice(pairs) if pairs else None


def _set_attr(game, rnd):
    if pair := _settable(game, rnd):
        game._runtime.set_attr(*pair, rnd.randrange(5))


def _raw_prop(game, rnd):
    game.state.entities[_entity(game, rnd)][E_PROPS]["x"] = rnd.randrange(5)


def _get_prop(game, rnd):
    game.state.entities.get(_entity(game, rnd))[E_PROPS].clear()


def _every_entity(game, rnd):
    for ent in game.state.entities.values():
        ent[E_FACE] = not ent[E_FACE]


def _every_item(game, rnd):
    for _, ent in game.state.entities.items():
        ent[E_PROPS]["y"] = 1


def _move(game, rnd):
    game._runtime.move(_entity(game, rnd), _zone(game, rnd), rnd.random() < 0.5)


def _raw_move(game, rnd):
    eid, zone = _entity(game, rnd), _zone(game, rnd)
    ent = game.state.entities[eid]
    if ent[E_ZONE] is not None:
        game.state.zones[ent[E_ZONE]].remove(eid)
    game.state.zones[zone].insert(0, eid)
    ent[E_ZONE] = zone


def _zone_edits(game, rnd):
    zones = game.state.zones
    zones.get(_zone(game, rnd)).reverse()
    zones.setdefault(_zone(game, rnd), []).append("nobody")
    for members in zones.values():
        members.append("nobody")
    for _, members in zones.items():
        members.sort()


def _pop(game, rnd):
    game.state.zones.pop(_zone(game, rnd)).append("gone")
    game.state.entities.pop(_entity(game, rnd))[E_FACE] = None


def _create(game, rnd):
    comp = rnd.choice(sorted(game.rules.program.templates))
    game._runtime.create(comp, _zone(game, rnd))


def _face(game, rnd):
    (prim.reveal if rnd.random() < 0.5 else prim.conceal)(game._runtime, _entity(game, rnd))


def _marks(game, rnd):
    rt, eid = game._runtime, _entity(game, rnd)
    prim.make_public(rt, eid)
    prim.peek(rt, rnd.choice(game.rules.program.player_ids[: game.state.players]), eid)
    if rnd.random() < 0.5:
        prim.make_private(rt, eid)


def _shuffle(game, rnd):
    prim.shuffle(game._runtime, _zone(game, rnd))


def _counter(game, rnd):
    name = rnd.choice(sorted(game.state.counters))
    lo, hi, _, _ = game.rules.program.counters[name]
    game._runtime.set_counter(name, rnd.randint(lo, hi))


def _log_and_rng(game, rnd):
    game._runtime.add_log("edited", None, {"n": rnd.randrange(9)})
    game._runtime.below(6)


def _play(game, rnd):
    if not game.over:
        game.apply(rnd.randrange(len(game.decision.options)))


def _frames(game, rnd):
    if game.state.stack:
        frame = game.state.stack[-1]
        frame[1] += 1
        if frame[2]:
            frame[2][0] = "edited"
    game.state.forced.append(1)
    game.state.moves.append(0)
    game.state.known.setdefault(_entity(game, rnd), []).append(0)


MUTATIONS = [_set_attr, _raw_prop, _get_prop, _every_entity, _every_item, _move, _raw_move, _zone_edits,
             _pop, _create, _face, _marks, _shuffle, _counter, _log_and_rng, _play, _frames]


@given(seed=st.integers(0, 500), moves=st.integers(0, 8), data=st.data())
def test_a_clone_and_its_source_never_see_each_others_edits(toy_rules, seed, moves, data) -> None:
    source = _midgame(toy_rules, seed, moves)
    clone = source.clone()
    third = clone.clone() if data.draw(st.booleans()) else None  # a clone of a clone shares too
    edited, kept = data.draw(st.sampled_from([(source, clone), (clone, source)]))
    before = _text(kept)
    third_before = third and _text(third)
    rnd = random.Random(seed)
    for mutate in data.draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=6)):
        try:
            mutate(edited, rnd)
        except Exception:  # noqa: BLE001 (an edit the rules refuse still may not leak)
            pass
        assert _text(kept) == before, mutate.__name__
        if third is not None:
            assert _text(third) == third_before, mutate.__name__


def test_a_clone_plays_on_like_its_source(toy_rules) -> None:
    for seed in range(4):
        game = _midgame(toy_rules, seed, 5)
        twin = game.clone()
        assert twin.state == game.state
        rnd_a, rnd_b = random.Random(seed), random.Random(seed)
        while not game.over:
            game.apply(rnd_a.randrange(len(game.decision.options)))
            twin.apply(rnd_b.randrange(len(twin.decision.options)))
        assert twin.state == game.state and twin.to_json() == game.to_json()


def test_a_cloned_state_pickles_as_its_own_copy(toy_rules) -> None:
    game = _midgame(toy_rules, 3, 4)
    game.clone()
    copy = pickle.loads(pickle.dumps(game.state))
    assert copy == game.state
    eid = next(iter(copy.entities))
    copy.entities[eid][E_COMP] = "changed"
    assert game.state.entities[eid][E_COMP] != "changed"


@pytest.mark.parametrize("players", [1, 4, 5])
def test_a_new_game_is_placed_as_setup_places_each_component(players) -> None:
    """Game.new copies the setup layout (worked out once per player count) record by record: the
    same state as placing every component in turn, and nothing shared with the layout or another game."""
    from nemesis_rules.engine import savefmt
    from nemesis_rules.engine.state import GameState
    rules = load_ruleset("base")
    copied, placed = GameState(players, 0, {}, ""), GameState(players, 0, {}, "")
    savefmt.place_components(rules.program, copied)
    savefmt._place(rules.program, placed)
    assert copied == placed and copied.to_json() == placed.to_json()
    assert list(copied.entities) == list(placed.entities) and list(copied.zones) == list(placed.zones)
    one, two = Game.new(rules, players, seed=1, autostart=False), Game.new(rules, players, seed=1, autostart=False)
    for a, b in ((one.state, two.state), (one.state, savefmt.layout(rules.program, players))):
        records = dict.values(a.entities)
        others = b.records if isinstance(b, savefmt.Layout) else b.entities
        assert all(x is not y and x[2] is not y[2] for x, y in zip(records, dict.values(others), strict=True))


def test_what_a_seat_sees_of_a_clone_is_read_without_copying_its_records() -> None:
    """A bot reads its seat's view, seen state and visibility at every decision: on a cloned
    state (search bots clone at every node) those reads must leave the shared records shared."""
    from nemesis_rules.engine.view import seen_state_of, sees_entity, view
    rules = load_ruleset("base")
    game = _midgame(rules, 2, 40)
    st = game.clone().state
    records, lists = list(dict.values(st.entities)), list(dict.values(st.zones))
    for seat in (0, 1, None):
        seen = seen_state_of(rules.program, st, seat)
        assert seen.zones and seen.entities
        view(rules.program, st, seat)
        assert [sees_entity(rules.program, st, seat, e) for e in dict.keys(st.entities)].count(True) > 0
    assert not st.entities.owned and not st.zones.owned
    assert all(map(operator.is_, dict.values(st.entities), records))
    assert all(map(operator.is_, dict.values(st.zones), lists))

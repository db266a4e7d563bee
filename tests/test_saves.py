"""Saves are verified before they are trusted (issue 14): field checks, the integrity digest and
the replay check, with the issue's examples and generated edits and bit flips of real saves."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.cli import savefile
from nemesis_rules.cli.main import main
from nemesis_rules.engine import savefmt
from nemesis_rules.engine.state import DIGEST_KEY, canonical_json
from tests.conftest import TOY


def _midgame(rules, players: int = 3, seed: int = 5, moves: int = 6) -> Game:
    game = Game.new(rules, players=players, seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.over:
            break
        game.apply(rnd.randrange(len(game.decision.options)))
    assert not game.over
    return game


def _reseal(data: dict) -> str:
    """The text a forger who recomputes the digest would write."""
    data = {k: v for k, v in data.items() if k != DIGEST_KEY}
    body = canonical_json(data)
    return json.dumps({DIGEST_KEY: hashlib.sha256(body.encode()).hexdigest(), **data})


def _play_out(game: Game, seed: int) -> None:
    """Views for every seat and random moves to the end: only RulesError may stop it."""
    rnd = random.Random(seed)
    for _ in range(300):
        for seat in [None, *range(game.state.players)]:
            game.view(seat)
        if game.over:
            return
        if game.is_chance_node:  # an edited save may have turned explicit chance on
            game.apply_chance(rnd.choice(game.chance_outcomes())[0])
        else:
            game.apply(rnd.randrange(len(game.decision.options)))


def test_a_save_round_trips_in_every_mode(toy_rules) -> None:
    game = _midgame(toy_rules)
    text = game.to_json()
    assert json.loads(text)[DIGEST_KEY] and text == canonical_json(json.loads(text))
    for mode in ("digest", "structure", "replay"):
        assert Game.from_json(toy_rules, text, verify=mode).state == game.state


def test_an_explicit_chance_game_replays_its_chance_outcomes(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=4, explicit_chance=True)
    rnd = random.Random(1)
    for _ in range(30):
        if game.over:
            break
        if game.is_chance_node:
            game.apply_chance(rnd.choice(game.chance_outcomes())[0])
        else:
            game.apply(rnd.randrange(len(game.decision.options)))
    assert game.state.chances
    assert Game.from_json(toy_rules, game.to_json(), verify="replay").state == game.state


def _hand_swap(data: dict) -> bool:
    """The issue's example: another seat's hand card moved into mine (and, in the full form, its
    zone field fixed; the compact save has none: the zone that lists an entity is its zone)."""
    hands = [k for k, v in data["zones"].items() if k.startswith("hand@") and v]
    if len(hands) < 1:
        return False
    theirs = hands[0]
    mine = next(f"hand@player{i}" for i in range(1, 4) if f"hand@player{i}" != theirs)
    card = data["zones"][theirs].pop(0)
    data["zones"].setdefault(mine, []).append(card)
    if "entities" in data:
        next(e for e in data["entities"] if e[0] == card)[2] = mine
    return True


def _in_two_zones(data: dict) -> bool:
    first = next(iter(data["zones"]))
    other = next(z for z in ("deck", "discard", "bag") if z != first)
    entity = data["entities"][0][0] if "entities" in data else data["zones"][first][0]
    data["zones"].setdefault(other, []).append(entity)
    return True


EDITS = {
    "hand swap": _hand_swap,
    "forged result": lambda d: d.update(result={"reason": "won", "winners": [0]}, stack=[], pending=None) or True,
    "forged result mid-game": lambda d: d.update(result={"reason": "won", "winners": [0]}) or True,
    "no pending": lambda d: d.update(pending=None) or True,
    "empty stack": lambda d: d.update(stack=[]) or True,
    "counter out of bounds": lambda d: bool(d["counters"]) and d["counters"].update(
        {next(iter(d["counters"])): 10**6}) is None,
    "entity in two zones": _in_two_zones,
    "unknown entity in a zone": lambda d: d["zones"][next(iter(d["zones"]))].append(
        "ghost#1" if "entities" in d else 999) or True,
    "frame step past the end": lambda d: d["stack"][-1].__setitem__(1, 10**6) or True,
    "frame step moved": lambda d: d["stack"][-1].__setitem__(1, d["stack"][-1][1] - 1) or True,
    "pending options forged": lambda d: d["pending"].update(options=["x"]) or True,
    "pending player forged": lambda d: d["pending"].update(player=(d["pending"]["player"] + 1) % d["players"]) or True,
    "seat as a bool": lambda d: d["pending"].update(player=True) or True,
    "players out of range": lambda d: d.update(players=99) or True,
    "huge seed": lambda d: d.update(seed=10**30) or True,
    "unknown field": lambda d: d.update(cheat=1) or True,
    "winner seat out of range": lambda d: d.update(result={"reason": "won", "winners": [7]}, stack=[],
                                                  pending=None) or True,
    "value nested too deep": lambda d: d["forced"].append(json.loads("[" * 40 + "]" * 40)) or True,
}


def _number(data: dict, eid: str) -> int:
    """An entity's number in a compact save of the toy game (its place in the setup layout)."""
    return savefmt.layout(load_ruleset(TOY).program, data["players"]).index[eid]


COMPACT_EDITS = {  # the fields only the compact save has (engine/savefmt.py)
    "zone that does not exist": lambda d: d["zones"].update({"nowhere": [0]}) or True,
    "zone lists a string": lambda d: d["zones"].update(deck=["player1"]) or True,
    "entity still in its setup zone too": lambda d: "bag" not in d["zones"] and d["zones"]["discard"].append(
        _number(d, "gem#1")) is None,
    "face not increasing": lambda d: d.update(face=[3, 1]) or True,
    "face out of range": lambda d: d.update(face=[10**4]) or True,
    "props for a missing entity": lambda d: d["props"].append([10**4, {"pos": 1}]) or True,
    "props not an object": lambda d: d.update(props=[[0, [1]]]) or True,
    "a prop the kind lacks": lambda d: d["props"][0][1].update(wings=3) or True,
    "a float prop": lambda d: d["props"][0][1].update(pos=1.5) or True,
    "made with a bad id": lambda d: d.update(made=["gem"], next_id=1) or True,
    "made past next_id": lambda d: d.update(made=["gem#4"], next_id=1) or True,
    "full-form field in a compact save": lambda d: d.update(entities=[]) or True,
}
CONSISTENT = ("hand swap", "forged result")  # well formed: only the digest or the replay catch them


def _saves(game: Game) -> dict[str, str]:
    """The game as each save format writes it: compact (to_json) and the full form (format 2)."""
    return {"compact": game.to_json(), "full": game.state.to_json()}


@pytest.mark.parametrize("form", ["compact", "full"])
def test_both_formats_round_trip_in_every_mode(toy_rules, form: str) -> None:
    game = _midgame(toy_rules)
    text = _saves(game)[form]
    assert json.loads(text)["format"] == {"compact": 3, "full": 2}[form]
    for mode in ("digest", "structure", "replay"):
        loaded = Game.from_json(toy_rules, text, verify=mode)
        assert loaded.state == game.state and loaded.to_json() == game.to_json()


@pytest.mark.parametrize("name", sorted(COMPACT_EDITS))
def test_malformed_compact_fields_are_refused(toy_rules, name: str) -> None:
    data = json.loads(_midgame(toy_rules).to_json())
    assert COMPACT_EDITS[name](data)
    with pytest.raises(RulesError):
        Game.from_json(toy_rules, json.dumps(data))
    for mode in ("digest", "structure"):
        with pytest.raises(RulesError, match="bad save"):
            Game.from_json(toy_rules, _reseal(data), verify=mode)


@pytest.mark.parametrize("form", ["compact", "full"])
@pytest.mark.parametrize("name", sorted(set(EDITS) - set(CONSISTENT)))
def test_malformed_edits_are_refused_even_when_resealed(toy_rules, name: str, form: str) -> None:
    game = _midgame(toy_rules)
    data = json.loads(_saves(game)[form])
    assert EDITS[name](data)
    plain = json.dumps(data)
    for text, mode in ((plain, "digest"), (_reseal(data), "digest"), (_reseal(data), "replay")):
        with pytest.raises(RulesError):
            Game.from_json(toy_rules, text, verify=mode)


@pytest.mark.parametrize("form", ["compact", "full"])
@pytest.mark.parametrize("name", CONSISTENT)
def test_consistent_forgeries_need_the_digest_or_the_replay(toy_rules, name: str, form: str) -> None:
    data = json.loads(_saves(_midgame(toy_rules))[form])
    EDITS[name](data)
    Game.from_json(toy_rules, json.dumps(data), verify="structure")  # well formed, so structure passes
    with pytest.raises(RulesError, match="changed after it was written"):
        Game.from_json(toy_rules, json.dumps(data))
    with pytest.raises(RulesError, match="not the game its moves make"):
        Game.from_json(toy_rules, _reseal(data), verify="replay")


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000, "", "{}", "[1]", "null",
    b"\xff\xfe", '{"format": 2}', '{"format": 3}', '{"format": 3, "made": 5}', '{"format": 2, "seed": ' + "9" * 5000 + "}", 42,
])
def test_malformed_texts_are_refused_cleanly(toy_rules, text) -> None:
    with pytest.raises(RulesError):
        Game.from_json(toy_rules, text)


def test_a_save_without_a_digest_needs_another_mode(toy_rules) -> None:
    data = json.loads(_midgame(toy_rules).to_json())
    del data[DIGEST_KEY]
    with pytest.raises(RulesError, match="no integrity digest"):
        Game.from_json(toy_rules, json.dumps(data))
    assert Game.from_json(toy_rules, json.dumps(data), verify="replay")
    with pytest.raises(RulesError, match="verify must be"):
        Game.from_json(toy_rules, json.dumps(data), verify="none")


@pytest.fixture(scope="module")
def saved(toy_rules) -> tuple[Game, str]:
    game = _midgame(toy_rules, players=3, seed=11, moves=9)
    return game, game.to_json()


@given(data=st.data())
def test_bit_flips_are_refused_or_harmless(toy_rules, saved, data) -> None:
    game, text = saved
    raw = bytearray(text.encode())
    for _ in range(data.draw(st.integers(1, 3))):
        raw[data.draw(st.integers(0, len(raw) - 1))] ^= 1 << data.draw(st.integers(0, 7))
    try:
        loaded = Game.from_json(toy_rules, bytes(raw))
    except RulesError:
        return
    assert loaded.state == game.state


def _paths(value, path=()):
    """Every place in a JSON value, for random edits."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


REPLACEMENTS = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.sampled_from([2**70, -1, 10**6]),
                         st.text(max_size=4), st.sampled_from(["player0", "hand@player1", "deck", "main"]),
                         st.lists(st.integers(0, 3), max_size=3), st.just({}), st.floats(allow_nan=False))


@given(data=st.data())
def test_typed_edits_are_refused_or_leave_a_playable_game(toy_rules, saved, data) -> None:
    """Accepted without the digest (`structure`), an edited save must still never crash the engine;
    with the digest or the replay, an accepted save is the very state that was saved."""
    game, text = saved
    doc = json.loads(text)
    del doc[DIGEST_KEY]
    paths = [p for p in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = data.draw(REPLACEMENTS)
        except (KeyError, IndexError, TypeError):
            continue
    try:
        loaded = Game.from_json(toy_rules, json.dumps(doc), verify="structure")
    except RulesError:
        return
    try:
        _play_out(loaded, data.draw(st.integers(0, 99)))
    except RulesError:
        pass
    for mode in ("digest", "replay"):
        try:
            again = Game.from_json(toy_rules, _reseal(doc), verify=mode)
        except RulesError:
            continue
        # a replay takes the save's settings as given (options, explicit_chance, ask_forced) and
        # proves the history under them: turning a frontend's flag on in a save whose history it
        # did not touch is accepted, and that flag is then all that differs
        flags = {"explicit_chance": again.state.explicit_chance, "ask_forced": again.state.ask_forced}
        assert mode == "digest" or again.state == attrs.evolve(game.state, **flags)


# ---- save files (`nemesis replay`, `nemesis play --load`) ----
SAVE_EDITS = {
    "steps shorter than moves": lambda d: d["steps"].pop(),
    "modules not a list": lambda d: d.update(modules=5),
    "options not an object": lambda d: d.update(options=[1]),
    "option value a list": lambda d: d.update(options={"length": [1]}),
    "unknown option": lambda d: d.update(options={"nope": 1}),
    "players a string": lambda d: d.update(players="2"),
    "players out of range": lambda d: d.update(players=0),
    "huge seed": lambda d: d.update(seed=10**3000),
    "negative move": lambda d: d["moves"].append(-1) or d["steps"].append("0" * 16),
    "move past the options": lambda d: d["moves"].__setitem__(0, 99),
    "humans a string": lambda d: d.update(humans="x"),
    "final not a hash": lambda d: d.update(final=None),
    "lang not text": lambda d: d.update(lang=["en"]),
}


@pytest.mark.parametrize("name", sorted(SAVE_EDITS))
def test_malformed_save_files_end_cleanly(toy_rules, tmp_path, capsys, name: str) -> None:
    game = _midgame(toy_rules, players=2, seed=4, moves=5)
    path = tmp_path / "game.json"
    savefile.write_save(path, game, [str(TOY)], humans=1, bots="random")
    doc = json.loads(path.read_text())
    SAVE_EDITS[name](doc)
    doc["checksum"] = savefile.checksum(doc)
    path.write_text(json.dumps(doc))
    for argv in (["replay", str(path)], ["play", "--load", str(path)]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (1, 2) and "internal error" not in err + out and "Traceback" not in err


@pytest.mark.parametrize("text", ["[" * 100_000, "{\"format\": \"nemesis-save/1\", \"seed\": " + "9" * 5000 + "}"])
def test_hostile_save_texts_end_cleanly(tmp_path, capsys, text: str) -> None:
    path = tmp_path / "game.json"
    path.write_text(text)
    assert main(["replay", str(path)]) == 2
    assert "internal error" not in capsys.readouterr().err


def test_a_fifo_is_not_read_as_a_save(tmp_path, capsys) -> None:
    os.mkfifo(tmp_path / "p.json")
    assert main(["replay", str(tmp_path / "p.json")]) == 2
    assert "not a regular file" in capsys.readouterr().err



def test_a_save_reformatted_keeps_its_seal(toy_rules) -> None:
    game = _midgame(toy_rules)
    pretty = json.dumps(json.loads(game.to_json()), indent=2) + "\n"
    assert Game.from_json(toy_rules, pretty).state == game.state
    assert Game.from_json(toy_rules, game.to_json() + "\n").state == game.state


def test_integers_past_64_bits_round_trip(toy_rules) -> None:
    """orjson reads them as floats: the loader reads such a save again with json."""
    game = Game.new(toy_rules, players=2, seed=3)
    game.state.forced.append(1 << 70)
    game.state.log.append({"msg": "x", "args": {"n": -(1 << 80)}, "to": None})
    assert Game.from_json(toy_rules, game.to_json()).state == game.state
    assert Game.from_json(toy_rules, game.state.to_json()).state == game.state


def test_a_base_game_round_trips_at_every_decision() -> None:
    """The printed board, every decision (mid-procedure frames included): the compact save loads
    back to the same state and the same text, and is a fraction of the full form."""
    rules = load_ruleset("base")
    game = Game.new(rules, players=3, seed=2)
    rnd = random.Random(2)
    for step in itertools.count():
        if game.over:
            break
        text = game.to_json()
        loaded = Game.from_json(rules, text)
        assert loaded.state == game.state and loaded.to_json() == text
        if step % 25 == 0:
            assert json.loads(text)["format"] == 3 and len(text) < len(game.state.to_json()) / 3
        game.apply(rnd.randrange(len(game.decision.options)))
    assert Game.from_json(rules, game.to_json()).state == game.state


def _int_to_bool(value) -> bool:
    """Turn the first 0 or 1 found (not already a bool) into False or True, in place."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, v in items:
        if type(v) is int and v in (0, 1):
            value[key] = bool(v)
            return True
        if isinstance(v, (dict, list)) and _int_to_bool(v):
            return True
    return False


@pytest.mark.parametrize("part", ["entities", "log", "counters", "stack"])
def test_replay_compares_exactly_so_a_number_turned_boolean_is_refused(part: str) -> None:
    """issue #39 point 3: `True == 1` in Python, and a forged 0/1 turned into a boolean passed the
    replay check though its save text is not the real game's."""
    rules = load_ruleset("base")
    data = json.loads(_midgame(rules, players=2, moves=30).state.to_json())
    assert _int_to_bool(data[part])
    with pytest.raises(RulesError):  # the field checks catch a counter's or a frame's; the replay the rest
        Game.from_json(rules, _reseal(data), verify="replay")

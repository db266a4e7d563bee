"""`nemesis serve`: four clients play a whole game through the protocol; every bad message is
refused and changes nothing; a restarted server resumes its tables; docs/protocol.md holds the
schemas the server checks."""

from __future__ import annotations

import json
import random
import re
import stat
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import TOY

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")

from websockets.exceptions import ConnectionClosed  # noqa: E402

from nemesis_rules import Game, load_ruleset  # noqa: E402
from nemesis_rules.engine.view import zone_visible  # noqa: E402
from nemesis_rules.serve.protocol import CLIENT, PROTOCOL, SCHEMAS, ProtocolError, check_client  # noqa: E402
from nemesis_rules.serve.server import BURST, RATE, STRIKES  # noqa: E402
from nemesis_rules.serve.tables import Tables  # noqa: E402
from tests.serve_helpers import ask, connect, receive, running_server  # noqa: E402

PLAYERS = 4


def strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def hidden_from(game: Game, seat: int) -> set[str]:
    """The entities `seat` (None: a spectator) may not identify now: in zones it may only count (other hands, the
    deck), neither made public nor peeked at by it."""
    st, program = game.state, game.rules.program
    return {e for zone, members in st.zones.items() if zone_visible(program, zone, seat) != "all"
            for e in members if e not in st.public and seat not in st.known.get(e, ())}


def without_log(update: dict) -> dict:
    view = {k: v for k, v in update["view"].items() if k != "log"}
    return {**update, "view": view, "screen": {k: v for k, v in update["screen"].items() if k != "log"}}


def test_four_clients_play_a_whole_game_and_never_see_another_seats_hidden_cards(tmp_path):
    rng = random.Random(5)
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "protocol": 1, "ruleset": [str(TOY)], "seats": ["human"] * PLAYERS,
                             "seed": 9})
        assert created["type"] == "created", created
        table, tokens = created["table"], [s["token"] for s in created["seats"]]
        clients, seen = [], [[] for _ in range(PLAYERS)]
        for seat, token in enumerate(tokens):
            ws = connect(stack, port)
            assert ask(ws, {"type": "join", "table": table, "token": token}) == {
                "type": "joined", "protocol": PROTOCOL, "table": table, "seat": seat}
            seen[seat].append(receive(ws))
            clients.append(ws)
        watcher = connect(stack, port)
        assert ask(watcher, {"type": "watch", "table": table})["seat"] is None
        watched = [receive(watcher)]
        moves = 0
        while seen[0][-1]["result"] is None:
            d = seen[0][-1]["decision"]
            mine = seen[d["player"]][-1]["decision"]
            assert "options" in mine and all("options" not in seen[s][-1]["decision"]
                                             for s in range(PLAYERS) if s != d["player"])
            clients[d["player"]].send(json.dumps({"type": "choose", "decision": mine["id"],
                                                  "option": rng.choice(mine["options"])["index"]}))
            for seat, ws in enumerate(clients):
                seen[seat].append(receive(ws))
            watched.append(receive(watcher))
            moves += 1
    assert moves > 20
    saved = json.loads((tmp_path / f"{table}.json").read_text())
    rules = load_ruleset(TOY)
    replay = Game.new(rules, PLAYERS, 9)
    for step in range(moves + 1):
        for seat in range(PLAYERS):
            update = seen[seat][step]
            assert update["view"] == json.loads(json.dumps(replay.view(seat)))
            leaked = strings(without_log(update)) & hidden_from(replay, seat)
            assert not leaked, f"seat {seat} was sent {leaked} at step {step}"
            assert all(e["to"] is None or seat in e["to"] for e in update["view"]["log"])
            assert not strings(update) & {t for s, t in enumerate(tokens) if s != seat}
        public = watched[step]  # a spectator gets the public view: no options, no card of any seat
        assert public["view"] == json.loads(json.dumps(replay.view(None))) and "options" not in (public["decision"] or {})
        assert not strings(without_log(public)) & hidden_from(replay, None) and not strings(public) & set(tokens)
        if step < moves:
            replay.apply(json.loads(saved["game"])["moves"][step])
    assert replay.over and replay.to_json() == saved["game"]


def test_bad_messages_are_refused_and_change_nothing(tmp_path):
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "human"], "seed": 3})
        table, tokens = created["table"], [s["token"] for s in created["seats"]]
        save = tmp_path / f"{table}.json"
        watcher = connect(stack, port)
        assert ask(watcher, {"type": "watch", "table": table})["seat"] is None
        public = receive(watcher)
        assert "options" not in public["decision"]
        seats = []
        for token in tokens:
            ws = connect(stack, port)
            ask(ws, {"type": "join", "table": table, "token": token})
            seats.append((ws, receive(ws)))
        actor = public["decision"]["player"]
        (ws, update), (other, _) = seats[actor], seats[1 - actor]
        d = update["decision"]
        before = save.read_bytes()

        def refused(client, raw, code):
            client.send(raw if isinstance(raw, str) else json.dumps(raw))
            reply = receive(client)
            assert reply["type"] == "error" and reply["code"] == code, reply

        refused(host, "not json {", "bad_json")
        refused(host, [1, 2], "bad_message")
        refused(host, {"type": "choose", "decision": 0}, "bad_message")
        refused(host, {"type": "join", "table": table, "token": tokens[0], "extra": 1}, "bad_message")
        refused(host, {"type": "join", "table": table, "token": "not-a-token"}, "bad_token")
        refused(host, {"type": "join", "table": "nope", "token": tokens[0]}, "unknown_table")
        refused(host, {"type": "choose", "decision": d["id"], "option": 0}, "not_joined")
        refused(host, {"type": "create", "ruleset": ["../../etc"], "seats": ["human"]}, "bad_ruleset")
        refused(host, {"type": "create", "protocol": PROTOCOL + 1, "ruleset": ["base"], "seats": ["human"]}, "protocol")
        refused(host, {"type": "full"}, "not_joined")
        refused(watcher, {"type": "choose", "decision": d["id"], "option": 0}, "not_joined")
        refused(other, {"type": "choose", "decision": d["id"], "option": 0}, "not_your_decision")
        refused(ws, {"type": "choose", "decision": d["id"] + 1, "option": 0}, "stale_decision")
        refused(ws, {"type": "choose", "decision": d["id"], "option": len(d["options"])}, "illegal_option")
        assert save.read_bytes() == before
        with pytest.raises(TimeoutError):
            watcher.recv(timeout=0.3)  # nothing changed, so nobody was sent an update
        ws.send(json.dumps({"type": "choose", "decision": d["id"], "option": d["options"][0]["index"]}))
        after = receive(ws)
        assert after["decision"]["id"] == d["id"] + 1 and receive(watcher)["type"] == "update"
        refused(ws, {"type": "choose", "decision": d["id"], "option": 0},
                "stale_decision" if after["decision"]["player"] == actor else "not_your_decision")


def test_a_restarted_server_resumes_its_tables(tmp_path):
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "random"], "seed": 4})
        table, token = created["table"], created["seats"][0]["token"]
        assert "token" not in created["seats"][1]  # a bot's seat has none
        ws = connect(stack, port)
        ask(ws, {"type": "join", "table": table, "token": token})
        update = receive(ws)
        for _ in range(3):
            d = update["decision"]
            if update["result"] or d["player"] != 0:
                break
            update = ask(ws, {"type": "choose", "decision": d["id"], "option": d["options"][-1]["index"]})
    with running_server(tmp_path) as port, ExitStack() as stack:
        ws = connect(stack, port)
        assert ask(ws, {"type": "join", "table": table, "token": token})["seat"] == 0
        resumed = receive(ws)
        assert resumed["view"] == update["view"] and resumed["decision"] == update["decision"]
        assert sorted(resumed["screen"]["zones"]) == sorted(update["screen"]["zones"])  # a save keeps no order


def test_the_protocol_document_holds_every_schema_the_server_checks():
    text = (Path(__file__).parents[1] / "docs" / "protocol.md").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"### `(\w+)`.*?```json\n(.*?)\n```", text, re.S))
    assert {k: json.loads(v) for k, v in blocks.items()} == SCHEMAS
    assert check_client({"type": "watch", "table": "ab12"})
    for bad in ({"type": "watch"}, {"type": "watch", "table": 3}, {"type": "choose", "decision": -1, "option": 0}):
        with pytest.raises(ProtocolError):
            check_client(bad)
    assert set(CLIENT) == {"create", "join", "watch", "choose", "full"}


def flood_while_another_plays(data: Path, frames: int) -> list[float]:
    """One client sends `frames` watch frames (reading none of its answers) while another plays
    its seat; returns how long each of the player's moves took to be answered."""
    with running_server(data) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "random"], "seed": 4})
        table, token = created["table"], created["seats"][0]["token"]
        player = connect(stack, port)
        ask(player, {"type": "join", "table": table, "token": token})
        update = receive(player)
        abuser = connect(stack, port, close_timeout=0.5)  # it reads nothing, so it never sees the server close it
        frame = json.dumps({"type": "watch", "table": table})
        for _ in range(frames):
            abuser.send(frame)
        answered = []
        while update["result"] is None and len(answered) < 20:
            d = update["decision"]
            start = time.monotonic()
            update = ask(player, {"type": "choose", "decision": d["id"], "option": d["options"][0]["index"]})
            answered.append(time.monotonic() - start)
    return answered


def test_one_client_flooding_the_server_does_not_stall_another_player(tmp_path):
    # On the previous commit a move waited ~5 s behind 5,000 watch frames (each answered with a whole update).
    answered = flood_while_another_plays(tmp_path, 2_000)
    assert answered and max(answered) < 1.0, answered


@pytest.mark.slow
def test_ten_thousand_frames_from_one_client_do_not_stall_another_player(tmp_path):
    answered = flood_while_another_plays(tmp_path, 10_000)
    assert answered and max(answered) < 1.0, answered


def test_a_client_over_the_rate_limit_is_refused_then_closed(tmp_path):
    with running_server(tmp_path) as port, ExitStack() as stack:
        ws = connect(stack, port)
        for _ in range(BURST + 2 * STRIKES):
            ws.send(json.dumps({"type": "watch", "table": "nope"}))
        codes = []
        with pytest.raises(ConnectionClosed):
            while True:
                codes.append(receive(ws)["code"])
        assert codes[:BURST] == ["unknown_table"] * BURST and ws.close_code == 1008
        assert codes.count("rate_limited") == STRIKES - 1  # the last strike closes the connection
        assert codes.count("unknown_table") < BURST + 10  # a few more only if the server was slow enough to refill


def test_no_frame_breaks_the_connection(tmp_path):
    """Frames that ended the connection with an internal error (1011) on the previous commit:
    each is refused with an error and the connection goes on."""
    deep = "[" * 1000 + "]" * 1000
    create = {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "human"]}
    with running_server(tmp_path) as port, ExitStack() as stack:
        ws = connect(stack, port)
        cases = [(deep, "bad_json"), ('{"type": "create", "protocol": ' + deep + "}", "bad_json"),
                 ({"type": []}, "bad_message"), ({"type": "watch", "table": "ab", "x": [[[[[1]]]]]}, "bad_message"),
                 ({"type": "join", "table": "ab12", "token": "\ud800"}, "bad_message"),
                 ({"type": "choose", "decision": True, "option": 0}, "bad_message"),
                 ({"type": "choose", "decision": 10 ** 30, "option": 0}, "bad_message"),
                 ({**create, "seed": -1}, "bad_message"), ({**create, "lang": "x" * 5000}, "bad_message")]
        cases += [({**create, "options": {name: value}}, "bad_option")
                  for name, value in (("seed", 5), ("players", 2), ("explicit_chance", True), ("autostart", False),
                                      ("after", 1), ("no_such_option", 1))]
        for frame, code in cases:
            ws.send(frame if isinstance(frame, str) else json.dumps(frame))
            reply = receive(ws)
            assert reply["type"] == "error" and reply["code"] == code, (frame if isinstance(frame, dict) else frame[:40], reply)
            time.sleep(1 / RATE)  # keep to the rate limit
        assert ask(ws, create)["type"] == "created"  # the connection goes on


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=30))
def test_check_client_refuses_anything_else_with_a_protocol_error(value):
    for message in (value, {"type": value}, {"type": "watch", "table": "ab", "protocol": value},
                    {"type": "create", "ruleset": value, "seats": value, "options": value, "seed": value},
                    {"type": "join", "table": value, "token": value}, {"type": "choose", "decision": value, "option": value}):
        try:
            checked = check_client(message)
        except ProtocolError:
            continue
        assert checked is message


def test_tables_are_capped_idle_ones_expire_and_their_files_are_private(tmp_path):
    data = tmp_path / "tables"
    tables = Tables(data, [str(TOY)], max_tables=2, idle_seconds=60)
    first, second = (tables.create([str(TOY)], ["human", "random"], seed, {}) for seed in (1, 2))
    with pytest.raises(ProtocolError) as refused:
        tables.create([str(TOY)], ["human"], 3, {})
    assert refused.value.code == "too_many_tables" and len(tables.tables) == 2
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in data.iterdir()} == {0o600}
    first.touched -= 120
    assert tables.expire() == [first.id] and not (data / f"{first.id}.json").exists()
    assert tables.create([str(TOY)], ["human", "random"], 3, {}).id in tables.tables and second.id in tables.tables


def test_a_data_folder_and_saves_from_before_are_made_private(tmp_path):
    data = tmp_path / "tables"
    Tables(data, [str(TOY)]).create([str(TOY)], ["human", "random"], 1, {})
    data.chmod(0o755)
    for save in data.iterdir():
        save.chmod(0o644)
    resumed = Tables(data, [str(TOY)])
    assert resumed.resume() == [] and len(resumed.tables) == 1
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in data.iterdir()} == {0o600}

"""`nemesis serve` with patches (protocol 2): a client that asks for them gets a full `update`
first, then each change as an RFC 6902 JSON Patch numbered by `seq`; `full` sends the whole view
again; reconnecting with a seat's token resumes that seat. The patches of a whole 4-player base
game average under 5 KB (measured in process, and over sockets for its first rounds).
static/patch.js and the jsonpatch library apply them as serve/patches.py makes them."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import TOY

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
jsonpatch = pytest.importorskip("jsonpatch", reason="jsonpatch is not installed (the `test` extra)")

from nemesis_rules.serve.patches import make_patch  # noqa: E402
from nemesis_rules.serve.protocol import SERVER, check  # noqa: E402
from nemesis_rules.serve.server import update, update_message  # noqa: E402
from nemesis_rules.serve.tables import Tables  # noqa: E402
from tests.serve_helpers import ask, connect, receive, running_server  # noqa: E402

PATCH_JS = Path(__file__).parents[1] / "nemesis_rules" / "serve" / "static" / "patch.js"
PLAYERS = 4
MAX_AVERAGE_PATCH = 5 * 1024
MOVES = 60  # choices measured over sockets: the first rounds (the whole game is measured in process below)
APPLIED_EVERY = 25  # a whole game's patches checked by jsonpatch: one in this many (each copies the document)


def checked(message: dict) -> dict:
    """A server message that fits its schema in docs/protocol.md."""
    assert check(SERVER[message["type"]], message, message["type"]) is None, message
    return message


class Follower:
    """One connection's picture of its table: the full update, then its patches applied in order."""

    def __init__(self, ws) -> None:
        self.ws, self.seq, self.document, self.patch_sizes = ws, 0, None, []

    def take(self, message: dict) -> None:
        checked(message)
        assert message["seq"] == self.seq + 1, "an update was skipped"
        self.seq = message["seq"]
        if message["type"] == "update":
            self.document = {k: v for k, v in message.items() if k not in ("type", "protocol", "seq")}
        else:
            assert message["type"] == "patch", message
            self.patch_sizes.append(len(json.dumps(message, ensure_ascii=False)))
            self.document = jsonpatch.apply_patch(self.document, message["ops"])

    def receive(self) -> None:
        self.take(receive(self.ws, timeout=120))

    def full(self) -> dict:
        """The whole view asked for again: it must equal the one the patches built."""
        self.ws.send(json.dumps({"type": "full"}))
        message = checked(receive(self.ws))
        assert message["type"] == "update" and message["seq"] == self.seq + 1
        self.seq = message["seq"]
        return {k: v for k, v in message.items() if k not in ("type", "protocol", "seq")}


def join(stack: ExitStack, port: int, table: str, token: str, seat: int) -> Follower:
    follower = Follower(connect(stack, port))
    joined = ask(follower.ws, {"type": "join", "protocol": 2, "table": table, "token": token, "patches": True})
    assert checked(joined)["seat"] == seat
    follower.receive()
    assert follower.seq == 1 and follower.document["seat"] == seat  # a full view first
    return follower


def test_a_base_game_played_through_the_server_in_patches_averages_under_five_kilobytes_an_update(tmp_path):
    rng = random.Random(1)
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        host.send(json.dumps({"type": "create", "ruleset": ["base"], "seats": ["human"] * PLAYERS, "seed": 3}))
        created = receive(host, timeout=300)  # loading base takes a while on a busy machine
        table, tokens = created["table"], [s["token"] for s in created["seats"]]
        seats = [join(stack, port, table, token, seat) for seat, token in enumerate(tokens)]
        for _ in range(MOVES):
            d = seats[seats[0].document["decision"]["player"]].document["decision"]
            seats[d["player"]].ws.send(json.dumps({"type": "choose", "decision": d["id"],
                                                   "option": rng.choice(d["options"])["index"]}))
            for seat in seats:
                seat.receive()
        for seat in seats:
            assert seat.full() == seat.document
    sizes = [size for seat in seats for size in seat.patch_sizes]
    assert len(sizes) == MOVES * PLAYERS
    assert sum(sizes) / len(sizes) < MAX_AVERAGE_PATCH


def test_a_whole_random_base_game_averages_under_five_kilobytes_an_update_after_the_first(tmp_path):
    """Issue #36, "Done when": the server's own messages (`update_message`) for each seat's
    successive updates over a whole random 4-player base game, without sockets."""
    table = Tables(tmp_path).create(["base"], ["human"] * PLAYERS, 3, {})
    rng = random.Random(1)
    last = [update(table, seat) for seat in range(PLAYERS)]
    sizes: list[int] = []
    while not table.game.over:
        d = table.game.decision
        table.choose(d.player, table.decision_id, rng.randrange(len(d.options)))
        for seat in range(PLAYERS):
            now = update(table, seat)
            message = checked(update_message(table, len(sizes) + 2, last[seat], now))
            sizes.append(len(json.dumps(message, ensure_ascii=False)))
            if len(sizes) % APPLIED_EVERY == 0:
                assert jsonpatch.apply_patch(last[seat], message["ops"]) == now
            last[seat] = now
    assert len(sizes) > 100 * PLAYERS and table.game.result is not None  # a whole game, to its end
    assert sum(sizes) / len(sizes) < MAX_AVERAGE_PATCH, sum(sizes) / len(sizes)


def test_reconnecting_with_a_seats_token_resumes_it_with_a_full_view_then_patches(tmp_path):
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "random"], "seed": 4})
        table, token = created["table"], created["seats"][0]["token"]
        with ExitStack() as first:
            player = join(first, port, table, token, 0)
            d = player.document["decision"]
            player.ws.send(json.dumps({"type": "choose", "decision": d["id"], "option": d["options"][0]["index"]}))
            player.receive()
            assert player.patch_sizes and player.document["decision"]["id"] > d["id"]
            before = player.document
        again = join(stack, port, table, token, 0)  # a new connection: full view, numbered afresh
        assert again.document == before
        d = again.document["decision"]
        again.ws.send(json.dumps({"type": "choose", "decision": d["id"], "option": d["options"][0]["index"]}))
        again.receive()
        assert len(again.patch_sizes) == 1 and again.seq == 2
        assert again.full() == again.document


def test_a_client_without_patches_still_gets_full_updates(tmp_path):
    with running_server(tmp_path) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": [str(TOY)], "seats": ["human", "random"], "seed": 4})
        ws = connect(stack, port)
        ask(ws, {"type": "join", "protocol": 1, "table": created["table"], "token": created["seats"][0]["token"]})
        d = checked(receive(ws))["decision"]
        ws.send(json.dumps({"type": "choose", "decision": d["id"], "option": d["options"][0]["index"]}))
        assert checked(receive(ws))["type"] == "update"


NODE = shutil.which("node") or shutil.which("nodejs")

DOCUMENTS = [
    ({"a": 1, "b": [1, 2, 3], "c": {"d": "x"}}, {"a": 2, "b": [2, 3, 4, 5], "c": {"e": None}, "f": [{"g": 1}]}),
    ({"log": ["one", "two"], "k/e~y": 1}, {"log": ["one", "two", "three"], "k/e~y": 2, "~1": True}),
    ([1, [2, 3], {"x": 4}], [[2, 3], {"x": 4, "y": [5]}, 1]),
]

HAND_WRITTEN = [  # RFC 6902 §A: each operation, "-", escaped pointers, a failing test
    ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}], {"foo": ["bar", "qux", "baz"]}),
    ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc"]}], {"foo": ["bar", ["abc"]]}),
    ({"foo": {"bar": 1}, "q": 2}, [{"op": "move", "from": "/foo/bar", "path": "/q"}], {"foo": {}, "q": 1}),
    ({"a": [1, 2]}, [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "remove", "path": "/a/0"}],
     {"a": [2], "b": [1, 2]}),
    ({"a/b": 1, "m~n": 2}, [{"op": "replace", "path": "/a~1b", "value": 3}, {"op": "test", "path": "/m~0n",
                                                                             "value": 2}], {"a/b": 3, "m~n": 2}),
    ({"a": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
    ({"a": {"b": [1, {"c": 2}]}}, [{"op": "test", "path": "/a", "value": {"b": [1, {"c": 2}]}}],
     {"a": {"b": [1, {"c": 2}]}}),
    ({"a": 1}, [{"op": "test", "path": "/a", "value": 2}], "error"),
    ({"a": 1}, [{"op": "remove", "path": "/b"}], "error"),
    ({"a": [1]}, [{"op": "add", "path": "/a/3", "value": 1}], "error"),
]


def run_patch_js(cases: list) -> list:
    """Each (document, ops) applied by static/patch.js in node: the result, or "error"."""
    script = (f"{PATCH_JS.read_text(encoding='utf-8')}\n"
              "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
              "console.log(JSON.stringify(cases.map(([doc, ops]) => {\n"
              "  try { return applyPatch(doc, ops); } catch (e) { return 'error'; }\n"
              "})));\n")
    done = subprocess.run([NODE, "-e", script], input=json.dumps(cases), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_patch_js_applies_every_operation_as_rfc_6902_says():
    made = [(a, jsonpatch.make_patch(a, b).patch) for a, b in DOCUMENTS]
    made += [(a, make_patch(a, b)) for a, b in DOCUMENTS]  # the server's own
    results = run_patch_js(made + [(doc, ops) for doc, ops, _ in HAND_WRITTEN])
    assert results[:len(made)] == [b for _, b in DOCUMENTS] * 2
    assert results[len(made):] == [wanted for _, _, wanted in HAND_WRITTEN]
    for (doc, ops, wanted) in HAND_WRITTEN:  # the cases agree with the server's own library
        if wanted != "error":
            assert jsonpatch.apply_patch(doc, ops) == wanted


@pytest.mark.parametrize(("old", "new"), [
    *DOCUMENTS,
    ({"a": [1, 2, 3, 4, 5]}, {"a": [1, 3, 4, 5]}),  # one lost in the middle
    ({"a": [1, 2]}, {"a": [0, 1, 2, 3]}),  # gained at both ends
    ({"a": [[1], 1]}, {"a": [[1, 2], True]}),  # true is not 1
    ({"a": {"b": [0, 1]}, "c": 2}, {"a": {"b": [0, True]}, "c": 2}),  # not even deep in what == finds equal
    ({"a": [{"b": 1.0}]}, {"a": [{"b": 1}]}),
    ({"a": 1, "b": None}, {"a": "1", "b": False}),
    ([1, 2, 3], []),
    ({}, {"x/y": {"~": []}}),
])
def test_the_servers_patches_apply_to_what_they_were_made_for(old, new):
    ops = make_patch(old, new)
    assert json.dumps(jsonpatch.apply_patch(old, ops)) == json.dumps(new)  # == would take true for 1
    assert {op["op"] for op in ops} <= {"add", "remove", "replace"}

"""The web table `nemesis serve` hands out, driven in headless Chromium (Debian's `chromium`,
through Playwright, which never downloads a browser here): it draws the board from the modules'
layout and the seat's cards, takes decisions through its buttons, and plays a whole 3-player base
game by clicking on the board and the hand, showing after each click nothing of another seat's
hand or objectives (issue #36)."""

from __future__ import annotations

import json
import random
import re
import shutil
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from nemesis_rules.api import Game  # noqa: E402
from nemesis_rules.openspiel import cached_rules  # noqa: E402
from nemesis_rules.serve.board import board_data  # noqa: E402
from tests.serve_helpers import ask, connect, running_server  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BOARD = FIXTURES / "base_testboard"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DECISIONS = 4


@pytest.fixture()
def browser():
    if not shutil.which(CHROMIUM):
        pytest.skip("no chromium browser on this machine (.ci/run installs Debian's `chromium`)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


def test_web_table_shows_the_seat_and_takes_decisions_by_buttons(tmp_path, browser):
    with running_server(tmp_path / "tables", BOARD) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": ["base", str(BOARD)], "seats": ["human", "random"],
                             "seed": 2})
        assert created["type"] == "created", created
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/?table={created['table']}&token={created['seats'][0]['token']}")
        page.wait_for_selector("#options button", timeout=60_000)
        assert page.locator("#board g.place").count() >= 21  # base's layout: every room slot of side A
        assert "Player 1" in page.inner_text("#title")
        for _ in range(DECISIONS):
            page.wait_for_selector("#options button")
            before = page.get_attribute("body", "data-decision")
            page.locator("#options button").first.click()
            page.wait_for_function(f"document.body.dataset.decision !== '{before}'", timeout=30_000)
        assert int(page.get_attribute("body", "data-decision")) >= DECISIONS
        assert page.locator("#error").is_hidden()
        shot = tmp_path / "web-table.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000


# ---- a whole game by clicks (issue #36, "Done when")
# A point inside `el` that a click reaches (not covered by another drawn thing), in page pixels,
# after scrolling it into view; null when every point of it is covered.
CLICK_POINT = """el => {
  el.scrollIntoView({block: "center"});
  const box = el.getBoundingClientRect();
  for (const fy of [0.25, 0.5, 0.15, 0.75, 0.4, 0.6]) for (const fx of [0.5, 0.3, 0.7, 0.15, 0.85]) {
    const x = box.left + box.width * fx, y = box.top + box.height * fy;
    const hit = document.elementFromPoint(x, y);
    if (hit && hit.closest("[data-ref]") === el) return [x, y];
  }
  return null;
}"""


# The page as it stands: its markup and text (SVG titles too), but the history, which names cards
# played earlier, now perhaps back in their owner's hand (a discard pile is public).
SHOWN = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelector("#history").remove();
  return copy.outerHTML;
}"""


def without_log(frame: str) -> str:
    """A received frame without its log (the log names cards played earlier: public then); a
    patch without its operations on the log."""
    message = json.loads(frame)
    if message.get("type") == "update":
        message["view"]["log"], message["screen"]["log"] = [], []
    if message.get("type") == "patch":
        message["ops"] = [op for op in message["ops"] if not op["path"].startswith(("/view/log", "/screen/log"))]
    return json.dumps(message)


def secrets_of_others(data: Path, table: str, rules) -> tuple[set[str], set[str]]:
    """The ids and texts of every card in another seat's hand or objectives that seat 0 does not
    see, read from the table's save (written before the update is sent)."""
    saved = json.loads((data / f"{table}.json").read_text(encoding="utf-8"))
    game = Game.from_json(rules, saved["game"])
    mine = game.view(0)
    seen_names = set(board_data(rules, mine)["names"].values())  # what seat 0 may read, its own cards' names too
    ids, texts = set(), set()
    for seat in range(1, game.state.players):
        theirs = game.view(seat)
        for key, zone in theirs["zones"].items():
            if key in (f"hand@player{seat + 1}", f"objectives@player{seat + 1}"):
                for e in zone.get("entities", ()):
                    if isinstance(e, str) and e not in mine["entities"]:
                        ids.add(e)
                        name = rules.label(theirs["entities"][e]["component"])
                        if name not in seen_names:
                            texts.add(name)
    return ids, texts


def click_target(page, rnd: random.Random) -> str:
    """Choose one option of seat 0's decision: by clicking the drawn entity (board or hand) that
    only it names, where there is one, else its button. Returns how it was chosen."""
    options = page.evaluate("current.decision.options")
    targets = {}
    for o in options:
        for ref in o["refs"]:
            if sum(ref in p["refs"] for p in options) == 1:
                targets.setdefault(o["index"], ref)
    picks = list(targets) if targets and rnd.random() < 0.85 else [o["index"] for o in options]
    index = rnd.choice(picks)
    if index in targets:
        for node in page.locator(f'[data-ref="{targets[index]}"].target').all():
            try:
                point = node.evaluate(CLICK_POINT, timeout=5_000)
                where = "board" if node.evaluate("n => !!n.closest('svg')", timeout=5_000) else "hand"
            except sync_api.TimeoutError:  # drawn again meanwhile: the list below still offers it
                break
            if point:
                page.mouse.click(*point)
                return where
    page.locator(f'#options button[data-index="{index}"]').click()
    return "list"


def play_by_clicks(browser, tmp_path: Path, seed: int, clicks: int) -> tuple[dict[str, int], str]:
    """Seat 0 of a 3-player base game (two random bots) plays `clicks` choices (or to the end)
    on the page; after each, the page and every frame it received hold no other seat's secret."""
    rules = cached_rules(("base",), "en")
    data = tmp_path / "tables"
    ways = {"board": 0, "hand": 0, "list": 0, "secrets": 0, "unavailable": 0}  # how seat 0 chose; the secrets
    # checked; the greyed actions shown with their reason (DECISIONS.md U5)
    with running_server(data) as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": ["base"], "seats": ["human", "random", "random"],
                             "seed": seed})
        assert created["type"] == "created", created
        table = created["table"]
        page = browser.new_page(viewport={"width": 1500, "height": 950})
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
        page.goto(f"http://127.0.0.1:{port}/?table={table}&token={created['seats'][0]['token']}")
        rnd, read = random.Random(seed), 0
        for _ in range(clicks):
            page.wait_for_function("document.body.dataset.decision !== undefined && "
                                   "(document.body.dataset.decision === 'over' || !!current)", timeout=60_000)
            ids, texts = secrets_of_others(data, table, rules)
            ways["secrets"] += len(ids)
            received, read = "".join(map(without_log, frames[read:])), len(frames)  # the updates of this state
            shown = page.evaluate(SHOWN)
            leaked = [s for s in ids if f'"{s}"' in received or s in shown]
            leaked += [t for t in texts if re.search(f"(>|, ){re.escape(t)}(<|,)", shown)]  # a whole name
            assert not leaked, leaked
            if page.get_attribute("body", "data-decision") == "over":
                break
            ways["unavailable"] += page.locator("#unavailable li small").count()
            before = page.get_attribute("body", "data-decision")
            ways[click_target(page, rnd)] += 1
            page.wait_for_function(f"document.body.dataset.decision !== '{before}'", timeout=60_000)
            assert page.locator("#error").is_hidden(), page.inner_text("#error")
        end = page.inner_text("#result") if page.get_attribute("body", "data-decision") == "over" else ""
        ways["patches"] = sum('"type": "patch"' in f or '"type":"patch"' in f for f in frames)
        page.close()
    return ways, end


def test_a_short_game_by_clicks_on_the_board_and_the_hand_shows_no_other_seat_secret(tmp_path, browser):
    ways, _ = play_by_clicks(browser, tmp_path, seed=3, clicks=20)
    assert ways["board"] + ways["hand"] >= 10 and ways["secrets"] > 0, ways
    assert ways["patches"] > 0, ways  # the page joins with `patches` and draws what they rebuild
    assert ways["unavailable"] > 0, ways  # an action not offered, greyed under the options with why


@pytest.mark.slow
def test_a_whole_game_by_clicks_shows_no_other_seat_secret_and_its_end(tmp_path, browser):
    ways, end = play_by_clicks(browser, tmp_path, seed=4, clicks=2000)
    assert ways["board"] + ways["hand"] > ways["list"], ways
    assert "Game over" in end and "Objective" in end, end  # who won and why; every seat's objectives


def test_the_page_says_clearly_what_the_server_refused(tmp_path, browser):
    with running_server(tmp_path / "tables") as port:
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/?table=nosuch1&token=abc")
        page.wait_for_selector("#error:not([hidden])", timeout=60_000)
        assert page.get_attribute("#error", "data-code") == "unknown_table"
        assert "There is no such table" in page.inner_text("#error")

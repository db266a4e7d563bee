"""The web table `nemesis serve` hands out, driven in headless Chromium (Debian's `chromium`,
through Playwright, which never downloads a browser here): it shows the ship's rooms and the
seat's cards, and takes a few decisions through its buttons."""

from __future__ import annotations

import shutil
from contextlib import ExitStack

import pytest

from tests.conftest import FIXTURES

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

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
        assert page.locator("#panels table").count() >= 2  # the module's screen panels, the ship among them
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

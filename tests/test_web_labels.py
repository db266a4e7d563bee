"""The board's labels stay readable (issue #36 point 4): a place's name fits its box (two lines,
a smaller size, squeezed at worst; the whole name in its tooltip), and what lies in a corridor is
a dot beside the line, never a labelled chip over its numbers. Driven in headless Chromium."""

from __future__ import annotations

from contextlib import ExitStack

import pytest

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from tests.serve_helpers import ask, connect, running_server  # noqa: E402
from tests.test_web_table import browser  # noqa: E402, F401 (the fixture)

# each place name line wider than its box, as [text, width, box width]
TOO_WIDE = """() => [...document.querySelectorAll("#board g.place")].flatMap((g) => {
  const box = g.querySelector("rect, polygon").getBBox().width;
  return [...g.querySelectorAll("text.place-name")].map((t) => [t.textContent, t.getBBox().width, box])
    .filter(([, w]) => w > box - 4);
})"""
# each labelled chip that covers a corridor's number
COVERING = """() => {
  const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const numbers = [...document.querySelectorAll("#board .link text.number")].map((t) => t.getBBox());
  return [...document.querySelectorAll("#board g.chip:not(.dot) rect")].map((r) => r.getBBox())
    .filter((r) => numbers.some((n) => overlap(r, n))).length;
}"""


def test_place_names_fit_their_boxes_and_corridor_things_leave_the_numbers_readable(tmp_path, browser):  # noqa: F811
    with running_server(tmp_path / "tables") as port, ExitStack() as stack:
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": ["base"], "seats": ["human", "random", "random"], "seed": 3})
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/?table={created['table']}&token={created['seats'][0]['token']}")
        for _ in range(12):  # a few rounds of choices: noise in the corridors
            page.wait_for_selector("#options button", timeout=60_000)
            before = page.get_attribute("body", "data-decision")
            page.locator("#options button").first.click()
            page.wait_for_function(f"document.body.dataset.decision !== '{before}'", timeout=30_000)
        names = page.eval_on_selector_all("#board g.place > title", "ts => ts.map((t) => t.textContent)")
        assert any(len(n) > 30 for n in names)  # the escape pod areas: "Escape pod spaces, Section A (basic side)"
        assert page.evaluate(TOO_WIDE) == []
        assert page.evaluate(COVERING) == 0

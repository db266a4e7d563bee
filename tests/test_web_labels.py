"""The board's labels stay readable (issue #36 point 4): a place's name fits its box (two lines,
a smaller size, squeezed at worst; the whole name in its tooltip), and what lies in a corridor is
a dot beside the line, never a labelled chip over its numbers. Driven in headless Chromium."""

from __future__ import annotations

import json
import random
from contextlib import ExitStack

import pytest

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from tests.serve_helpers import ask, connect, receive, running_server  # noqa: E402
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


# What a player would see wrong on a board, measured in the page (one list a kind of fault):
# a room name under a figure or chip, a thing outside its place's shape, two corridor numbers
# over each other, over a room or over what lies in a link, a room's mark over a name, a figure's
# letters that do not stand out from its disc, a text past its box or squeezed beyond reading, a
# track drawn as bare text, a track's counter repeated under the board, a chip's name cut or with no
# tooltip (base DECISIONS L11).
FAULTS = r"""() => {
  const overlap = (a, b) => a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5
    && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
  const inside = (a, b) => a.x >= b.x - 1 && a.y >= b.y - 1 && a.x + a.width <= b.x + b.width + 1
    && a.y + a.height <= b.y + b.height + 1;
  const box = (n) => n.getBBox(), all = (sel) => [...document.querySelectorAll(sel)];
  const said = (n) => n.textContent.slice(0, 40);
  const things = all("#board g.figure, #board g.chip");
  const shapes = all("#board g.place").map((g) => [g, box(g.querySelector("rect, polygon"))]);
  const rooms = all("#board g.place > rect").map(box);
  const numbers = all("#board .link text.number");
  const squeezed = (t) => {  // its own width over the width it is squeezed into
    if (!t.getAttribute("textLength")) return 1;
    const c = t.cloneNode(true);
    c.removeAttribute("textLength");
    t.parentNode.append(c);
    const ratio = c.getBBox().width / Number(t.getAttribute("textLength"));
    c.remove();
    return ratio;
  };
  const boxed = all("#board g.place, #board g.track, #board g.pile").flatMap((g) => {
    const shape = g.querySelector("rect, polygon"), frame = shape && box(shape);
    return [...g.querySelectorAll(":scope > text:not(.mark)")].filter((t) => !frame || !inside(box(t), frame) || squeezed(t) > 1.2).map(said);
  });
  const html = all("#table *").filter((n) => !(n instanceof SVGElement) && n.clientWidth && n.scrollWidth > n.clientWidth + 1);
  const counters = document.getElementById("counters").textContent;
  const luminance = (colour) => colour.match(/[\d.]+/g).slice(0, 3).map((c) => c / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)).reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const contrast = (disc, text) => {  // WCAG's contrast ratio of the disc's fill and its letters'
    const [a, b] = [disc, text].map((n) => luminance(getComputedStyle(n).fill)).sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  };
  return {
    names_covered: all("#board text.place-name").filter((t) => things.some((g) => overlap(box(t), box(g)))).map(said),
    things_outside: things.filter((g) => {
      const own = shapes.find(([p]) => p.dataset.ref === g.dataset.place);
      return own && !inside(box(g), own[1]);
    }).map((g) => g.dataset.place),
    numbers_over_numbers: numbers.flatMap((a, i) => numbers.slice(i + 1).filter((b) => overlap(box(a), box(b)))
      .map((b) => `${said(a)} / ${said(b)}`)),
    numbers_over_rooms: numbers.filter((t) => rooms.some((r) => overlap(box(t), r))).map(said),
    numbers_over_things: numbers.filter((t) => things.some((g) => overlap(box(t), box(g)))).map(said),
    marks_over_names: all("#board text.mark").filter((m) => all("#board text.place-name").some((t) => overlap(box(m), box(t))))
      .map((m) => m.parentNode.dataset.ref),
    unreadable_figures: all("#board g.figure").filter((g) => contrast(g.querySelector("circle"), g.querySelector("text")) < 3)
      .map((g) => g.dataset.ref),
    text_past_its_box: boxed,
    html_overflow: html.map((n) => n.id || n.className || n.tagName),
    chips_cut: all("#board g.chip:not(.dot) text").map(said).filter((t) => t.includes("…") && !t.startsWith("+")),
    chips_untitled: all("#board g.chip").filter((g) => !(g.querySelector("title") || {}).textContent).map(said),
    bare_tracks: all("#board g.track").filter((g) => g.querySelectorAll("rect:not(.panel)").length < 2).map((g) => said(g)),
    tracks_repeated: all("#board g.track").map((g) => (g.querySelector("title") || g.querySelector("text")).textContent.split(":")[0])
      .filter((name) => counters.includes(name)),
  };
}"""
# How big the board is drawn (base DECISIONS L10): a room name's smallest size on the screen (px),
# whether the board's box scrolls, the board's height over the window's.
SIZES = """() => {
  const box = document.getElementById("board-box"), board = document.getElementById("board");
  const px = [...document.querySelectorAll("#board text.place-name:not(.small)")]
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
  return {name_px: Math.min(...px), scrolls: box.scrollHeight > box.clientHeight + 1,
          height: board.getBoundingClientRect().height / window.innerHeight};
}"""
# module, seats, seed, options, seat 1's random choices: tables crowded enough to show the faults
TABLES = [(["base"], ["human", "random", "random"], 3, {}, 40),
          (["lockdown"], ["human", "random", "random"], 2, {"board": "provisional"}, 30),
          (["retaliation"], ["human", "random"], 5, {}, 30)]


def advance(port: int, modules: list[str], seats: list[str], seed: int, options: dict, choices: int) -> tuple[str, str]:
    """A new table whose seat 1 made `choices` random (seeded) choices: its id and seat 1's token."""
    with ExitStack() as stack:
        ws = connect(stack, port)
        created = ask(ws, {"type": "create", "ruleset": modules, "seats": seats, "seed": seed, "options": options})
        table, token = created["table"], created["seats"][0]["token"]
        update, rnd = ask(ws, {"type": "join", "table": table, "token": token}), random.Random(seed)
        for _ in range(choices):
            while update["type"] != "update":
                update = receive(ws, timeout=120)
            decision = update["decision"]
            if decision is None or not decision.get("options"):
                break
            ws.send(json.dumps({"type": "choose", "decision": decision["id"],
                                "option": rnd.randrange(len(decision["options"]))}))
            update = receive(ws, timeout=120)
    return table, token


@pytest.mark.parametrize(("modules", "seats", "seed", "options", "choices"), TABLES, ids=["base", "lockdown", "retaliation"])
def test_a_crowded_board_covers_no_name_no_number_and_cuts_no_text(tmp_path, browser, modules, seats, seed,  # noqa: F811
                                                                    options, choices):
    with running_server(tmp_path / "tables") as port:
        table, token = advance(port, modules, seats, seed, options, choices)
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/?table={table}&token={token}")
        page.wait_for_selector("#board g.place", timeout=60_000)
        faults, sizes = page.evaluate(FAULTS), page.evaluate(SIZES)
        assert sizes["name_px"] >= 10, sizes  # Lockdown's tall drawing fitted to the height: 6 px
        tall = modules == ["lockdown"]  # 1300 x 1500: drawn at its box's width, the box scrolls
        assert sizes["scrolls"] == tall and (tall or sizes["height"] <= 0.9), sizes  # the others fit as before
        assert page.locator("#board g.figure, #board g.chip").count() > 3  # crowded: something lies in the rooms
        found = {fault: where for fault, where in faults.items() if where}
        assert not found, json.dumps(found, ensure_ascii=False)

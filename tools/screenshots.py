"""Screenshots of the web table (`nemesis serve`'s page) for the README and docs/img/: a mid-game
base table, a Lockdown provisional table and a grown Retaliation map, each seen by seat 1.

    PYTHONPATH=. python tools/screenshots.py [--out docs/img]

Needs Playwright for Python and Debian's chromium (/usr/bin/chromium); it downloads nothing. A
server is started on the loopback, seat 1 is a human whose choices this script makes at random
(seeded) until the table is where the picture should be, the other seats are bots.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# name, modules, seats, seed, options, seat 1's choices before the picture
TABLES = [
    ("web-table-base", ["base"], ["human", "random", "random"], 3, {}, 40),
    ("web-table-lockdown", ["lockdown"], ["human", "random", "random"], 2, {"board": "provisional"}, 30),
    ("web-table-retaliation", ["retaliation"], ["human", "random"], 5, {}, 30),
]


@contextmanager
def server(data: Path):
    """`nemesis serve` on 127.0.0.1 and a free port, in its own process; yields the port."""
    proc = subprocess.Popen([sys.executable, "-m", "nemesis_rules.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data", str(data)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
        if not found:
            raise SystemExit("the server did not start")
        yield int(found.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def advance(port: int, modules: list[str], seats: list[str], seed: int, options: dict, choices: int) -> tuple[str, str]:
    """A new table whose seat 1 has made `choices` random choices (fewer if the game ends); its
    table id and seat 1's token."""
    from websockets.sync.client import connect
    rnd = random.Random(seed)
    with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=30) as ws:
        json.loads(ws.recv(timeout=30))  # welcome
        ws.send(json.dumps({"type": "create", "ruleset": modules, "seats": seats, "seed": seed, "options": options}))
        created = json.loads(ws.recv(timeout=120))
        table, token = created["table"], created["seats"][0]["token"]
        ws.send(json.dumps({"type": "join", "table": table, "token": token}))
        update = None
        for _ in range(choices + 1):
            message = json.loads(ws.recv(timeout=120))
            while message["type"] != "update":
                message = json.loads(ws.recv(timeout=120))
            update = message
            d = update["decision"]
            if d is None or not d.get("options") or _ == choices:
                break
            ws.send(json.dumps({"type": "choose", "decision": d["id"], "option": rnd.randrange(len(d["options"]))}))
    return table, token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as data, server(Path(data)) as port, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for name, modules, seats, seed, options, choices in TABLES:
            table, token = advance(port, modules, seats, seed, options, choices)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/?table={table}&token={token}")
            page.wait_for_selector("#board g.place", timeout=120_000)
            shot = args.out / f"{name}.png"
            page.screenshot(path=str(shot))
            print(shot)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()

"""The web table's own words come from the phrase tables (`page:` in nemesis_rules/phrases/<lang>.yaml):
a Polish or Russian table, and the page before it joins one, shows no English word of the page
and no raw id (issue #36 point 7). Driven in headless Chromium as tests/test_web_table.py is."""

from __future__ import annotations

import json
import re
import urllib.request
from contextlib import ExitStack

import pytest

from nemesis_rules.dsl.describe import phrases

pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright for Python is not installed")

from tests.serve_helpers import ask, connect, running_server  # noqa: E402
from tests.test_web_table import BOARD, browser  # noqa: E402, F401 (the fixture)

LANGS = ("en", "pl", "ru")
RAW_ID = re.compile(r"\b[a-z]+_[a-z0-9_]+\b")
# everything a reader meets: the visible text and the words of titles, placeholders and labels
SHOWN = """() => [document.title, document.body.innerText,
  ...[...document.querySelectorAll("[title], [placeholder], [aria-label]")].flatMap(
    (n) => ["title", "placeholder", "aria-label"].map((a) => n.getAttribute(a) || ""))].join("\\n")"""


def english_words(lang: str) -> list[str]:
    """The fixed parts of the English page words that the language words otherwise."""
    english, own = phrases("en").page, phrases(lang).page
    parts = [p.strip(" —:.,()") for key, text in english.items() if own[key] != text
             for p in re.split(r"\{\w+\}", text)]
    return sorted({p for p in parts if len(p) >= 4})


def test_every_language_has_every_page_word() -> None:
    for lang in LANGS:
        assert set(phrases(lang).page) == set(phrases("en").page), lang


@pytest.mark.parametrize("lang", ["pl", "ru"])
def test_a_table_in_another_language_shows_no_english_page_word_and_no_raw_id(tmp_path, browser, lang):  # noqa: F811
    english = english_words(lang)
    assert len(english) > 40
    with running_server(tmp_path / "tables", BOARD) as port, ExitStack() as stack:
        assert json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/words/{lang}.json")) == phrases(lang).page
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"http://127.0.0.1:{port}/?lang={lang}")  # the form to create a table
        page.wait_for_function(f"document.querySelector('#create h2').textContent === {json.dumps(phrases(lang).page['new_table'])}")
        shown = page.evaluate(SHOWN)
        assert [w for w in english if w in shown] == [] and RAW_ID.findall(shown) == []
        host = connect(stack, port)
        created = ask(host, {"type": "create", "ruleset": ["base", str(BOARD)], "seats": ["human", "random"],
                             "seed": 2, "lang": lang})
        page.goto(f"http://127.0.0.1:{port}/?table={created['table']}&token={created['seats'][0]['token']}")
        page.wait_for_selector("#options button", timeout=60_000)
        shown = page.evaluate(SHOWN)
        assert phrases(lang).page["your_seat"] in shown
        assert [w for w in english if w in shown] == []
        assert RAW_ID.findall(shown) == []


def test_the_page_is_given_only_the_props_the_catalog_names_and_its_words() -> None:
    """A prop the catalog does not name is the rules' bookkeeping (`usable_after_pass`): the page
    gets no label for it and leaves it out, as the screen does (base DECISIONS.md V5)."""
    import random

    from nemesis_rules.api import Game
    from nemesis_rules.openspiel import cached_rules
    from nemesis_rules.serve.board import board_data

    rules = cached_rules(("base",), "pl")
    game, rnd = Game.new(rules, 3, 1), random.Random(1)
    for _ in range(30):
        game.apply(rnd.randrange(len(game.decision.options)))
    seen = game.view(0)
    data = board_data(rules, seen)
    props = {k for ent in seen["entities"].values() for k in ent["props"]}
    assert "usable_after_pass" in props and "light_wounds" in props
    assert props & set(data["names"]) == props & set(rules.names)
    assert data["words"] == phrases("pl").page

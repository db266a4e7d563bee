"""Log texts (issue #35 point 13): a copy of a component reads as its name, without its copy number,
in every language; a catalog's `{name|key=text|...|text}` field picks a text by the argument's
value, so that the catalog decides singular and plural, and articles (nemesis_rules/dsl/template.py).
"""

from __future__ import annotations

import pytest

from nemesis_rules import load_ruleset
from nemesis_rules.ruleset.validate import _placeholders, bad_placeholder
from tests.conftest import TOY

LANGS = ("en", "pl", "ru")


@pytest.fixture(scope="module")
def base_en():
    return load_ruleset("base")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("copy,component", [("attack_bite_4#2", "attack_bite_4"),
                                            ("scientist_search#2", "scientist_search"),
                                            ("adult_figure#3", "adult_figure")])
def test_a_copy_reads_as_its_component_without_its_number(lang, copy, component) -> None:
    rules = load_ruleset("base", lang=lang)
    assert rules.label(copy) == rules.names[component]


def test_a_copy_of_an_unnamed_component_reads_as_its_id_in_words() -> None:
    assert load_ruleset(TOY).label("no_such_card#2") == "no such card"


@pytest.mark.parametrize("n,text", [(1, "Adult Intruder has 1 injury"), (2, "Adult Intruder has 2 injuries")])
def test_a_count_picks_its_noun(base_en, n, text) -> None:
    assert base_en.message("injured", {"what": "adult_figure#1", "n": n}) == text


@pytest.mark.parametrize("n,text", [(1, "1 intruder moves into Cockpit (1)"), (3, "3 intruders move into Cockpit (1)")])
def test_intruders_moving_are_counted_in_words(base_en, n, text) -> None:
    assert base_en.message("intruders_move", {"room": "main_cockpit", "n": n}) == text


@pytest.mark.parametrize("what,text", [("adult", "An Adult dies"), ("creeper", "A Creeper dies")])
def test_an_article_fits_its_noun(base_en, what, text) -> None:
    assert base_en.message("intruder_dies", {"what": what, "room": "main_cockpit"}).startswith(text)


def test_a_choice_matches_a_copy_by_its_component_and_falls_back_to_the_last_text() -> None:
    rules = load_ruleset(TOY)
    rules.messages["probe"] = "{x|gem,ruby=a jewel|true=yes|something}"
    assert rules.message("probe", {"x": "gem#3"}) == "a jewel"
    assert rules.message("probe", {"x": True}) == "yes"
    assert rules.message("probe", {"x": 7}) == "something"
    assert rules.message("probe", {}) == "{x|gem,ruby=a jewel|true=yes|something}"  # no argument: as written


@pytest.mark.parametrize("template,bad", [
    ("{n|1=gem|gems}", None),
    ("{n|1,21=gem|2,3,4=gems|many gems}", None),
    ("{n|gem|gems}", "{n|gem|gems}"),          # only the last choice may lack its keys
    ("{n|1 = gem|gems}", "{n|1 = gem|gems}"),  # keys are plain words
    ("{n.x|1=gem|gems}", "{n.x|1=gem|gems}"),
])
def test_the_linter_accepts_only_the_choice_form(template, bad) -> None:
    assert bad_placeholder(template) == bad


def test_a_choice_field_counts_as_its_name_for_the_translations() -> None:
    assert _placeholders("{n} {n|1=gem|gems} in {room}") == {"n", "room"}


def test_a_drawn_bag_token_takes_its_article_in_english() -> None:
    """Retaliation's log read "A Adult token is drawn from the bag" (RT244)."""
    from nemesis_rules.openspiel import cached_rules
    rules = cached_rules(("retaliation",), "en")
    assert rules.message("token_drawn", {"what": "adult"}) == "An Adult token is drawn from the bag"
    assert rules.message("token_drawn", {"what": "queen"}) == "A Queen token is drawn from the bag"


@pytest.mark.parametrize("modules, key, values, text", [
    (("base", "carnomorphs"), "adaptation_removed", {"who": "scout", "what": "intruder_egg", "card": "scout"},
     "Scout analyses an Intruder Egg: Scout leaves the game"),
    (("base", "carnomorphs"), "adaptation_removed", {"who": "scout", "what": "character_corpse", "card": "scout"},
     "Scout analyses a Character Corpse: Scout leaves the game"),
    (("retaliation",), "gear_used", {"who": "officer", "gear": "ammo"}, "Officer uses an Ammo token"),
    (("retaliation",), "gear_gained", {"who": "officer", "gear": "oxygen_gear"}, "Officer gains an Oxygen token"),
    (("retaliation",), "gear_gained", {"who": "officer", "gear": "medpack"}, "Officer gains a Medpack token"),
])
def test_a_filled_name_takes_its_article_in_english(modules, key, values, text) -> None:
    """Carnomorphs' log read "analyses a Intruder Egg", Retaliation's "uses a Ammo token" (base V7, RT253)."""
    from nemesis_rules.openspiel import cached_rules
    assert cached_rules(modules, "en").message(key, values) == text


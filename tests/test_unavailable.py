"""Why an action is unavailable (issue #36 points 3 and 6; rulesets/base/DECISIONS.md U1-U5):
`unavailable_actions` tells the deciding seat nothing it does not see, only at its choice of action,
and the server's update carries it for that seat only. The reasons themselves are checked on
planted positions by tests/scenarios/base/unavailable/ (en, pl) and tests/test_screen_width.py."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import Game
from nemesis_rules.api import load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine.state import E_ZONE
from nemesis_rules.engine.view import zone_visible
from nemesis_rules.openspiel import cached_rules
from nemesis_rules.unavailable import unavailable_actions
from tests.conftest import TOY
from tests.positions import choose

PLAYERS = 3


@pytest.fixture(scope="module")
def rules():
    return cached_rules(("base",), "en")


def shuffled_hidden(game: Game, seat: int, rnd: random.Random) -> Game:
    """A copy of `game` whose content `seat` may not look at is dealt again: the other seats'
    hands swap cards, and every zone the seat sees no more than the size of is reordered."""
    other = game.clone()
    st, program = other.state, game.rules.program
    hidden = [z for z, members in st.zones.items() if members and zone_visible(program, z, seat) in ("size", "none")]
    hands = [z for z in hidden if z.startswith("hand@")]
    pool = [e for z in hands for e in st.zones[z]]
    rnd.shuffle(pool)
    for z in hands:
        n = len(st.zones[z])
        st.zones[z][:], pool = pool[:n], pool[n:]
        for e in st.zones[z]:
            st.entities[e][E_ZONE] = z
    for z in hidden:
        if z not in hands and not set(st.public).intersection(st.zones[z]) and not any(
                e in st.known for e in st.zones[z]):
            rnd.shuffle(st.zones[z])
    return other


def test_the_reasons_do_not_change_when_what_the_seat_cannot_see_is_dealt_again(rules):
    rnd, compared = random.Random(7), 0
    for seed in (1, 2):
        game = Game.new(rules, PLAYERS, seed)
        while not game.over and compared < 60:
            d = game.decision
            if d.prompt == "pick_action":
                reasons = unavailable_actions(game, d.player, every=True)
                assert unavailable_actions(shuffled_hidden(game, d.player, rnd), d.player, every=True) == reasons
                compared += bool(reasons)
            game.apply(rnd.randrange(len(d.options)))
    assert compared >= 20


GAMBLE = """\
## Whether the deck's top card is a boost (the deck is hidden: no seat may know it).
fn boost_on_top() = first(inside(deck)).suit == boost
## Action: never offered; its first test reads the hidden deck.
action gamble(who) cost 1 when boost_on_top() and who.pos > 99:
    who.pos += 1
"""


def test_a_reason_that_would_read_hidden_content_is_not_given(tmp_path):
    """A test of `when` that reads a hidden deck: worked out on the seat's seen state it cannot
    be read (no reason at all), so dealing the deck again changes nothing; on the real state its
    answer would follow the deck (the permutation check above would catch that)."""
    (tmp_path / "module.yaml").write_text('id: toy_gamble\nname: Gamble\nversion: 0.1.0\n'
                                          'engine: ">=0.1,<1"\nrequires: [toy]\n', encoding="utf-8")
    (tmp_path / "rules.nem").write_text(GAMBLE, encoding="utf-8")
    toy = load_ruleset(TOY, tmp_path)
    game = Game.new(toy, players=2, seed=1)
    assert game.decision.prompt == "pick_action" and "gamble" not in {o.value for o in game.decision.options}
    suits = set()
    for seed in range(12):
        other = game.clone()
        random.Random(seed).shuffle(other.state.zones["deck"])
        suits.add(other.state.entities[other.state.zones["deck"][0]][2].get("suit"))
        assert unavailable_actions(other, 0, every=True) == unavailable_actions(game, 0, every=True)
        assert "gamble" not in {a["action"] for a in unavailable_actions(other, 0, every=True)}
    assert "boost" in suits and len(suits) > 1  # the top card was and was not a boost


def test_only_a_choice_of_action_has_unavailable_actions(rules):
    game = Game.new(rules, 1, 1)
    assert game.decision.prompt == "draft_character" and unavailable_actions(game, 0) == []
    choose(game, "scout")
    assert game.decision.prompt == "pick_action"
    listed = unavailable_actions(game, 0)
    assert listed and all(set(a) == {"action", "label", "reason"} for a in listed)
    offered = {o.value for o in game.decision.options}
    assert not offered & {a["action"] for a in listed}


def test_a_reason_no_catalog_names_is_listed_only_when_every_reason_is_asked_for(rules):
    game = Game.new(rules, 1, 1)
    choose(game, "scout")
    listed = {a["action"] for a in unavailable_actions(game, 0)}
    every = {a["action"]: a["reason"] for a in unavailable_actions(game, 0, every=True)}
    assert "shoot_eggs" not in listed and every["shoot_eggs"].startswith("not: ")  # DECISIONS.md U2: its doc
    assert listed < set(every)


@pytest.mark.parametrize("seat", [-1, 1, True, "0", None])
def test_a_seat_that_is_not_one_is_refused(rules, seat):
    game = Game.new(rules, 1, 1)
    with pytest.raises(RulesError, match="no player"):
        unavailable_actions(game, seat)


def test_the_servers_update_carries_them_for_the_deciding_seat_only(rules, tmp_path):
    pytest.importorskip("websockets", reason="websockets is not installed (the `serve` extra)")
    from nemesis_rules.serve.server import update
    from nemesis_rules.serve.tables import Tables

    table = Tables(tmp_path).create(["base"], ["human", "human"], 1, {})
    game = table.game
    while game.decision.prompt != "pick_action":
        game.apply(0)
    seat = game.decision.player
    mine, theirs = update(table, seat)["decision"], update(table, 1 - seat)["decision"]
    assert mine["unavailable"] == unavailable_actions(game, seat) and mine["unavailable"]
    assert "unavailable" not in theirs and "options" not in theirs


@pytest.mark.parametrize(("lang", "shoot", "move_cautiously"), [
    ("en", "no Intruder in your Room", "costs 2, you can pay 1"),
    ("pl", "brak Intruza w twoim pomieszczeniu", "kosztuje 2, możesz zapłacić 1"),
])
def test_retaliation_names_its_reasons_in_its_catalog(lang, shoot, move_cautiously):
    """Retaliation's catalogs name its reasons (its DECISIONS.md RT239): a random game reads them."""
    seen = reasons_of_a_random_game(Game.new(cached_rules(("retaliation",), lang), PLAYERS, 2))
    assert shoot in seen["shoot"] and move_cautiously in seen["move_cautiously"], seen


def test_lockdown_reads_nemesis_cores_reasons():
    """nemesis_core's actions are named in its own catalog (base DECISIONS.md U3), so a Lockdown game,
    which has no base, reads the same reasons."""
    seen = reasons_of_a_random_game(Game.new(cached_rules(("lockdown",), "en"), PLAYERS, 2, board="provisional"))
    assert "no Intruder in your room" in seen["shoot"] and "only in combat" in seen["escape"], seen


def reasons_of_a_random_game(game: Game, moves: int = 300) -> dict[str, set[str]]:
    """Action -> the reasons its deciding seat read for it, over random moves of `game`."""
    rnd, seen = random.Random(2), {}
    while not game.over and len(game.state.moves) < moves:
        d = game.decision
        for a in unavailable_actions(game, d.player):
            seen.setdefault(a["action"], set()).add(a["reason"])
        game.apply(rnd.randrange(len(d.options)))
    return seen

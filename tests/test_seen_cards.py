"""Cards a seat sees and others do not (issue #35 points 1-2): a player looks at its own objective
cards, face down in front of it (zone visibility `owner_looks`), from the deal to the end, and
reads what each asks; nobody else does, and a discarded one stays unseen. Others see the backs of
the cards in a backpack (item_card `back: colour`), not the cards."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from nemesis_rules import Game, load_ruleset
from nemesis_rules.cli import render
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine.state import E_FACE, E_KIND, E_PROPS
from nemesis_rules.engine.view import SeenFunctions, seen_state_of, sees_entity
from nemesis_rules.serve.server import update
from nemesis_rules.serve.tables import Table
from tests.positions import inside, put

PLAYERS = 3


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")


def dealt(rules) -> Game:
    """A game at its first decision: the objectives are dealt (setup step 16), the draft begins."""
    return Game.new(rules, players=PLAYERS, seed=1)


def at_keep_decision(rules, seed: int = 2) -> Game:
    """A game played at random up to the first encounter's keep-which-objective decision."""
    game, rng = Game.new(rules, players=PLAYERS, seed=seed), random.Random(seed)
    while game.decision.prompt != "keep_objective":
        assert len(game.state.moves) < 500, "no first encounter: the seed no longer reaches it"
        game.apply(rng.randrange(len(game.decision)))
    return game


def named(view: dict, eid: str) -> bool:
    """Whether a view shows the entity: its record, or its id in a zone's list (seen in full,
    made public or peeked at), or among the options of the seat's decision."""
    listed = [[*z.get("entities", ()), *z.get("public", ()), *z.get("known", {})] for z in view["zones"].values()]
    options = (view["decision"] or {}).get("options", ())
    return eid in view["entities"] or any(eid in members for members in listed) or eid in options


def screen_text(rules, view: dict) -> str:
    console = Console(width=400, color_system=None, record=True, file=io.StringIO())
    render.view_screen(console, rules, view)
    return console.export_text()


# ---- point 1: objectives
def test_only_the_owner_sees_its_dealt_objectives_and_what_they_ask(rules):
    game = dealt(rules)
    cards = inside(game, "objectives@player1")
    assert len(cards) == 2 and not any(game.state.entities[c][E_FACE] for c in cards)  # face down on the table
    view = game.view(0)
    assert view["zones"]["objectives@player1"]["entities"] == cards
    assert {view["entities"][c]["component"] for c in cards} == set(cards)
    text = screen_text(rules, view)
    for c in cards:
        face = render.with_text(rules, view["entities"][c], rules.label(c))  # the name, then the card's condition
        assert face.startswith(f"{rules.label(c)}: ") and face[:40] in " ".join(text.split())
    for seat in (1, 2, None):  # another seat, a spectator
        view = game.view(seat)
        assert view["zones"]["objectives@player1"] == {"size": 2}
        assert not any(named(view, c) for c in cards)
        assert not any(rules.label(c) in screen_text(rules, view) for c in cards)
        assert not any(sees_entity(rules.program, game.state, seat, c) for c in cards)


def test_the_keep_decision_shows_each_cards_condition(rules):
    game = at_keep_decision(rules)
    d = game.decision
    view = game.view(d.player)
    labels = [render.option_label(rules, view, o) for o in d.options]
    faces = [render.with_text(rules, view["entities"][o.value], o.label) for o in d.options]
    assert len(labels) == 2 and labels == faces and all(len(f) > len(o.label) + 5 for f, o in zip(faces, d.options, strict=True)), labels
    other = game.view((d.player + 1) % PLAYERS)
    assert "options" not in other["decision"]
    assert all(render.option_label(rules, other, o) == o.label for o in d.options)  # an unseen card: its name only
    table = Table("t", ["base"], "en", ["human"] * PLAYERS, ["a", "b", "c"], game)  # the web table's message
    sent = update(table, d.player)
    assert [o["label"] for o in sent["decision"]["options"]] == labels
    assert any(rules.label(o.value) in line for o in d.options for line in sent["screen"]["zones"])
    for seat in (d.player + 1) % PLAYERS, None:
        shown = update(table, seat)["screen"]["zones"]
        assert not any(rules.label(o.value) in line for o in d.options for line in shown), seat


def test_a_discarded_objective_stays_hidden_from_everyone(rules):
    game = at_keep_decision(rules)
    seat = game.decision.player
    owner = rules.program.player_ids[seat]
    kept, dropped = inside(game, f"objectives@{owner}")
    game.apply(0)
    assert inside(game, f"objectives@{owner}") == [kept]
    for viewer in (*range(PLAYERS), None):
        view = game.view(viewer)
        assert not named(view, dropped), viewer
        assert not sees_entity(rules.program, game.state, viewer, dropped)
    assert named(game.view(seat), kept) and not named(game.view((seat + 1) % PLAYERS), kept)


def test_a_bots_seen_state_holds_its_own_objectives_only(rules):
    game = dealt(rules)
    st = game.state
    mars = next(c for c in st.entities if st.entities[c][E_KIND] == "objective_card"
                and st.entities[c][E_PROPS].get("destination") == "mars")
    put(game, mars, "objectives@player1")  # a card that sends its holder to Mars
    mine = seen_state_of(rules.program, st, 0)
    assert mars in mine.entities and mars in mine.zones["objectives@player1"]
    assert SeenFunctions(rules.program, mine, rules.fingerprint).call("wanted_destination", "player1") == "mars"
    theirs = seen_state_of(rules.program, st, 1)
    assert mars not in theirs.entities and mars not in theirs.zones["objectives@player1"]


# ---- point 2: backpack backs
def test_others_see_a_backpack_cards_colour_not_the_card(rules):
    game = dealt(rules)
    red, yellow = inside(game, "item_deck_red")[0], inside(game, "item_deck_yellow")[0]
    for card in (red, yellow):  # found: face up in the backpack, as `take_found_item` leaves it
        put(game, card, "backpack@player1")
        game.state.entities[card][E_FACE] = True
    own = game.view(0)
    assert own["zones"]["backpack@player1"]["entities"] == [yellow, red]
    for seat in (1, None):
        view = game.view(seat)
        assert view["zones"]["backpack@player1"] == {"size": 2, "backs": ["yellow", "red"]}
        assert not named(view, red) and not named(view, yellow)
        text = screen_text(rules, view)
        assert "Backpack (Player 1): 2 hidden (backs: yellow, red)" in text
        assert rules.label(red) not in text.replace(rules.label("item_deck_red"), "")


def test_a_face_down_card_in_a_zone_one_sees_shows_its_back(rules):
    game = dealt(rules)
    card = inside(game, "item_deck_green")[0]
    put(game, card, "item_discard_green")  # a public pile; the card still lies face down
    listed = game.view(1)["zones"]["item_discard_green"]["entities"]
    assert listed == [{"face_down": "item_card", "back": "green"}]


# ---- bad declarations: a clear error naming the kind and the field
@pytest.mark.parametrize(("field", "value", "says"), [
    ("back", "no_such_prop", "prints undeclared prop `no_such_prop` on its back"),
    ("text", "no_such_field", "prints undeclared script field `no_such_field` on its face"),
])
def test_a_back_or_text_naming_nothing_is_refused(tmp_path, field, value, says):
    mod = tmp_path / "printed"
    mod.mkdir()
    (mod / "module.yaml").write_text("id: printed\nname: Printed\nversion: 0.1.0\nentry: main\n")
    (mod / "cards.yaml").write_text(
        "kinds:\n"
        f"  card: {{props: {{colour: symbol}}, scripts: {{effect: [who]}}, {field}: {value}}}\n"
        "zones:\n  deck: {visibility: hidden}\n"
        "symbols: [red]\n"
        "components:\n  - {id: gem, kind: card, zone: deck, props: {colour: red}}\n")
    (mod / "main.nem").write_text("proc main():\n    let x = 1\n")
    with pytest.raises(RulesError, match="E306") as err:
        load_ruleset(mod)
    assert says in str(err.value)


def test_a_face_down_card_whose_back_prints_nothing_shows_no_back() -> None:
    """A kind that prints a prop on its back (`back: colour`) but a card with none (Retaliation's
    Support Equipment) shows a plain placeholder, as the zone rules say, not `back: None` (the
    long property run, 2 players seed 4)."""
    from nemesis_rules.engine.view import _show_back

    rules = load_ruleset("retaliation")
    program = rules.program
    game = Game.new(rules, players=2, seed=4)
    card = next(e for e, ent in game.state.entities.items() if ent[0] == "item_card" and not (ent[2].get("colour")))
    placeholder = {"face_down": "item_card"}
    _show_back(program, game.state.entities[card], placeholder)
    assert placeholder == {"face_down": "item_card"}


def test_a_retaliation_player_reads_their_own_hand_and_backpack() -> None:
    """Seen on the web table: every Action card in a player's own hand read 'a face-down Action
    card'. The owner reads its Action cards and Backpack (Contamination stays face down: only a
    scan tells it); the other seat sees only how many, and the Backpack's backs."""
    rules = load_ruleset("retaliation")
    def ready(g):
        zones, table = g.state.zones, g.state.entities
        return zones["backpack@player1"] and any(table[e][0] == "action_card" for e in zones["hand@player1"])

    game = next(g for g in (_played_until(rules, seed, ready) for seed in range(20)) if g is not None)
    mine, theirs = game.view(0), game.view(1)
    hand = mine["zones"]["hand@player1"]["entities"]
    actions = [e for e in game.state.zones["hand@player1"] if game.state.entities[e][0] == "action_card"]
    assert actions and all(e in hand for e in actions)
    assert all(e in mine["zones"]["backpack@player1"]["entities"] for e in game.state.zones["backpack@player1"])
    assert "entities" not in theirs["zones"]["hand@player1"] and "entities" not in theirs["zones"]["backpack@player1"]


def _played_until(rules, seed: int, ready):
    """A random game of the seed played until `ready(game)` holds, or None if it ends first."""
    game, rng = Game.new(rules, players=2, seed=seed), random.Random(seed)
    for _ in range(400):
        if ready(game):
            return game
        if game.over:
            return None
        game.apply(rng.randrange(len(game.decision)))
    return None

"""The search bot (nemesis_rules/search.py): it plays from its seat's view only."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nemesis_rules import Game, load_ruleset
from nemesis_rules.bots import (
    BOT_KINDS,
    HeuristicBot,
    Seen,
    bot_seed,
    make_bot,
    play_turn,
    search_budget,
)
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine.state import E_ZONE
from nemesis_rules.ruleset.check_api import check_paths
from nemesis_rules.search import Sampler, SearchBot


@pytest.fixture(scope="module")
def rules():
    return load_ruleset("base")


def game_at_a_choice(rules, seed: int = 3) -> Game:
    """A 4-player base game played by heuristic bots until seat 0 picks an action (a decision base's
    search bot searches) among 3 options or more after the first moves (hands dealt, some cards played)."""
    game = Game.new(rules, players=4, seed=seed)
    bots = {s: make_bot("heuristic", bot_seed(seed, s)) for s in range(4)}
    while not (game.decision.player == 0 and game.decision.prompt == "pick_action" and len(game.decision) >= 3
               and game.move_count > 12):
        play_turn(game, bots)
    return game


def seen_by(game: Game, seat: int) -> dict:
    return game.view(seat)


def test_a_world_looks_to_the_seat_as_the_game_does_and_deals_the_hidden_anew(rules):
    game = game_at_a_choice(rules)
    before = game.to_json()
    sampler = Sampler(game, 0)
    gen = random.Random(1)
    worlds = [sampler.world(gen) for _ in range(4)]
    for world in worlds:
        mine = {k: v for k, v in world.view(0).items() if k != "log"}
        assert mine == {k: v for k, v in game.view(0).items() if k != "log"}
    assert game.to_json() == before  # the game itself is untouched
    # the hidden decks are dealt afresh: the worlds' event decks are not all the game's
    decks = {tuple(w._state.zones["event_deck"]) for w in worlds}
    assert len(decks | {tuple(game._state.zones["event_deck"])}) > 1


def hidden_shuffled(game: Game, seat: int, gen: random.Random) -> Game:
    """The game with what `seat` cannot tell apart moved: every zone it may only count that holds
    one kind of entity (a deck, the bag) shuffled, and another seat's hand swapped, card for card,
    with that player's action deck (a hand and a deck the seat only counts)."""
    twin = game.clone()
    st = twin._state
    program = twin.rules.program
    from nemesis_rules.engine.view import zone_visible
    for zone, members in list(dict.items(st.zones)):
        kinds = {st.entities[e][0] for e in members}
        if zone_visible(program, zone, seat) == "size" and len(kinds) == 1 and not set(members) & set(st.public):
            members = st.zones[zone]
            gen.shuffle(members)
    same_kind = [(other, i, j) for other in program.player_ids[1:st.players]
                 for i, h in enumerate(st.zones[f"hand@{other}"]) for j, d in enumerate(st.zones[f"action_deck@{other}"])
                 if st.entities[h][0] == st.entities[d][0] == "action_card"]
    assert same_kind, "the planted position needs an action card in another seat's hand and deck"
    other, i, j = same_kind[0]
    hand, deck = st.zones[f"hand@{other}"], st.zones[f"action_deck@{other}"]
    hand[i], deck[j] = deck[j], hand[i]
    st.entities[hand[i]][E_ZONE], st.entities[deck[j]][E_ZONE] = f"hand@{other}", f"action_deck@{other}"
    return twin


def test_the_search_bots_choice_does_not_change_when_what_it_cannot_see_is_moved(rules):
    game = game_at_a_choice(rules)
    twin = hidden_shuffled(game, 0, random.Random(7))
    assert twin._state.zones != game._state.zones          # the hidden content did move
    assert {k: v for k, v in twin.view(0).items() if k != "log"} == \
        {k: v for k, v in game.view(0).items() if k != "log"}  # and seat 0 cannot tell
    # the worlds the bot samples are the same, entity for entity, so are its playouts and choice
    a, b = Sampler(game, 0).world(random.Random(5)), Sampler(twin, 0).world(random.Random(5))
    assert dict(dict.items(a._state.zones)) == dict(dict.items(b._state.zones))
    bot = SearchBot("s", HeuristicBot("s"), playouts=4, depth=12)
    assert bot.choose(Seen(game, 0, game.decision)) == bot.choose(Seen(twin, 0, twin.decision))


def test_the_search_bot_is_deterministic_and_leaves_the_game_alone(rules):
    game = game_at_a_choice(rules)
    before = game.to_json()
    picks = {SearchBot("s", HeuristicBot("s"), playouts=4, depth=12).choose(Seen(game, 0, game.decision)) for _ in range(2)}
    assert len(picks) == 1 and 0 <= picks.pop() < len(game.decision)
    assert game.to_json() == before


@pytest.mark.parametrize("kind, playouts", [("search", 8), ("search:3", 3), ("heuristic", None),
                                            ("search:0", None), ("search:x", None), ("searcher", None)])
def test_a_search_kind_names_its_budget(kind, playouts):
    assert search_budget(kind) == playouts
    assert (kind in BOT_KINDS) == (kind in ("search", "search:3", "heuristic"))


def test_an_unknown_search_budget_is_refused_clearly():
    with pytest.raises(ValueError, match="unknown bot 'search:0'"):
        make_bot("search:0", 1)


def test_simulate_plays_a_game_with_search_bots(capsys):
    from nemesis_rules.cli.main import main
    assert main(["simulate", "--modules", "base", "--players", "1", "--games", "1", "--bots", "search:1",
                 "--jobs", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert "errors: none" in out and "search:1" in out


@pytest.mark.parametrize("kind", ["search:0", "search:-2", "search:many"])
def test_simulate_refuses_a_bad_search_budget_in_one_line(capsys, kind):
    from nemesis_rules.cli.main import main
    assert main(["simulate", "--modules", "base", "--games", "1", "--bots", kind]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nemesis: ") and f"unknown bot {kind!r}" in err and len(err.strip().splitlines()) == 1


def test_a_playout_the_rules_break_is_skipped_and_the_heuristic_pick_stands(rules, monkeypatch):
    from nemesis_rules import search
    from nemesis_rules.dsl.diagnostics import RulesError

    def broken(world, seat):
        raise RulesError("a rule failed in a sampled world")
    game = game_at_a_choice(rules)
    monkeypatch.setattr(search, "evaluate", broken)
    seen = Seen(game, 0, game.decision)
    scores = [HeuristicBot("s").score(seen, o) for o in game.decision.options]
    assert SearchBot("s", HeuristicBot("s"), playouts=2, depth=4).choose(seen) == scores.index(max(scores))


def test_a_finished_playout_scores_a_win_a_survival_and_a_death(rules):
    from nemesis_rules.search import SURVIVED, evaluate
    game = game_at_a_choice(rules)
    world = game.clone()
    world._state.result = {"reason": "jump", "winners": (2,)}  # the result names the winners' seats
    players = rules.program.player_ids
    world._state.entities[players[1]][2]["status"] = "asleep"
    world._state.entities[players[3]][2]["status"] = "killed"
    assert [evaluate(world, seat) for seat in (2, 1, 3)] == [1.0, SURVIVED, 0.0]
    assert 0.0 < evaluate(game, 0) < 1.0  # a game going on: base's bot_value, scaled


# ---- which decisions are searched: the module's `bot_search_here(me, prompt)` (base: DECISIONS.md Q3)
def counting_worlds(monkeypatch) -> list[int]:
    """Counts the worlds the search bot makes from now on (one a playout)."""
    made = [0]
    world = Sampler.world

    def counted(self, gen):
        made[0] += 1
        return world(self, gen)
    monkeypatch.setattr(Sampler, "world", counted)
    return made


def game_at(rules, prompt: str, seed: int = 3) -> Game:
    """A 4-player base game played by heuristic bots until seat 0 decides `prompt` among 2 options or more."""
    game = Game.new(rules, players=4, seed=seed)
    bots = {s: make_bot("heuristic", bot_seed(seed, s)) for s in range(4)}
    while not (game.decision.player == 0 and game.decision.prompt == prompt and len(game.decision) >= 2):
        play_turn(game, bots)
    return game


def test_base_searches_the_action_to_take(rules, monkeypatch):
    game = game_at(rules, "pick_action")
    made = counting_worlds(monkeypatch)
    SearchBot("s", HeuristicBot("s"), playouts=2, depth=4).choose(Seen(game, 0, game.decision))
    assert made[0] == 2


def test_base_leaves_which_card_pays_to_the_heuristic_bot(rules, monkeypatch):
    game = game_at(rules, "pay_with")
    made = counting_worlds(monkeypatch)
    seen = Seen(game, 0, game.decision)
    assert SearchBot("s", HeuristicBot("s"), playouts=2, depth=4).choose(seen) == HeuristicBot("s").choose(seen)
    assert made[0] == 0  # no playout spent


def test_a_search_here_answer_that_is_no_truth_value_is_refused_clearly(tmp_path):
    folder = tmp_path / "picky"
    (folder / "rules").mkdir(parents=True)
    (folder / "module.yaml").write_text("id: picky\nname: Picky\nversion: 0.1.0\nrequires: [base]\n")
    (folder / "rules" / "search.nem").write_text("modifier bot_search_here(me, prompt): = 1\n")
    rules = load_ruleset("base", folder)
    game = game_at(rules, "pick_action")
    with pytest.raises(RulesError, match=r"bot_search_here\(player1, pick_action\) gave .*not true or false"):
        SearchBot("s", HeuristicBot("s"), playouts=2, depth=4).choose(Seen(game, 0, game.decision))


def test_a_misdeclared_search_here_is_reported(tmp_path, monkeypatch):
    toy = Path(__file__).parent / "fixtures" / "toy"
    folder = tmp_path / "picky"
    (folder / "rules").mkdir(parents=True)
    (folder / "module.yaml").write_text("id: picky\nname: Picky\nversion: 0.1.0\nrequires: [toy]\n")
    (folder / "rules" / "search.nem").write_text("fn bot_search_here(me) = true\n")
    monkeypatch.chdir(toy.parent)
    found = [d for d in check_paths([folder])[0] if d.code == "E400"]
    assert found and "with 2 arguments" in found[0].message, check_paths([folder])[0]


WORLD_IN_A_FRESH_PROCESS = """
import random, sys
from nemesis_rules import load_ruleset
from tests.test_search import game_at_a_choice
from nemesis_rules.search import Sampler
world = Sampler(game_at_a_choice(load_ruleset("base")), 0).world(random.Random(5))
print(sorted(dict.items(world._state.zones)), world._state.rng)
"""


def test_a_world_does_not_depend_on_the_process_string_hashing():
    """Python salts str hashes per process: a world dealt in set order would change from run to run,
    and a search bot's game with it (the same seed must give the same game in every process)."""
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    worlds = {subprocess.run([sys.executable, "-c", WORLD_IN_A_FRESH_PROCESS], cwd=root, capture_output=True,
                             text=True, check=True, env={**os.environ, "PYTHONPATH": str(root),
                                                         "PYTHONHASHSEED": salt}).stdout
              for salt in ("1", "2", "3")}
    assert len(worlds) == 1

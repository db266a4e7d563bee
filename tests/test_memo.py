"""Function results are kept until something they read changes (engine/vm.py `Runtime.memo`): a
result kept too long is a wrong game that still looks right. So random games are played twice,
once as the engine plays them and once with no function result kept at all, and must agree at
every step: the decisions, the state, the result."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_base_properties import seeds_from_env

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.engine import vm
from nemesis_rules.engine.state import E_ZONE, canonical_json

LOCKDOWN_BOARD = str(Path(__file__).parent / "fixtures" / "lockdown_testboard_invented")
# every module and mode, each at player counts that reach its different paths (the slow run)
MEMO_RUNS = [
    (("base",), {}, [1, 2, 3, 4, 5]), (("base",), {"mode": "solo"}, [1]), (("base",), {"mode": "coop"}, [2, 4]),
    (("base",), {"mode": "intruder_player"}, [3, 5]), (("base", "chytrids"), {}, [2, 4]),
    (("base", "void_seeders"), {}, [3]), (("base", "carnomorphs"), {}, [3]), (("base", "aftermath"), {}, [3]),
    (("base", "aftermath"), {"mode": "research_mission"}, [2]),
    (("lockdown", "chytrids", LOCKDOWN_BOARD), {}, [2, 4]), (("lockdown", "void_seeders", LOCKDOWN_BOARD), {}, [3]),
    (("lockdown", "aftermath", LOCKDOWN_BOARD), {}, [3]),
]


class Forgetful(vm.Runtime):
    """A runtime that keeps no function result: every call computes again."""

    __slots__ = ()

    def remember(self, key, value, reads) -> None:
        pass


def _pair(rules, players: int, seed: int, **options) -> tuple[Game, Game]:
    kept = Game.new(rules, players=players, seed=seed, **options)
    plain = Game.new(rules, players=players, seed=seed, autostart=False, **options)
    plain._runtime = Forgetful(rules.program, plain._state)
    plain.start()
    return kept, plain


def _same_step(kept: Game, plain: Game, whole: bool) -> None:
    assert kept.over == plain.over
    if not kept.over:
        a, b = kept.decision, plain.decision
        assert (a.player, a.prompt, [o.value for o in a.options]) == (b.player, b.prompt, [o.value for o in b.options])
    if whole or kept.over:
        assert canonical_json(kept._state.to_dict()) == canonical_json(plain._state.to_dict())


@pytest.mark.parametrize("modules,seeds", [(("base",), range(2)), (("base", "chytrids"), range(1, 2))])
def test_kept_results_play_as_computed_ones(modules, seeds):
    rules = load_ruleset(*modules)
    for seed in seeds:
        _play_both_ways(rules, 4, seed, random.Random(seed))


@pytest.mark.slow
@pytest.mark.parametrize("modules,options,counts", MEMO_RUNS)
def test_many_games_kept_results_play_as_computed_ones(modules, options, counts):
    """NEMESIS_MEMO_SEEDS seeds (default 200; `a-b` for a range) for each player count of every
    module and mode. The property runs also play with kept results (test_base_properties.py
    `live_state`), but only this compares each step with a game that keeps none."""
    rules = load_ruleset(*modules)
    for seed in seeds_from_env("NEMESIS_MEMO_SEEDS", "200"):
        for players in counts:
            _play_both_ways(rules, players, seed, random.Random(seed * 31 + players), **options)


def _play_both_ways(rules, players: int, seed: int, rnd: random.Random, **options) -> None:
    kept, plain = _pair(rules, players, seed, **options)
    assert not kept._runtime.exposed  # the results are kept from one move to the next
    _same_step(kept, plain, True)
    while not kept.over:
        choice = rnd.randrange(len(kept.decision))
        kept.apply(choice)
        plain.apply(choice)
        _same_step(kept, plain, len(kept._state.moves) % 8 == 0)
    assert kept._runtime.memo  # something was kept


def _step(game: Game, choice: int | None):
    """Apply a choice (None: none); what follows: the next decision, the end or the rules error."""
    try:
        if choice is not None:
            game.apply(choice)
    except RulesError as err:
        return ("error", str(err))
    d = game.decision
    return ("over", game.result) if d is None else (d.player, d.prompt, [o.value for o in d.options])


def test_a_state_read_from_outside_is_computed_afresh():
    """Whoever reads `Game.state` may change it between moves, which no change hook sees: such a
    game forgets its results at every move, and plays as a game that keeps none."""
    rules = load_ruleset("base")
    game = Game.new(rules, players=4, seed=5)
    rnd = random.Random(5)
    for _ in range(20):  # mid-round: the hands are not all dealt again before they are read
        game.apply(rnd.randrange(len(game.decision)))
    assert not game._runtime.exposed and game._runtime.memo
    st = game.state
    assert game._runtime.exposed
    # an edit through the state that the rules read: each player takes the next one's hand
    hands = sorted(z for z in st.zones if z.startswith("hand@"))
    cards = [st.zones[z] for z in hands]
    assert len(set(map(tuple, cards))) > 1
    for zone, held in zip(hands, cards[1:] + cards[:1], strict=True):
        st.zones[zone] = held
        for e in held:
            st.entities[e][E_ZONE] = zone
    plain = Game(rules, st.clone())
    plain._runtime = Forgetful(rules.program, plain._state)
    for _ in range(80):
        if game.over:
            break
        choice = rnd.randrange(len(game.decision))
        seen = _step(game, choice)
        assert seen == _step(plain, choice)
        if seen[0] == "error":
            break

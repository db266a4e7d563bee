"""Function results are kept until something they read changes (engine/vm.py `Runtime.memo`): a
result kept too long is a wrong game that still looks right. So random games are played twice,
once as the engine plays them and once with no function result kept at all, and must agree at
every step: the decisions, the state, the result."""

from __future__ import annotations

import random

import pytest

from nemesis_rules import Game, RulesError, load_ruleset
from nemesis_rules.engine import vm
from nemesis_rules.engine.state import E_ZONE, canonical_json


class Forgetful(vm.Runtime):
    """A runtime that keeps no function result: every call computes again."""

    __slots__ = ()

    def remember(self, key, value, reads) -> None:
        pass


def _pair(rules, players: int, seed: int) -> tuple[Game, Game]:
    kept = Game.new(rules, players=players, seed=seed)
    plain = Game.new(rules, players=players, seed=seed, autostart=False)
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
        kept, plain = _pair(rules, 4, seed)
        assert not kept._runtime.exposed  # the results are kept from one move to the next
        rnd = random.Random(seed)
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

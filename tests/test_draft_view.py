"""The character draft (base DECISIONS F45; base.md L147, aftermath.md L686-689): a player reveals
two draft cards, so everyone sees them while that player chooses; the one not kept goes back into
the deck, where nobody sees it. Before, base, Lockdown and Aftermath players chose blind."""

from __future__ import annotations

import pytest

from nemesis_rules.api import Game
from nemesis_rules.openspiel import cached_rules

PLAYERS = 3
POOLS = ("character_pool", "aftermath_character_pool")  # the draft decks (nemesis_core, Aftermath)


def _characters_seen(game: Game, seat: int) -> dict[str, str]:
    """component -> zone of every character the seat sees."""
    return {e["component"]: e["zone"] for e in game.view(seat)["entities"].values() if e["kind"] == "character"}


@pytest.mark.parametrize(("modules", "options"), [
    (("base",), {}),
    (("lockdown",), {"board": "provisional"}),
    (("base", "aftermath"), {}),
])
def test_everyone_sees_the_two_drafted_cards_and_nobody_the_one_put_back(modules, options):
    game = Game.new(cached_rules(modules, "en"), PLAYERS, 1, **options)
    drafts = 0
    while drafts < PLAYERS:
        d = game.decision
        if d.prompt not in ("draft_character", "draft_which_character"):
            game.apply(0)
            continue
        offered = game.view(d.player)["decision"]["options"]
        assert all(isinstance(o, str) for o in offered), offered  # names, not "a face-down Character"
        first_choice = d.prompt == "draft_character"
        for seat in range(PLAYERS):  # the others see them too, where they lie
            seen = _characters_seen(game, seat)
            assert set(offered) <= set(seen), (seat, offered, seen)
        game.apply(0)
        if first_choice:
            drafts += 1
            d = game.decision  # the next player's two may include the one put back, shown again
            drafting = d.prompt in ("draft_character", "draft_which_character")
            now = game.view(d.player)["decision"]["options"] if drafting else []
            for seat in range(PLAYERS):
                in_pool = {c for c, zone in _characters_seen(game, seat).items() if zone in POOLS}
                assert in_pool == set(now), (seat, in_pool, now)

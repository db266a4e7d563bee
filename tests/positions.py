"""Helpers for tests that arrange a position by hand and take decisions by value."""

from __future__ import annotations

from nemesis_rules.engine.state import E_PROPS, E_ZONE


def put(game, eid: str, zone: str, on_top: bool = True) -> None:
    """Move an entity in the state (arranging a position)."""
    ent = game.state.entities[eid]
    if ent[E_ZONE] is not None:
        game.state.zones[ent[E_ZONE]].remove(eid)
    z = game.state.zones[zone]
    z.insert(0, eid) if on_top else z.append(eid)
    ent[E_ZONE] = zone


def choose(game, value, player: int | None = None) -> None:
    """Take the option whose value is `value` (asserting who decides, if given)."""
    d = game.decision
    assert d is not None, "the game waits for no decision"
    if player is not None:
        assert d.player == player, f"{d.prompt} is asked of seat {d.player}, not {player}"
    matches = [o for o in d.options if o.value == value]
    assert matches, f"{value!r} is not an option of {d.prompt}: {[o.value for o in d.options]}"
    game.apply(matches[0])


def props(game, eid: str) -> dict:
    """The props an entity has been given (defaults not included)."""
    return game.state.entities[eid][E_PROPS]


def zone_of(game, eid: str) -> str | None:
    return game.state.entities[eid][E_ZONE]


def inside(game, zone: str) -> list[str]:
    return list(game.state.zones[zone])

"""Why an action is unavailable, in words (issue #36 points 3 and 6; rulesets/base/DECISIONS.md
U1-U5): the reasons `engine/why.py` works out for a seat's choice of action, read in the game's
language, for the page (`nemesis serve`), `nemesis play` and scenarios."""

from __future__ import annotations

from typing import Any

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.dsl.describe import phrases
from nemesis_rules.dsl.diagnostics import RulesError, brief
from nemesis_rules.engine import why


def unavailable_actions(game: Game, player: int, every: bool = False) -> list[dict[str, str]]:
    """The declared actions `player` is not offered at its pending choice of action, each
    `{"action", "label", "reason"}` in the ruleset's language, worked out from the action's own
    declaration on what the seat sees; empty at any other decision.

    Listed: a cost the seat cannot pay, and a failing test or empty domain the modules name a
    reason for in their catalog (`why.KEY` messages; DECISIONS.md U2). `every=True` lists the
    others too, each read from its function's doc or name."""
    seats = game.state.players
    if not (isinstance(player, int) and not isinstance(player, bool) and 0 <= player < seats):
        raise RulesError(f"no player {brief(player)}: seats are 0 to {seats - 1}")
    if game.over:
        return []
    rules, found = game.rules, []
    for item in why.unavailable(rules.program, game.state, player):
        reason = why_text(rules, item["why"], every)
        if reason is not None:
            found.append({"action": item["action"], "label": rules.label(item["action"]), "reason": reason})
    return found


def why_text(rules: Ruleset, reason: dict[str, Any], every: bool = False) -> str | None:
    """A reason of `engine.why.unavailable` in words: a cost from the engine's phrases, a named
    reason from the catalog (`why.KEY`); None for an unnamed one unless `every`."""
    screen = phrases(rules.lang).screen
    if "cost" in reason:
        return screen["why_cost"].format(cost=reason["cost"], have=reason["can_pay"])
    key = reason["when"] if "when" in reason else reason["key"]
    if key is not None and f"why.{key}" in rules.messages:
        return rules.message(f"why.{key}")
    if not every:
        return None
    if "domain" in reason:
        return screen["why_none"].format(what=rules.label(reason["domain"]))
    if key is None:
        return screen["why_when"]
    name = key.removeprefix("not_")
    fns = rules.composition.fns
    doc = fns[name].value.doc if name in fns else ""
    test = doc.split("\n")[0].rstrip(".") if doc else rules.label(name)
    return screen["why_not"].format(test=test) if key.startswith("not_") else test

"""Why an action is not offered: for the seat whose action decision is pending, each declared
action it is not offered, with the first part of the action's own declaration that fails.

The parts are tried in the order `actions()` tries them (compile.py `_reasons`): each conjunct of
`when`, each parameter's domain, then the cost against `can_pay`. They run on the seat's seen
state (`seen_state_of`), as a bot's hints do, so a reason tells nothing the seat does not see;
an action that looks available there (it hangs on something hidden) gets no reason. Computed
only when asked (a view for a human seat), never while a game is played.
"""

from __future__ import annotations

from typing import Any

from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.engine import limits, vm
from nemesis_rules.engine.program import ActionInfo, Program
from nemesis_rules.engine.state import GameState
from nemesis_rules.engine.view import SeenFunctions, seen_state_of


def unavailable(program: Program, st: GameState, seat: int) -> list[dict[str, Any]]:
    """The actions the seat is not offered at its pending action decision, in declaration order,
    each `{"action", "why"}` with `why` one of `{"when": key}` (a conjunct of `when` fails; key:
    the catalog key of what holds instead, or None), `{"domain": param, "key": key}` (nothing to
    choose for `param`) or `{"cost": n, "can_pay": k}` (the most it can pay below n). Empty when
    no decision of the seat offers actions."""
    offered = _offered_actions(program, st, seat)
    if not offered:
        return []
    rt = SeenFunctions(program, seen_state_of(program, st, seat), st.ruleset).rt
    actor = program.player_ids[seat]
    found = []
    for info in program.actions:
        if info.name not in offered:
            why = _first_failing(rt, info, actor)
            if why is not None:
                found.append({"action": info.name, "why": why})
    return found


def _offered_actions(program: Program, st: GameState, seat: int) -> set[str]:
    """The actions the seat's pending decision offers (empty unless every option but a pass is a
    declared action: the decision is a choice of action)."""
    d = st.pending
    if d is None or d["player"] != seat:
        return set()
    names = [o for o in d["options"] if o is not None]
    if not names or not all(type(o) is str and o in program.action_index for o in names):
        return set()
    return set(names)


def _first_failing(rt: vm.Runtime, info: ActionInfo, actor: str) -> dict[str, Any] | None:
    """The first part of the action's test that fails on the seen state; None when all hold or
    a part cannot be worked out there (it reads what the seat does not see)."""
    limits.work[0] = 0
    try:
        for param, key, test in info.reasons:
            if not test(rt, [actor]):
                return {"when": key} if param is None else {"domain": param, "key": key}
        can_pay = rt.program.can_pay
        cost = info.cost(rt, [actor]) if info.cost is not None else 0
        if can_pay is None or can_pay(rt, [actor, cost]):
            return None
        return {"cost": cost, "can_pay": next((k for k in range(cost - 1, 0, -1) if can_pay(rt, [actor, k])), 0)}
    except (RulesError, *vm._RUNTIME_ERRORS):
        return None

"""Expression script fields: a kind's `functions:` fields hold one expression, read like a
function anywhere (an action's `when`, a `fn`), with `this` the entity (rooms' `usable`)."""

from __future__ import annotations

import pytest
from test_language_rows import props, write_module

from nemesis_rules import Game, load_ruleset
from nemesis_rules.dsl.diagnostics import RulesError

COMPONENTS = """
kinds:
  player:
    props: {n: int}
    defaults: {n: 0}
  lever:
    props: {need: int}
    scripts: {pull: [who]}
    functions: {ready: [who]}
components:
  - id: small
    kind: lever
    props: {need: 1}
    ready: who.n >= this.need
    pull: who.n += 10
  - id: plain
    kind: lever
    props: {need: 0}
    pull: who.n += 100
"""

RULES = """
fn ready_levers(who) = [l for l in entities(lever) if not has_script(l, "ready") or l.ready(who)]

proc main():
    let p = player_at(0)
    while true:  # noqa: W800
        let a = choose(p, actions(p), prompt="act", optional=true)
        if a == none:
            return
        perform(a, p)

action bump(who) when who.n == 0:
    who.n += 1

action pull(who, l in ready_levers(who)):
    l.pull(who)
"""


def rules(tmp_path, components=COMPONENTS, text=RULES):
    return load_ruleset(write_module(tmp_path / "levers", text, components, "messages: {act: Act}\n"))


def values(game):
    return [o.value for o in game.decision.options]


def test_an_expression_field_decides_what_is_offered(tmp_path):
    game = Game.new(rules(tmp_path), players=1)
    assert values(game) == ["bump", "pull", None]
    game.apply(1)  # pull: the lever without `ready` only (small needs n >= 1), taken without asking
    assert props(game, "player1")["n"] == 100
    assert values(game) == ["pull", None]
    game.apply(0)  # pull again: both levers are ready now
    assert values(game) == ["small", "plain"]


def test_a_function_field_with_statements_is_an_error(tmp_path):
    bad = COMPONENTS.replace("ready: who.n >= this.need", "ready: |\n      who.n += 1")
    with pytest.raises(RulesError) as err:
        rules(tmp_path, bad)
    assert "components.yaml:15:13: E101 unexpected `+=`" in str(err.value)  # the statement, located


def test_a_function_field_with_the_wrong_arity_is_an_error(tmp_path):
    with pytest.raises(RulesError) as err:
        rules(tmp_path, text=RULES.replace("l.ready(who)", "l.ready(who, 1)"))
    assert "takes 1 arguments" in str(err.value)

"""Functions that read no changing state keep their results for the whole game (compile.py
`_static_fns`); every other function is recomputed once the state changes."""

from __future__ import annotations

from nemesis_rules import Game
from nemesis_rules.dsl.parse import parse_expr
from nemesis_rules.engine import compile as compiler
from nemesis_rules.engine import vm


def _static(rules) -> set[str]:
    comp = rules.composition
    return compiler._static_fns(compiler.Names(comp), {n: (d.value, []) for n, d in comp.fns.items()})


def test_only_functions_of_the_setup_are_static(toy_rules) -> None:
    static = _static(toy_rules)
    assert {"goal", "stride"} <= static        # an option, a parameter
    assert not {"leaders", "can_pay"} & static  # props change in play


def test_what_makes_a_read_change() -> None:
    names = type("N", (), {"counters": {"round"}, "owned_zones": {"hand"}, "fns": {"f", "g"},
                           "static_prims": compiler.STATIC_PRIMS})()
    reads = [("x.kind == card", True), ("count(neighbors(x)) > 1", True), ("hand(x)", True),
             ("f(x)", True), ("g(x)", False), ("x.pos", False), ("x.zone", False), ("round", False),
             ("inside(hand(x))", False), ("x.script(1)", False), ("[y.kind for y in links(x)]", True),
             ("[y.pos for y in links(x)]", False), ("option(board)", True), ("entities(card)", False)]
    for text, expected in reads:
        assert compiler._reads_no_state(parse_expr(text)[0], {"x"}, names, {"f"}) is expected, text


def test_the_graph_is_static_only_while_no_rule_lays_a_link() -> None:
    printed = type("N", (), {"counters": set(), "owned_zones": set(), "fns": set(),
                             "static_prims": compiler.STATIC_PRIMS})()
    grown = type("N", (), {"counters": set(), "owned_zones": set(), "fns": set(),
                           "static_prims": compiler.STATIC_PRIMS - compiler.GRAPH_READS})()
    for text in ("neighbors(x)", "links(x)", "link_at(x, 1)", "other_end(y, x)", "ends(y)", "label_at(y, x)",
                 "rings(x, step)"):
        expr = parse_expr(text)[0]
        assert compiler._reads_no_state(expr, {"x", "y"}, printed, set()), text
        assert not compiler._reads_no_state(expr, {"x", "y"}, grown, set()), text


def test_a_static_result_is_forgotten_when_the_setup_changes(toy_rules) -> None:
    game = Game.new(toy_rules, players=2, seed=1)
    rt = vm.Runtime(toy_rules.program, game.state)
    assert vm.call_function(rt, "goal", []) == 12
    game.state.options["length"] = "short"  # an edit from outside between two runs
    assert vm.call_function(rt, "goal", []) == 8

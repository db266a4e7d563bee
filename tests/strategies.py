"""Hypothesis strategies: random ASTs (for the printer round trip) and random play."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from nemesis_rules.dsl import ast

KEYWORDS = {
    "proc", "fn", "modifier", "event", "on", "before", "after", "instead", "of", "action", "cost",
    "when", "phase", "step", "extend", "remove", "replace", "with", "let", "return", "pass", "break",
    "continue", "emit", "if", "elif", "else", "for", "in", "repeat", "while", "match", "case", "not",
    "and", "or", "true", "false", "none", "_",
}

names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in KEYWORDS)
strings = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8)

leaves = st.one_of(
    st.builds(ast.Num, st.integers(0, 10**6)),
    st.builds(ast.Str, strings),
    st.builds(ast.Bool, st.booleans()),
    st.just(ast.NoneLit()),
    st.builds(ast.Name, names),
)


def _compound(children):
    calls = st.builds(
        ast.Call,
        st.one_of(st.builds(ast.Name, names), st.builds(ast.Attr, children, names)),
        st.lists(children, max_size=3).map(tuple),
        st.lists(st.builds(ast.Kwarg, names, children), max_size=2, unique_by=lambda k: k.name).map(tuple),
    )
    return st.one_of(
        st.builds(ast.Attr, children, names),
        st.builds(ast.Index, children, children),
        calls,
        st.builds(ast.BinOp, st.sampled_from(["+", "-", "*", "/", "%"]), children, children),
        st.builds(ast.Neg, children),
        st.builds(ast.Not, children),
        st.builds(ast.BoolOp, st.sampled_from(["and", "or"]), children, children),
        st.builds(ast.Compare, st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]),
                  children, children),
        st.builds(ast.ListLit, st.lists(children, max_size=3).map(tuple)),
        st.builds(ast.ListComp, children, names, children, st.one_of(st.none(), children)),
        st.builds(ast.IfExp, children, children, children),
    )


exprs = st.recursive(leaves, _compound, max_leaves=12)
patterns = st.one_of(st.builds(ast.Num, st.integers(0, 99)), st.builds(ast.Str, strings),
                     st.builds(ast.Name, names), st.just(ast.Wildcard()))
targets = st.one_of(st.builds(ast.Name, names), st.builds(ast.Attr, exprs, names))


def _statements(children):
    body = st.lists(children, min_size=1, max_size=3).map(tuple)
    return st.one_of(
        st.builds(ast.If, st.lists(st.builds(ast.Branch, exprs, body), min_size=1, max_size=2).map(tuple),
                  st.one_of(st.just(()), body)),
        st.builds(ast.For, names, exprs, body),
        st.builds(ast.Repeat, exprs, body),
        st.builds(ast.While, exprs, body),
        st.builds(ast.Match, exprs, st.lists(st.builds(
            ast.Case, st.lists(patterns, min_size=1, max_size=3).map(tuple), body), min_size=1, max_size=2).map(tuple)),
    )


simple_statements = st.one_of(
    st.builds(ast.Let, names, exprs),
    st.builds(ast.Assign, targets, exprs),
    st.builds(ast.AugAssign, targets, st.sampled_from(["+=", "-="]), exprs),
    st.builds(ast.Return, st.one_of(st.none(), exprs)),
    st.just(ast.Pass()), st.just(ast.Break()), st.just(ast.Continue()),
    st.builds(ast.Emit, names, st.lists(exprs, max_size=2).map(tuple)),
    st.builds(ast.ExprStmt, exprs),
)
statements = st.recursive(simple_statements, _statements, max_leaves=8)
bodies = st.lists(statements, min_size=1, max_size=4).map(tuple)
params = st.lists(names, max_size=3, unique=True).map(tuple)
maybe_when = st.one_of(st.none(), exprs)

declarations = st.one_of(
    st.builds(ast.ProcDef, names, params, bodies, st.booleans()),
    st.builds(ast.FnDef, names, params, exprs),
    st.builds(ast.ModifierDef, names, params, maybe_when, st.sampled_from(["+", "-", "*", "="]), exprs),
    st.builds(ast.EventDef, names, params),
    st.builds(ast.TriggerDef, names, params, maybe_when, bodies),
    st.builds(ast.HookDef, st.sampled_from(["before", "after", "instead"]), names, params, maybe_when, bodies),
    st.builds(ast.ActionDef, names, names, st.lists(st.builds(ast.ActionParam, names, exprs), max_size=2).map(tuple),
              st.one_of(st.none(), exprs), maybe_when, bodies),
    st.builds(ast.PhaseDef, names, st.lists(names, min_size=1, max_size=3).map(tuple)),
    st.builds(ast.PhaseExtend, names, st.lists(st.one_of(
        st.builds(ast.StepChange, st.sampled_from(["before", "after", "replace"]), names, names),
        st.builds(ast.StepChange, st.just("remove"), names)), min_size=1, max_size=3).map(tuple)),
)
modules = st.lists(declarations, max_size=4).map(lambda ds: ast.Module(tuple(ds)))


def play_randomly(game, seed: int, limit: int = 10_000) -> int:
    """Apply random options until the game ends; returns the number of decisions taken."""
    rnd = random.Random(seed)
    taken = 0
    while not game.over and taken < limit:
        game.apply(rnd.randrange(len(game.decision.options)))
        taken += 1
    return taken

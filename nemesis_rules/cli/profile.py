"""`nemesis bench --profile`: where a game's time goes, named as the rules name it.

The rules run as generated Python functions (`_f3`, `_dp12`, engine/codegen.py and straight.py);
cProfile sees those names. Each is credited to the rule it runs (`Program.idents`): the function
or procedure, with the file and line that declare it. The rest is the engine's own code (by
module and function), the rest of the package, and Python's built-ins.
"""

from __future__ import annotations

import cProfile
import pstats
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from nemesis_rules.api import Ruleset
from nemesis_rules.cli import common
from nemesis_rules.dsl.diagnostics import Span

PACKAGE = Path(__file__).resolve().parents[1]
GENERATED = re.compile(r"(_f\d+|_[sd]p\d+)(_any|_first)?")
# generated functions that are not one rule's, by the start of their name
SHARED = (("_available_actions", "actions(): every action's test"), ("_allowed", "available(): one action's test"),
          ("_block", "steps resumed after a decision"), ("<lambda>", "rule expressions (steps, guards)"))
# what each group of functions is called in the summary line, in its order
GROUPS = {"fn": "rule functions", "proc": "procedures", "rules": "other rule code", "engine": "the engine",
          "package": "the rest of nemesis_rules", "python": "Python (built-ins and library)"}


def profile_games(rules: Ruleset, play: Callable[[int], object], games: int, top: int = 15) -> None:
    """Play `games` games (`play(seed)`) under cProfile and print the `top` rules and engine
    functions by their own time, then the share of each group."""
    profiler = cProfile.Profile()
    with common.rules_kept_aside():
        profiler.enable()
        for seed in range(games):
            play(seed)
        profiler.disable()
    own, calls, within = Counter(), Counter(), Counter()
    for (file, line, name), (_, ncalls, tottime, cumtime, _) in pstats.Stats(profiler).stats.items():
        key = place_of(rules, file, line, name)
        own[key] += tottime
        calls[key] += ncalls
        within[key] = max(within[key], cumtime)  # a procedure's `#body` runs within it: not added
    total = sum(own.values()) or 1.0
    print(f"  where the time goes: {games} random games under cProfile, the own time of each rule and "
          f"function (cProfile overstates many small calls: compare shares, not times)")
    rules_first = [k for k in own if k[0] in ("fn", "proc")]
    _print_top("the rules", rules_first, own, calls, within, total, top)
    _print_top("the rest", [k for k in own if k[0] not in ("fn", "proc")], own, calls, within, total, top // 2)
    shares = Counter()
    for (group, _), seconds in own.items():
        shares[group] += seconds
    print("    by kind: " + ", ".join(f"{label} {shares[g] / total:.0%}" for g, label in GROUPS.items() if shares[g]))


def _print_top(title: str, keys: list, own: Counter, calls: Counter, within: Counter, total: float,
               top: int) -> None:
    """The `top` keys by own time: own share, share with what it calls, name, calls."""
    ranked = sorted(keys, key=own.__getitem__, reverse=True)[:top]
    if not ranked:
        return
    width = max(len(label) for _, label in ranked)
    print(f"    {'own':>6}  {'with calls':>10}  {title}")
    for key in ranked:
        print(f"    {own[key] / total:6.1%}  {within[key] / total:10.1%}  {key[1]:<{width}}  {calls[key]:>9,} calls")


def place_of(rules: Ruleset, file: str, line: int, name: str) -> tuple[str, str]:
    """(group, label) of a function cProfile saw: a rule by its declared name and place, an
    engine function by module and name."""
    if file.startswith("<nemesis"):
        return _rule_place(rules, name)
    if file == "~":
        return "python", f"built-in {re.sub(r' at 0x[0-9a-f]+', '', name)}"
    path = Path(file)
    try:
        inside = path.resolve().relative_to(PACKAGE)
    except ValueError:
        return "python", f"{path.name}:{line} {name}"
    group = "engine" if inside.parts[0] == "engine" else "package"
    return group, f"{'/'.join(inside.parts)} {name}"


def _rule_place(rules: Ruleset, name: str) -> tuple[str, str]:
    found = GENERATED.fullmatch(name)
    rule = rules.program.idents.get(found.group(1)) if found else None
    if rule is None:
        return "rules", next((label for start, label in SHARED if name.startswith(start)), name)
    if found.group(1).startswith("_f"):
        span = rules.composition.fns[rule].span if rule in rules.composition.fns else None
        return "fn", f"fn {rule}{_where(span)}"
    proc = rule.removesuffix("#body")
    code = rules.program.procs.get(proc) or rules.program.procs[rule]
    return "proc", f"proc {proc}{_where(code.span)}"


def _where(span: Span | None) -> str:
    """`  (module/rules/file.nem:12)`: the declaring file from its module's folder, or nothing."""
    if span is None or not span.file:
        return ""
    path = Path(span.file)
    return f"  ({'/'.join(path.parts[-3:])}:{span.line})"

"""`nemesis bench` (and `python tools/bench.py`): how fast the engine loads and plays.

For each ruleset (a module id or folder; `a,b` for modules together) it prints the load time
(compose + check + compile), full random games per second (median of several runs, one process),
decisions per second, the median clone() and JSON round-trip time of states met in a game, and
the JSON size of a mid-game state (`--profile`: then which rules take the time, cli/profile.py). By default: the toy module of the tests, and rulesets/base
(the printed board); then nemesis-lint's time and, in a source checkout, the ratio of the rules in the
DSL to the same rules written by hand in Python (tools/handwritten.py; `--no-baselines` skips it).
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from nemesis_rules.api import Game, Ruleset, load_ruleset
from nemesis_rules.bots import bot_seed, make_bot, play_turn
from nemesis_rules.cli import common
from nemesis_rules.cli.profile import profile_games
from nemesis_rules.dsl.diagnostics import RulesError
from nemesis_rules.paths import rulesets_dir

FIXTURES = next((p for p in (rulesets_dir().parent / "tests" / "fixtures", Path("tests") / "fixtures")
                 if p.is_dir()), None)
HANDWRITTEN = next((p for p in (rulesets_dir().parent / "tools" / "handwritten.py",
                                Path("tools") / "handwritten.py") if p.is_file()), None)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rulesets", nargs="*", metavar="RULESET",
                   help="module ids or folders, `a,b` for several together (default: the toy module and base)")
    p.add_argument("--players", type=int, default=4, help="players per game (default: 4, or the ruleset's maximum)")
    p.add_argument("--games", type=int, default=20, help="games per timed run (default: 20)")
    p.add_argument("--runs", type=int, default=5, help="timed runs; the median is shown (default: 5)")
    p.add_argument("--no-baselines", action="store_true",
                   help="skip the DSL / hand-written Python ratios (tools/handwritten.py)")
    p.add_argument("--profile", action="store_true",
                   help="then play --games random games under cProfile and show which rules (by their "
                        "declared names) and engine functions take the time")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="time loading, full random games, clone and JSON round trips")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.runs < 1:
        raise common.CliError("--games and --runs must be at least 1")
    targets = args.rulesets or _default_targets()
    for target in targets:
        bench_one(target, args, explicit=bool(args.rulesets))
    if not args.rulesets:
        _bench_lint([rulesets_dir(), rulesets_dir() / "base"])
        if not args.no_baselines and HANDWRITTEN is not None:
            _bench_baselines(HANDWRITTEN, max(5, args.runs))
    return common.EXIT_OK


def _bench_baselines(path: Path, runs: int, calls: int = 1000) -> None:
    """Each rule that has a hand-written twin: time per call of both, on the same states (the
    two sides take turns; calls of tens of µs need many of them and several runs to be steady)."""
    spec = importlib.util.spec_from_file_location("nemesis_handwritten", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print(f"== DSL / hand-written Python ({_short(str(path))}; same states, {calls} calls, median of {runs})")
    for name, cases, hand, dsl in module.measure(module.base_rules(), runs, calls, state_count=60):
        print(f"  {name}: {dsl / hand:.1f}x (DSL {_us(dsl)}, by hand {_us(hand)} per call; {cases} cases)")


def _default_targets() -> list[str]:
    """The toy game (from a source tree) and base as shipped, on the printed board."""
    if FIXTURES is None:
        return ["base"]
    return [str(FIXTURES / "toy"), "base"]


def _bench_lint(paths: list[Path]) -> None:
    """nemesis-lint cold (a new process: imports, grammar, every file), with no cache of parsed
    files and with a full one (in a folder of its own), and warm (in process)."""
    import tempfile

    from nemesis_rules.ruleset.check_api import check_paths

    print("== nemesis-lint")
    lint = [sys.executable, "-m", "nemesis_rules.lint", "--format", "json"]
    with tempfile.TemporaryDirectory() as cache:
        for path in paths:
            fresh = statistics.median(_timed_process([*lint, "--no-cache", str(path)]) for _ in range(3))
            _timed_process([*lint, str(path)], cache)  # fills the cache
            cached = statistics.median(_timed_process([*lint, str(path)], cache) for _ in range(3))
            check_paths([path])
            warm = statistics.median(_timed(lambda p=path: check_paths([p])) for _ in range(3))
            print(f"  {_short(str(path))}: cold {_ms(fresh)} (new process, no cache), {_ms(cached)} "
                  f"(parsed files cached), warm {_ms(warm)} (in process; medians of 3)")


def _timed_process(argv: list[str], cache: str = "off") -> float:
    import os
    import subprocess

    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env={**os.environ, "NEMESIS_CACHE_DIR": cache})
    return time.perf_counter() - start


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_one(target: str, args: argparse.Namespace, explicit: bool) -> None:
    modules = common.module_list([target])
    print(f"== {_short(target)}")
    try:
        load_s, rules = _timed_load(modules)
    except RulesError as error:
        if explicit:
            raise
        print(f"  does not load yet: {common.one_line(error)}")
        return
    print(f"  load (compose+check+compile): {_ms(load_s[1])} (median of 3; the first took {_ms(load_s[0])})")
    players = max(rules.players.min, min(args.players, rules.players.max))
    try:
        with common.rules_kept_aside():  # as `nemesis simulate` plays
            _bench_games(rules, players, args.games, args.runs)
        if args.profile:
            profile_games(rules, lambda seed: random_game(rules, players, seed), args.games)
    except RulesError as error:
        print(f"  games: the rules failed: {common.one_line(error)}")


def _short(target: str) -> str:
    path = Path(target)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return target


def _timed_load(modules: list[str]) -> tuple[tuple[float, float], Ruleset]:
    """The first load's time and the median of three, and the rules."""
    times, rules = [], None
    for _ in range(3):
        start = time.perf_counter()
        rules = load_ruleset(*modules)
        times.append(time.perf_counter() - start)
    assert rules is not None
    return (times[0], statistics.median(times)), rules


def random_game(rules: Ruleset, players: int, seed: int, on_step: Callable[[Game], None] | None = None,
                kind: str = "random") -> Game:
    game = Game.new(rules, players, seed)
    bots = {s: make_bot(kind, bot_seed(seed, s)) for s in range(players)}
    while not game.over:
        play_turn(game, bots)
        if on_step is not None:
            on_step(game)
    return game


def _bench_games(rules: Ruleset, players: int, games: int, runs: int) -> None:
    rates, decisions, elapsed = [], 0, 0.0
    for run in range(runs):
        start = time.perf_counter()
        played = [random_game(rules, players, run * games + i) for i in range(games)]
        took = time.perf_counter() - start
        rates.append(games / took)
        decisions += sum(len(g.state.moves) for g in played)
        elapsed += took
    print(f"  full random games, {players} players: {statistics.median(rates):.1f} games/s "
          f"(median of {runs} runs of {games} games, one process)")
    print(f"  decisions: {decisions / elapsed:,.0f} decisions/s ({decisions / (runs * games):.1f} per game)")
    # the heuristic bot reads a view and runs the module's hints at each decision: fewer games, the
    # same ones in each run, so the median sets aside a run the machine slowed
    few = max(1, games // 4)
    rates = [few / _timed(lambda: [random_game(rules, players, i, kind="heuristic") for i in range(few)])
             for _ in range(runs)]
    print(f"  full heuristic-bot games, {players} players: {statistics.median(rates):.1f} games/s "
          f"(median of {runs} runs of {few} games, one process)")
    _bench_states(rules, players)


def _bench_states(rules: Ruleset, players: int) -> None:
    states: list[Game] = []
    random_game(rules, players, 0, lambda g: states.append(g.clone()))
    sample = states[:: max(1, len(states) // 50)] or [Game.new(rules, players, 0)]
    clone = statistics.median(_per_call(g.clone) for g in sample)
    trip = statistics.median(_per_call(lambda g=g: Game.from_json(rules, g.to_json())) for g in sample)
    middle = states[len(states) // 2] if states else sample[0]
    print(f"  clone(): {_us(clone)} per state; JSON round trip (to_json + from_json): {_us(trip)} per state "
          f"(medians over {len(sample)} states)")
    print(f"  mid-game state: {len(middle.to_json().encode()):,} bytes of JSON "
          f"(after {len(middle.state.moves)} decisions; the full form: {len(middle.state.to_json().encode()):,})")


def _per_call(fn: Callable[[], object], repeat: int = 20) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f} µs"

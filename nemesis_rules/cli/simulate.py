"""`nemesis simulate`: many bot games in parallel processes, and a report of how they went.

Game i uses seed S+i; each bot's generator is seeded from its game's seed and seat, so the same
arguments give the same report whatever the number of processes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import attrs

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.bots import BOT_KINDS, bot_seed, make_bot, play_turn
from nemesis_rules.cli import common
from nemesis_rules.dsl.diagnostics import RulesError

DEFAULT_MAX_DECISIONS = 50_000


@attrs.frozen
class Spec:
    """Everything a worker process needs to play games."""

    modules: tuple[str, ...]
    lang: str
    players: int
    bots: str
    options: dict[str, Any]
    max_decisions: int = DEFAULT_MAX_DECISIONS


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many bot games and report how they ended")
    common.add_module_args(p, lang=False)
    p.add_argument("--players", type=int, default=None, help="players per game (default: 2, or the ruleset's range)")
    p.add_argument("--games", type=int, default=100, help="how many games (default: 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i")
    p.add_argument("--bots", type=_bot_list, default="random", metavar="|".join(BOT_KINDS),
                   help="bot for every seat, or one a seat in turn: `heuristic,random` (default: random)")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU count)")
    p.add_argument("--out", default=None, metavar="FILE", help="write one JSON line per game")
    p.add_argument("--max-decisions", type=int, default=DEFAULT_MAX_DECISIONS,
                   help="count a game with no result after this many decisions as an error")
    common.add_option_arg(p)
    p.set_defaults(run=run)


def _bot_list(text: str) -> str:
    kinds = [k.strip() for k in text.split(",")]
    bad = [k for k in kinds if k not in BOT_KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown bot {bad[0] if bad else text!r}: choose from {', '.join(BOT_KINDS)}")
    return ",".join(kinds)


def seat_bots(bots: str, players: int) -> list[str]:
    """The bot kind of each seat: `a,b` gives a, b, a, b, ..."""
    kinds = bots.split(",")
    return [kinds[s % len(kinds)] for s in range(players)]


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise common.CliError(f"--games must be at least 1, got {args.games}")
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise common.CliError(f"--jobs must be at least 1, got {jobs}")
    rules = common.load(args.modules)
    spec = Spec(tuple(common.module_list(args.modules)), "en", common.check_players(rules, args.players),
                args.bots, common.parse_options(rules, args.option), args.max_decisions)
    Game.new(rules, spec.players, args.seed, **spec.options)  # bad options fail here, once
    started = time.perf_counter()
    records = simulate(rules, spec, args.seed, args.games, jobs)
    elapsed = time.perf_counter() - started
    if args.out:
        write_jsonl(args.out, records)
    print(report(rules, spec, args.seed, records))
    print(f"time: {elapsed:.2f} s, {jobs} job{'s' if jobs > 1 else ''}, "
          f"{len(records) / elapsed:.0f} games/s", file=sys.stderr)
    return common.EXIT_OK


# ---- playing ----
def play_game(rules: Ruleset, spec: Spec, seed: int) -> dict[str, Any]:
    """One bot game to its end; a rules error or a runaway game is recorded, not raised."""
    record: dict[str, Any] = {"seed": seed, "players": spec.players, "result": None,
                              "decisions": 0, "moves": [], "counters": {}, "error": None}
    try:
        game = Game.new(rules, spec.players, seed, **spec.options)
        kinds = seat_bots(spec.bots, spec.players)
        bots = {s: make_bot(kinds[s], bot_seed(seed, s), rules.modules) for s in range(spec.players)}
        while not game.over and len(game.state.moves) < spec.max_decisions:
            play_turn(game, bots)
        record["moves"] = list(game.state.moves)
        record["decisions"] = len(game.state.moves)
        record["counters"] = dict(game.state.counters)
        if game.over:
            record["result"] = _plain(game.result)
        else:
            record["error"] = f"no result after {spec.max_decisions} decisions"
    except RulesError as error:
        record["error"] = common.one_line(error)
    return record


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


_WORKER_RULES: dict[tuple[tuple[str, ...], str], Ruleset] = {}


def _worker_rules(spec: Spec) -> Ruleset:
    key = (spec.modules, spec.lang)
    if key not in _WORKER_RULES:
        _WORKER_RULES[key] = common.load(spec.modules, spec.lang)
    return _WORKER_RULES[key]


def _play_chunk(spec: Spec, seeds: list[int]) -> list[dict[str, Any]]:
    rules = _worker_rules(spec)
    return [play_game(rules, spec, s) for s in seeds]


def simulate(rules: Ruleset, spec: Spec, seed: int, games: int, jobs: int,
             progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Play games with seeds seed..seed+games-1 (in `jobs` processes) and return their records."""
    seeds = list(range(seed, seed + games))
    with _Progress(games) as bar:
        tick = progress or bar.advance
        if jobs == 1 or games < 2 * jobs:
            records = []
            for s in seeds:
                records.append(play_game(rules, spec, s))
                tick(1)
            return records
        return _in_processes(rules, spec, seeds, jobs, tick)


def _in_processes(rules: Ruleset, spec: Spec, seeds: list[int], jobs: int,
                  tick: Callable[[int], None]) -> list[dict[str, Any]]:
    _WORKER_RULES[(spec.modules, spec.lang)] = rules  # forked workers inherit the loaded rules
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    size = max(1, min(50, len(seeds) // (jobs * 8)))
    chunks = [seeds[i:i + size] for i in range(0, len(seeds), size)]
    records: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for done in pool.map(_play_chunk, [spec] * len(chunks), chunks):
            records += done
            tick(len(done))
    return sorted(records, key=lambda r: r["seed"])


class _Progress:
    """A rich progress bar on a terminal; a few plain lines on stderr otherwise."""

    def __init__(self, total: int) -> None:
        self.total, self.done, self._bar, self._task = total, 0, None, None
        self._next_note = max(1, total // 4)

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress
            self._bar = Progress(console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("games", total=self.total)
        return self

    def advance(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(self._task, advance=n)
        elif self.total >= 100 and self._next_note <= self.done < self.total:
            print(f"  {self.done}/{self.total} games", file=sys.stderr)
            self._next_note += max(1, self.total // 4)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


# ---- reporting ----
def write_jsonl(path: str, records: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps({k: r[k] for k in ("seed", "players", "result", "decisions", "moves", "error")},
                                 ensure_ascii=False) + "\n")


def report(rules: Ruleset, spec: Spec, seed: int, records: list[dict[str, Any]]) -> str:
    """The report as plain text: the same records give the same text."""
    n = len(records)
    lines = [f"{n} games of {'+'.join(rules.modules)}, {spec.players} player{'s' if spec.players > 1 else ''}, "
             f"seeds {seed}..{seed + n - 1}, {spec.bots} bots"
             + (f", options {_options_text(spec.options)}" if spec.options else "")]
    lines += _section("how games ended", _endings(rules, records), n)
    lines += _section("wins by seat", _wins(rules, spec, records), n)
    lines += _decisions(records)
    lines += _counters(records)
    lines += _errors(records)
    return "\n".join(lines)


def _options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items())


def _section(title: str, counts: list[tuple[str, int]], n: int) -> list[str]:
    width = max((len(name) for name, _ in counts), default=0)
    return [f"{title}:"] + [f"  {name:<{width}}  {c:>6}  {100 * c / n:5.1f}%" for name, c in counts]


def _endings(rules: Ruleset, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    reasons = Counter(r["result"]["reason"] if r["result"] else "error" for r in records)
    return [(_named(rules, reason), c) for reason, c in sorted(reasons.items(), key=lambda rc: (-rc[1], rc[0]))]


def _named(rules: Ruleset, key: str) -> str:
    label = rules.label(key)
    return key if label in (key, key.replace("_", " ")) else f"{key} ({label})"


def _wins(rules: Ruleset, spec: Spec, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    wins = Counter(w for r in records if r["result"] for w in r["result"]["winners"])
    nobody = sum(1 for r in records if r["result"] and not r["result"]["winners"])
    kinds = seat_bots(spec.bots, spec.players)
    rows = [(f"seat {s} ({rules.label(rules.program.player_ids[s])}, {kinds[s]})", wins[s])
            for s in range(spec.players)]
    return rows + [("no winner", nobody)]


def _decisions(records: list[dict[str, Any]]) -> list[str]:
    counts = [r["decisions"] for r in records if r["result"]]
    if not counts:
        return ["decisions per game: no finished game"]
    return [f"decisions per game: mean {statistics.fmean(counts):.1f}, median {statistics.median(counts):g}, "
            f"min {min(counts)}, max {max(counts)}"]


def _counters(records: list[dict[str, Any]]) -> list[str]:
    finished = [r["counters"] for r in records if r["result"]]
    names = sorted({k for c in finished for k in c})
    if not names:
        return []
    return ["counters at the end (mean): "
            + ", ".join(f"{k} {statistics.fmean(c.get(k, 0) for c in finished):.1f}" for k in names)]


def _errors(records: list[dict[str, Any]]) -> list[str]:
    errors = [(r["seed"], r["error"]) for r in records if r["error"]]
    if not errors:
        return ["errors: none"]
    kinds = Counter(e for _, e in errors)
    lines = [f"errors: {len(errors)} game{'s' if len(errors) > 1 else ''}"]
    for text, c in sorted(kinds.items(), key=lambda tc: (-tc[1], tc[0]))[:10]:
        first = next(s for s, e in errors if e == text)
        lines.append(f"  {c} x {text} (first at seed {first})")
    return lines


"""`nemesis simulate`: many bot games in parallel processes, and a report of how they went.

Besides how games ended, the report gives what the module declares under `report:` in its
module.yaml (survival, rounds, causes of death, cards played): the engine knows no game.

Game i uses seed S+i; each bot's generator is seeded from its game's seed and seat, so the same
arguments give the same report whatever the number of processes, and on either backend: worker
processes on this machine (default) or tasks on a Ray cluster (`--backend ray`, the `ray` extra).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs

from nemesis_rules.api import Game, Ruleset
from nemesis_rules.bots import BOT_KINDS, bot_seed, make_bot, play_turn
from nemesis_rules.cli import common, tables
from nemesis_rules.cli.savefile import finished_game
from nemesis_rules.dsl.diagnostics import RefusedError, RulesError
from nemesis_rules.engine import vm
from nemesis_rules.engine.state import E_COMP, GameState

DEFAULT_MAX_DECISIONS = 50_000
REFUSED = "refused by the rules"  # a game the rules say does not exist (the script's `refuse`)
BACKENDS = ("local", "ray")
RAY_MISSING = "--backend ray needs Ray: pip install 'nemesis-rules[ray]'"


@attrs.frozen
class Spec:
    """Everything a worker process needs to play games."""

    modules: tuple[str, ...]
    lang: str
    players: int
    bots: str
    options: dict[str, Any]
    max_decisions: int = DEFAULT_MAX_DECISIONS
    after: str | None = None  # a saved finished game every game continues (--after)
    then: tuple[tuple[str, Any], ...] | None = None  # options of a game continuing each one (--then)
    put_in_play: tuple[str, ...] = ()  # components put into play once setup is done (--with)
    events: bool = False  # record the card events (tables.CardWatch) for --out DIR and --report


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="play many bot games and report how they ended")
    common.add_module_args(p, lang=False)
    p.add_argument("--players", type=_player_counts, default=None, metavar="N",
                   help="players per game (default: 2, or the ruleset's range); several, as 2,3 or 2-4: "
                        "--games games of each, one report each, and the tables and --report hold them all")
    p.add_argument("--games", type=int, default=100, help="how many games (default: 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i")
    p.add_argument("--bots", type=_bot_list, default="random", metavar="|".join(BOT_KINDS),
                   help="bot for every seat, or one a seat in turn: `heuristic,random` (default: random)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: CPU count); with a local Ray, its CPUs")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local: worker processes on this machine (default); "
                        "ray: tasks on a Ray cluster (pip install 'nemesis-rules[ray]')")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --backend ray: the cluster to join (default: start a local Ray)")
    p.add_argument("--counters", action="store_true",
                   help="report every counter's mean at the end, a module's private ones too (default: those "
                        "its module.yaml `report: counters:` names)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no timing line on stderr")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the tables games, seats and card_events into DIR (docs/simulate.md); "
                        "a path ending in .jsonl: one JSON line per game instead")
    p.add_argument("--format", choices=tables.FORMATS, default="csv",
                   help="the tables' format with --out DIR: csv (default) or parquet (the `report` extra)")
    p.add_argument("--report", default=None, metavar="HTML",
                   help="write a self-contained HTML report with plots (the `report` extra)")
    p.add_argument("--max-decisions", type=int, default=DEFAULT_MAX_DECISIONS,
                   help="count a game with no result after this many decisions as an error")
    p.add_argument("--after", default=None, metavar="SAVE",
                   help="every game starts from the final state of this finished saved game")
    p.add_argument("--then", action="append", default=None, metavar="NAME=VALUE",
                   help="chain: each finished game is continued by a second game with these options "
                        "(repeatable, e.g. --then mode=NAME for a mode of the rules that continues a finished "
                        "game); the report is of the second games")
    p.add_argument("--with", dest="put_in_play", action="append", default=[], metavar="ID",
                   help="put this component into play in every game once setup is done, as its kind's "
                        "`in_play:` procedure says (dealt to a seat, revealed, or on top of its deck), to "
                        "exercise a card (repeatable)")
    common.add_option_arg(p)
    p.set_defaults(run=run)


def _bot_list(text: str) -> str:
    kinds = [k.strip() for k in text.split(",")]
    bad = [k for k in kinds if k not in BOT_KINDS]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"unknown bot {bad[0] if bad else text!r}: choose from {', '.join(BOT_KINDS)}")
    return ",".join(kinds)


def _player_counts(text: str) -> list[int]:
    """`3`, `2,4` or `2-4` as the list of player counts."""
    try:
        counts: list[int] = []
        for part in text.split(","):
            lo, dash, hi = part.strip().partition("-")
            counts += range(int(lo), int(hi) + 1) if dash else [int(lo)]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of players, as 2, 2,3 or 2-4, got {text!r}") from None
    return list(dict.fromkeys(counts))


def seat_bots(bots: str, players: int) -> list[str]:
    """The bot kind of each seat: `a,b` gives a, b, a, b, ..."""
    kinds = bots.split(",")
    return [kinds[s % len(kinds)] for s in range(players)]


def checked_jobs(args: argparse.Namespace) -> int:
    """`--games` checked, and the processes to play them in (`--jobs`, or one a core)."""
    if args.games < 1:
        raise common.CliError(f"--games must be at least 1, got {args.games}")
    jobs = args.jobs if args.jobs is not None else (os.cpu_count() or 1)
    if jobs < 1:
        raise common.CliError(f"--jobs must be at least 1, got {jobs}")
    return jobs


def run(args: argparse.Namespace) -> int:
    jobs = checked_jobs(args)
    if args.address is not None and args.backend != "ray":
        raise common.CliError("--address is for --backend ray")
    if args.backend == "ray":
        _import_ray()  # before loading anything: a missing extra is said at once
    rules = common.load(args.modules)
    then = tuple(common.parse_options(rules, args.then).items()) if args.then is not None else None
    tables_out = args.out is not None and not args.out.endswith(".jsonl")
    specs = [Spec(_portable(common.module_list(args.modules)), "en", common.check_players(rules, players),
                  args.bots, common.parse_options(rules, args.option), args.max_decisions,
                  args.after and str(Path(args.after).resolve()), then, tuple(args.put_in_play),
                  events=bool(tables_out or args.report))
             for players in (args.players or [None])]
    for spec in specs:  # bad options or components fail here, once
        _new_game(rules, spec, args.seed)
    if tables_out or args.report:
        _check_extras(args)  # a missing library is said before the games are played
    started = time.perf_counter()
    backend = Backend(args.backend, jobs if args.jobs is not None or args.backend == "local" else None,
                      args.address)
    records, texts = [], []
    for spec in specs:
        with common.rules_kept_aside():
            played = simulate(rules, spec, args.seed, args.games, backend, show_progress=not args.quiet)
        texts.append(report(rules, spec, args.seed, played, all_counters=args.counters))
        records += played
    elapsed = time.perf_counter() - started
    widest = max(specs, key=lambda s: s.players)  # its seats' bots name every seat's
    data = run_tables(rules, widest, records) if tables_out or args.report else {}
    if args.out and not tables_out:
        write_jsonl(args.out, records)
    elif tables_out:
        tables.write(args.out, data, args.format)
    if args.report:
        from nemesis_rules.cli import html_report
        page = html_report.simulation(rules, widest, args.seed, data, records, args.counters)
        html_report.write(args.report, page)
    print("\n\n".join(texts))
    if not args.quiet:
        print(f"time: {elapsed:.2f} s, {backend.describe()}, {len(records) / elapsed:.0f} games/s", file=sys.stderr)
    return common.EXIT_OK


def _check_extras(args: argparse.Namespace) -> None:
    if args.out is not None and args.format == "parquet":
        tables.require_pyarrow()
    if args.report:
        from nemesis_rules.cli import html_report
        html_report.check_libraries()


def run_tables(rules: Ruleset, spec: Spec, records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return tables.tables(rules, records, "+".join(rules.modules), spec.options, seat_bots(spec.bots, spec.players),
                         spec.put_in_play)


def _portable(modules: list[str]) -> tuple[str, ...]:
    """Module folders as absolute paths: a Ray worker may run in another directory."""
    return tuple(str(Path(m).resolve()) if Path(m).is_dir() else m for m in modules)


@attrs.define
class Backend:
    """Where the games run: `local` worker processes, or `ray` tasks (`address` None: a local Ray)."""

    kind: str = "local"
    jobs: int | None = 1
    address: str | None = None
    cpus: int | None = None  # what the Ray cluster offered, once joined

    def describe(self) -> str:
        if self.kind == "ray":
            return f"ray ({self.cpus} CPU{'s' if self.cpus != 1 else ''})"
        return f"{self.jobs} job{'s' if self.jobs != 1 else ''}"


# ---- playing ----
def play_game(rules: Ruleset, spec: Spec, seed: int) -> dict[str, Any]:
    """One bot game to its end; a rules error, a runaway game or a game the rules refuse is recorded, not raised."""
    record: dict[str, Any] = {"seed": seed, "players": spec.players, "result": None, "decisions": 0, "moves": [],
                              "counters": {}, "report": None, "error": None, "refused": None}
    try:
        game, events = _bot_game(_new_game(rules, spec, seed), spec, seed)
        if spec.then is not None and game.over:
            record["first_result"] = _plain(game.result)
            game, events = _bot_game(Game.new(rules, spec.players, seed, after=game,
                                              **{**spec.options, **dict(spec.then)}), spec, seed)
        if spec.events:
            record["card_events"] = events
        record["moves"] = list(game.state.moves)
        record["decisions"] = len(game.state.moves)
        record["counters"] = dict(game.state.counters)
        if game.over:
            record["result"] = _plain(game.result)
            record["report"] = game_report(rules, game.state)
        else:
            record["error"] = f"no result after {spec.max_decisions} decisions"
    except RefusedError as refusal:  # the rules say there is no such game (no Epilogue after ...): not an error
        record["refused"] = common.one_line(refusal)
    except RulesError as error:
        record["error"] = common.one_line(error)
    return record


def _new_game(rules: Ruleset, spec: Spec, seed: int) -> Game:
    return Game.new(rules, spec.players, seed, after=_prior_game(spec), put_in_play=spec.put_in_play, **spec.options)


def _bot_game(game: Game, spec: Spec, seed: int) -> tuple[Game, list[list[Any]]]:
    """The game played to its end by bots, and its card events when the spec asks for them."""
    kinds = seat_bots(spec.bots, spec.players)
    bots = {s: make_bot(kinds[s], bot_seed(seed, s)) for s in range(spec.players)}
    watch = tables.CardWatch(game.rules, game.state) if spec.events else None
    while not game.over and len(game.state.moves) < spec.max_decisions:
        if watch is not None:
            watch.before(game.state)
        play_turn(game, bots)
        if watch is not None:
            watch.after(game.state)
    return game, watch.rows if watch is not None else []


_PRIOR: dict[tuple[str, tuple[str, ...]], Game] = {}


def _prior_game(spec: Spec) -> Game | None:
    """The finished game of `--after`, loaded once a process."""
    if spec.after is None:
        return None
    key = (spec.after, spec.modules)
    if key not in _PRIOR:
        _PRIOR[key] = finished_game(spec.after, list(spec.modules), lambda m: common.load(m, spec.lang))
    return _PRIOR[key]


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def game_report(rules: Ruleset, state: GameState) -> dict[str, Any] | None:
    """What the module's `report:` asks about a finished game, as plain JSON (None: it asks nothing).

    `rounds`: the counter's final value; `players`: per seat, the `player.*` functions' values on
    the final state; `plays`: how many log entries with the message name each component."""
    spec = rules.composition.report
    if not spec:
        return None
    data: dict[str, Any] = {}
    if "rounds" in spec:
        data["rounds"] = state.counters.get(spec["rounds"].value)
    fns = {field.split(".", 1)[1]: d.value for field, d in spec.items() if field.startswith("player.")}
    if fns:
        rt = vm.Runtime(rules.program, state)
        data["players"] = [{"seat": seat, **{f: _player_value(rt, f, name, pid) for f, name in fns.items()}}
                           for seat, pid in enumerate(rules.program.player_ids[:state.players])]
    if "plays" in spec:
        message, arg = spec["plays"].value.message, spec["plays"].value.arg
        plays = Counter(_component_of(state, e["args"][arg]) for e in state.log
                        if e["msg"] == message and arg in e["args"])
        data["plays"] = dict(sorted(plays.items()))
    return data


def _player_value(rt: vm.Runtime, field: str, name: str, player: str) -> Any:
    value = vm.call_function(rt, name, [player])
    if field == "objectives":  # a list of cards (or one, or none), named by their components
        cards = value if isinstance(value, list | tuple) else [] if value is None else [value]
        return [_component_of(rt.state, c) for c in cards]
    if field == "survived" and not isinstance(value, bool):
        raise RulesError(f"report function `{name}` gave {value!r} for {player}, not true or false")
    return _plain(value)


def _component_of(state: GameState, value: Any) -> str:
    """A copy of a component (`card#3`) counts as the component: the 8 copies of a card are one
    card. Any other entity or value counts as itself."""
    if isinstance(value, str) and value in state.entities:
        component = state.entities[value][E_COMP]
        if component and value.startswith(f"{component}#"):
            return component
    return value if isinstance(value, str) else json.dumps(value)


_WORKER_RULES: dict[tuple[tuple[str, ...], str], Ruleset] = {}


def _worker_rules(spec: Spec) -> Ruleset:
    key = (spec.modules, spec.lang)
    if key not in _WORKER_RULES:
        _WORKER_RULES[key] = common.load(spec.modules, spec.lang)
        common.set_aside_what_lives()  # a worker plays games until its pool ends
    return _WORKER_RULES[key]


def _play_chunk(spec: Spec, seeds: list[int]) -> list[dict[str, Any]]:
    rules = _worker_rules(spec)
    return [play_game(rules, spec, s) for s in seeds]


def simulate(rules: Ruleset, spec: Spec, seed: int, games: int, backend: Backend | int = 1,
             progress: Callable[[int], None] | None = None, show_progress: bool = True) -> list[dict[str, Any]]:
    """Play games with seeds seed..seed+games-1 and return their records, in seed order.

    `backend`: where they run (an int: that many local processes). `progress` is told how many
    games each finished batch held; without it a bar is drawn when stderr is a terminal."""
    if isinstance(backend, int):
        backend = Backend("local", backend)
    seeds = list(range(seed, seed + games))
    with _Progress(games, show_progress and progress is None) as bar:
        tick = progress or bar.advance
        if backend.kind == "ray":
            return _on_ray(spec, seeds, backend, tick)
        jobs = backend.jobs or 1
        if jobs == 1 or games < 2 * jobs:
            records = []
            for s in seeds:
                records.append(play_game(rules, spec, s))
                tick(1)
            return records
        return _in_processes(rules, spec, seeds, jobs, tick)


def _chunks(seeds: list[int], workers: int) -> list[list[int]]:
    """Batches of seeds: about 8 a worker (for an even finish), at most 50 games each."""
    size = max(1, min(50, len(seeds) // (workers * 8)))
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def _in_processes(rules: Ruleset, spec: Spec, seeds: list[int], jobs: int,
                  tick: Callable[[int], None]) -> list[dict[str, Any]]:
    _WORKER_RULES[(spec.modules, spec.lang)] = rules  # forked workers inherit the loaded rules
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunks = _chunks(seeds, jobs)
    records: list[dict[str, Any]] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for done in pool.map(_play_chunk, [spec] * len(chunks), chunks):
            records += done
            tick(len(done))
    return sorted(records, key=lambda r: r["seed"])


# ---- on a Ray cluster ----
def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise common.CliError(RAY_MISSING) from None
    return ray


def _on_ray(spec: Spec, seeds: list[int], backend: Backend, tick: Callable[[int], None]) -> list[dict[str, Any]]:
    """The same batches as locally, as Ray tasks; each worker loads the rules once (by module id
    or folder: a folder must exist at the same path on every node)."""
    ray = _import_ray()
    joined = not ray.is_initialized()
    if joined:  # a caller (a test, a notebook) may have started Ray already: use it as it is
        ray.init(address=backend.address, num_cpus=None if backend.address else backend.jobs,
                 include_dashboard=False, logging_level=logging.ERROR)
    try:
        backend.cpus = int(ray.cluster_resources().get("CPU", 1))
        task = ray.remote(_play_chunk)
        pending = [task.remote(spec, chunk) for chunk in _chunks(seeds, backend.cpus)]
        records: list[dict[str, Any]] = []
        while pending:  # a short wait, so that Ctrl-C is heard between two waits
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=0.5, fetch_local=True)
            for done in ray.get(ready):
                records += done
                tick(len(done))
        return sorted(records, key=lambda r: r["seed"])
    finally:
        if joined:
            ray.shutdown()


class _Progress:
    """A rich progress bar (games done, games/s, time left) on stderr when it is a terminal."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.done, self._bar, self._task = total, 0, None, None
        self._show = show and sys.stderr.isatty()

    def __enter__(self) -> _Progress:
        if self._show:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            self._bar = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                                 TextColumn("elapsed,"), TimeRemainingColumn(), TextColumn("left"),
                                 console=Console(stderr=True), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("games", total=self.total, rate="")
        return self

    def advance(self, n: int) -> None:
        self.done += n
        if self._bar is not None:
            task = self._bar.tasks[0]
            rate = self.done / task.elapsed if task.elapsed else 0
            self._bar.update(self._task, advance=n, rate=f"{rate:.1f} games/s")

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


# ---- reporting ----
def write_jsonl(path: str, records: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps({k: r[k] for k in ("seed", "players", "result", "decisions", "moves", "report",
                                                    "error", "refused")},
                                 ensure_ascii=False) + "\n")


def report(rules: Ruleset, spec: Spec, seed: int, records: list[dict[str, Any]], all_counters: bool = False) -> str:
    """The report as plain text: the same records give the same text. The counters shown are those
    the modules' `report: counters:` name, or every one with `all_counters`."""
    n = len(records)
    lines = [f"{n} games of {'+'.join(rules.modules)}, {spec.players} player{'s' if spec.players > 1 else ''}, "
             f"seeds {seed}..{seed + n - 1}, {spec.bots} bots"
             + (f", options {_options_text(spec.options)}" if spec.options else "")
             + (f", with {', '.join(spec.put_in_play)} put into play" if spec.put_in_play else "")]
    lines += _section("how games ended", _endings(rules, records), n)
    lines += _section("wins by seat", _wins(rules, spec, records), n)
    lines += _module_report(rules, records)
    lines += _decisions(records)
    lines += _counters(records, None if all_counters else _reported_counters(rules))
    lines += _refusals(records)
    lines += _errors(records)
    return "\n".join(lines)


def _options_text(options: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items())


def _section(title: str, counts: list[tuple[str, int]], n: int) -> list[str]:
    width = max((len(name) for name, _ in counts), default=0)
    return [f"{title}:"] + [f"  {name:<{width}}  {c:>6}  {100 * c / n:5.1f}%" for name, c in counts]


def _endings(rules: Ruleset, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    reasons = Counter(r["result"]["reason"] if r["result"] else REFUSED if r.get("refused") else "error"
                      for r in records)
    return [(_named(rules, reason), c) for reason, c in sorted(reasons.items(), key=lambda rc: (-rc[1], rc[0]))]


def _named(rules: Ruleset, key: str) -> str:
    if key == REFUSED:
        return key
    label = rules.label(key)
    return key if label in (key, key.replace("_", " ")) else f"{key} ({label})"


def _wins(rules: Ruleset, spec: Spec, records: list[dict[str, Any]]) -> list[tuple[str, int]]:
    wins = Counter(w for r in records if r["result"] for w in r["result"]["winners"])
    nobody = sum(1 for r in records if r["result"] and not r["result"]["winners"])
    kinds = seat_bots(spec.bots, spec.players)
    rows = [(f"seat {s} ({rules.label(rules.program.player_ids[s])}, {kinds[s]})", wins[s])
            for s in range(spec.players)]
    return rows + [("no winner", nobody)]


def _module_report(rules: Ruleset, records: list[dict[str, Any]]) -> list[str]:
    """The sections the module's `report:` asks for, over the finished games."""
    spec = rules.composition.report
    done = [r for r in records if r["result"] and r["report"] is not None]
    lines: list[str] = []
    rows = [(row, r["result"]) for r in done for row in r["report"].get("players", ())]
    if "player.survived" in spec:
        alive = sum(1 for row, _ in rows if row["survived"])
        lines.append(f"crew survival: {alive} of {len(rows)}" + (f" ({100 * alive / len(rows):.1f}%)" if rows else ""))
    if "player.group" in spec:
        lines += _by_group(rules, spec["player.group"].value, rows, "player.survived" in spec)
    if "rounds" in spec:
        lines += _spread("rounds played", [r["report"]["rounds"] for r in done])
    if "player.cause" in spec:
        lines += _causes(rules, rows, "player.survived" in spec)
    if "plays" in spec:
        lines += _plays(rules, spec["plays"].value.message, done)
    return lines


def _spread(title: str, values: list[Any]) -> list[str]:
    """Mean, median, min and max of whole numbers (others, as a missing counter, are left out)."""
    values = [v for v in values if isinstance(v, int)]
    if not values:
        return [f"{title}: no finished game"]
    return [f"{title}: mean {statistics.fmean(values):.1f}, median {statistics.median(values):g}, "
            f"min {min(values)}, max {max(values)}"]


def _key(value: Any) -> str:
    """A function's value as a row's key: an id as itself."""
    if value is None:
        return "(none)"
    return value if isinstance(value, str) else json.dumps(value)


def _by_group(rules: Ruleset, fn: str, rows: list[tuple[dict, dict]], survival: bool) -> list[str]:
    """One row per group (a character): players in it, how many survived, how many won. A group
    with a `caveat` (its cards not all known, say) is marked `*`, the caveats listed below."""
    played, alive, won = Counter(), Counter(), Counter()
    caveats: dict[str, set[str]] = {}
    for row, result in rows:
        g = _key(row["group"])
        played[g] += 1
        alive[g] += bool(row.get("survived"))
        won[g] += row["seat"] in result["winners"]
        if row.get("caveat") is not None:
            caveats.setdefault(g, set()).add(_key(row["caveat"]))
    names = {g: rules.label(g) + (" *" if g in caveats else "") for g in played}
    what = rules.names[fn].lower() if fn in rules.names else "group"
    width = max([len(what), *map(len, names.values())])
    head = f"  {what:<{width}}  {'players':>7}" + (f"  {'survived':>8}" if survival else "") + f"  {'won':>6}"
    lines = [f"by {what}:", head]
    for g in sorted(played, key=lambda g: (names[g], g)):
        n = played[g]
        lines.append(f"  {names[g]:<{width}}  {n:>7}" + (f"  {100 * alive[g] / n:7.1f}%" if survival else "")
                     + f"  {100 * won[g] / n:5.1f}%")
    return lines + _caveats(rules, caveats)


def _caveats(rules: Ruleset, caveats: dict[str, set[str]]) -> list[str]:
    """`* caveat: group, group`, one line a caveat."""
    groups: dict[str, list[str]] = {}
    for g, said in caveats.items():
        for c in said:
            groups.setdefault(c, []).append(rules.label(g))
    return [f"  * {_named(rules, c)}: {', '.join(sorted(gs))}" for c, gs in sorted(groups.items())]


def _causes(rules: Ruleset, rows: list[tuple[dict, dict]], survival: bool) -> list[str]:
    """How the dead died: every dead player counts once, under `not recorded` if it has no cause."""
    dead = [row for row, _ in rows if (not row["survived"] if survival else row["cause"] is not None)]
    if not dead:
        return ["causes of death: none"]
    causes = Counter("not recorded" if row["cause"] is None else _key(row["cause"]) for row in dead)
    counts = [(_named(rules, c) if c != "not recorded" else c, k)
              for c, k in sorted(causes.items(), key=lambda ck: (-ck[1], ck[0]))]
    return _section(f"causes of death ({len(dead)} dead)", counts, len(dead))


TOP_PLAYS = 15


def _plays(rules: Ruleset, message: str, done: list[dict[str, Any]]) -> list[str]:
    """The most played cards (by component), then the total."""
    plays: Counter[str] = Counter()
    for r in done:
        plays.update(r["report"]["plays"])
    total = sum(plays.values())
    title = f"cards played (log message `{message}`)"
    if not total:
        return [f"{title}: none"]
    ranked = sorted(plays.items(), key=lambda ck: (-ck[1], ck[0]))
    lines = _section(title, [(_named(rules, c), k) for c, k in ranked[:TOP_PLAYS]], total)
    if len(ranked) > TOP_PLAYS:
        lines.append(f"  ... {len(ranked) - TOP_PLAYS} more cards, {sum(k for _, k in ranked[TOP_PLAYS:])} plays")
    per_game = total / len(done)
    lines.append(f"  total {total} plays of {len(ranked)} cards, {per_game:.1f} a game")
    return lines


def _decisions(records: list[dict[str, Any]]) -> list[str]:
    return _spread("decisions per game", [r["decisions"] for r in records if r["result"]])


def _reported_counters(rules: Ruleset) -> set[str]:
    """The counters the modules' `report: counters:` name: a game's private bookkeeping stays out."""
    return {d.value for field, d in rules.composition.report.items() if field.startswith("counters.")}


def _counters(records: list[dict[str, Any]], shown: set[str] | None) -> list[str]:
    """The mean of each counter at the end: those the modules report, or all (`--counters`)."""
    finished = [r["counters"] for r in records if r["result"]]
    names = sorted({k for c in finished for k in c if shown is None or k in shown})
    if not names:
        return []
    return ["counters at the end (mean): "
            + ", ".join(f"{k} {statistics.fmean(c.get(k, 0) for c in finished):.1f}" for k in names)]


def _errors(records: list[dict[str, Any]]) -> list[str]:
    return _listed("errors", [(r["seed"], r["error"]) for r in records if r["error"]])


def _refusals(records: list[dict[str, Any]]) -> list[str]:
    """Games the rules say do not exist (a mode that cannot follow the game it continues): not errors."""
    refused = [(r["seed"], r["refused"]) for r in records if r.get("refused")]
    return _listed(REFUSED, refused) if refused else []


def _listed(title: str, texts: list[tuple[int, str]]) -> list[str]:
    """Each distinct text with how many games gave it and the first seed that did."""
    if not texts:
        return [f"{title}: none"]
    kinds = Counter(e for _, e in texts)
    lines = [f"{title}: {len(texts)} game{'s' if len(texts) > 1 else ''}"]
    for text, c in sorted(kinds.items(), key=lambda tc: (-tc[1], tc[0]))[:10]:
        first = next(s for s, e in texts if e == text)
        lines.append(f"  {c} x {text} (first at seed {first})")
    return lines

"""Measure bot kinds against each other on the same seeds (docs/bots.md).

    PYTHONPATH=. python tools/bot_duel.py play search:8 --games 40 --out /tmp/search.jsonl
    PYTHONPATH=. python tools/bot_duel.py play heuristic --games 40 --out /tmp/heuristic.jsonl
    python tools/bot_duel.py summary /tmp/heuristic.jsonl /tmp/search.jsonl

`play` plays base games (4 players by default), every seat the given bot kind, seeds from
`--seed` on, and appends one JSON line a game as it ends (a long run can be stopped at any time):
seed, seconds, and per seat whether the player survived (the module's report function
`player.survived`) and won (its seat among the result's winners). `summary` reads such files, keeps the
seeds every file has, and prints crew survival and wins with 95% Wilson intervals, and the paired
difference of the last file against the first with a 95% interval from a bootstrap over seeds.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

from nemesis_rules import Game, load_ruleset
from nemesis_rules.bots import bot_seed, make_bot, play_turn
from nemesis_rules.engine import vm


def play(args: argparse.Namespace) -> None:
    rules = load_ruleset(*args.modules.split(","))
    survived_fn = rules.composition.report["player.survived"].value
    for seed in range(args.seed, args.seed + args.games):
        started = time.process_time()
        game = Game.new(rules, players=args.players, seed=seed)
        bots = {s: make_bot(args.kind, bot_seed(seed, s)) for s in range(args.players)}
        while not game.over and game.move_count < args.max_decisions:
            play_turn(game, bots)
        result = game.result or {}
        players = rules.program.player_ids[:args.players]
        rt = vm.Runtime(rules.program, game.state)
        row = {"seed": seed, "kind": args.kind, "cpu_s": round(time.process_time() - started, 2),
               "over": game.over, "reason": result.get("reason"),
               "survived": [vm.call_function(rt, survived_fn, [p]) is True for p in players],
               "won": [seat in (result.get("winners") or ()) for seat in range(args.players)]}
        with Path(args.out).open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summary(args: argparse.Namespace) -> None:
    runs = [{r["seed"]: r for r in map(json.loads, Path(f).read_text().splitlines())} for f in args.files]
    seeds = sorted(set.intersection(*(set(r) for r in runs)))
    print(f"{len(seeds)} games on the same seeds ({seeds[0]}..{seeds[-1]})" if seeds else "no common seeds")
    for f, run in zip(args.files, runs, strict=True):
        rows = [run[s] for s in seeds]
        seats = sum(len(r["survived"]) for r in rows)
        cpu = sum(r["cpu_s"] for r in rows) / max(len(rows), 1)
        print(f"{rows[0]['kind'] if rows else f}: cpu {cpu:.1f} s a game")
        for what in ("survived", "won"):
            k = sum(sum(r[what]) for r in rows)
            lo, hi = wilson(k, seats)
            print(f"  {what:8} {k:4} of {seats} seats  {k / seats:6.1%}  95% CI [{lo:.1%}, {hi:.1%}]")
    if len(runs) >= 2 and seeds:
        first, last = runs[0], runs[-1]
        gen = random.Random(0)
        for what in ("survived", "won"):
            diffs = [sum(last[s][what]) - sum(first[s][what]) for s in seeds]
            seats = len(first[seeds[0]][what])
            boot = sorted(sum(gen.choice(diffs) for _ in diffs) / (len(diffs) * seats) for _ in range(2000))
            mean = sum(diffs) / (len(diffs) * seats)
            print(f"paired {what} difference (last - first): {mean:+.1%} a seat, "
                  f"95% bootstrap CI [{boot[49]:+.1%}, {boot[1949]:+.1%}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play")
    p.add_argument("kind")
    p.add_argument("--modules", default="base")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-decisions", type=int, default=5000)
    p.add_argument("--out", required=True)
    p.set_defaults(run=play)
    s = sub.add_parser("summary")
    s.add_argument("files", nargs="+")
    s.set_defaults(run=summary)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()

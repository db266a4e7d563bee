"""The interpreter's overhead as a ratio: base's noise roll in the DSL against the same rule
written by hand in Python, on the same states (DESIGN §4a).

    python tools/handwritten.py [--runs 5] [--calls 2000]

The hand-written version mirrors rulesets/base/rules/movement.nem `noise_roll` (faces 1-4 place a
noise marker, or resolve an encounter when one is there; Danger and Silence do nothing here) and
the functions it uses from common.nem. States come from random games; only (state, face) pairs
where the roll places a marker are timed, after checking both versions leave the same zones.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nemesis_rules import Game, load_ruleset  # noqa: E402
from nemesis_rules.engine import vm  # noqa: E402
from nemesis_rules.engine.state import E_COMP, E_KIND, E_ZONE  # noqa: E402


def noise_roll_by_hand(rt: vm.Runtime, who: str, face) -> str:
    """What the DSL's noise_roll does for a face 1-4: 'placed', 'encounter', 'full' or 'none'."""
    st = rt.state
    slot = st.zones and st.entities[rt.get_attr(who, "character")][E_ZONE].partition("@")[2]
    link = rt.program.graph.by_label.get((slot, face))
    if link is None:
        return "none"
    if st.entities[link][E_KIND] == "corridor":
        zone = f"corridor_contents@{link}"
    else:
        a, b = rt.program.graph.ends[link]
        zone = f"hub_contents@{b if a == slot else a}"
    if any(st.entities[m][E_COMP] == "noise_marker" for m in st.zones[zone]):
        return "encounter"
    marker = next((m for m in st.zones["marker_supply"] if st.entities[m][E_COMP] == "noise_marker"), None)
    if marker is None:
        return "full"
    rt.move(marker, zone)
    return "placed"


def _states(rules, count: int) -> list[Game]:
    """Games stopped at decisions where player 1's character stands in a room, with no encounter."""
    found = []
    for seed in range(200):
        game = Game.new(rules, players=2, seed=seed)
        rnd = random.Random(seed)
        while not game.over and len(found) < count:
            character = game.state.entities["player1"][2].get("character")
            if character and "@" in (game.state.entities[character][E_ZONE] or ""):
                found.append(game.clone())
            game.apply(rnd.randrange(len(game.decision.options)))
        if len(found) >= count:
            break
    return found


def _placing_cases(rules, states: list[Game], calls: int) -> tuple[list[Game], list]:
    """(state, face) pairs where the roll places a marker; both versions must leave the same zones."""
    pairs = []
    for game in states:
        for face in (1, 2, 3, 4):
            by_hand, dsl = game.clone(), game.clone()
            if noise_roll_by_hand(vm.Runtime(rules.program, by_hand.state), "player1", face) != "placed":
                continue
            _dsl_call(dsl, face)
            if by_hand.state.zones != dsl.state.zones:
                raise SystemExit(f"the two versions differ (face {face}): fix the hand-written one")
            pairs.append((game, face))
    if not pairs:
        raise SystemExit("no state where a noise roll places a marker")
    chosen = [pairs[i % len(pairs)] for i in range(calls)]
    return [g for g, _ in chosen], [f for _, f in chosen]


def _dsl_call(game: Game, face) -> None:
    st = game.state
    st.stack, st.pending, st.forced = [], None, [face]
    rt = vm.Runtime(game.rules.program, st)
    vm.push(rt, "noise_roll", ["player1"], 0)
    vm.run(rt)


def _time(fn, games: list[Game], faces: list) -> float:
    copies = [g.clone() for g in games]
    start = time.perf_counter()
    for game, face in zip(copies, faces, strict=True):
        fn(game, face)
    return (time.perf_counter() - start) / len(copies)


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    calls = int(argv[argv.index("--calls") + 1]) if "--calls" in argv else 2000
    rules = load_ruleset("base", ROOT / "tests" / "fixtures" / "base_testboard")
    games, faces = _placing_cases(rules, _states(rules, 50), calls)
    by_hand = [_time(lambda g, f: noise_roll_by_hand(vm.Runtime(rules.program, g.state), "player1", f), games, faces)
               for _ in range(runs)]
    dsl = [_time(_dsl_call, games, faces) for _ in range(runs)]
    h, d = statistics.median(by_hand), statistics.median(dsl)
    print(f"noise roll placing a marker, {calls} calls x {runs} runs (medians, clone time excluded):")
    print(f"  hand-written Python: {h * 1e6:.1f} µs per call")
    print(f"  DSL (interpreted):   {d * 1e6:.1f} µs per call")
    print(f"  overhead ratio:      {d / h:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The interpreter's overhead as a ratio: base's rules in the DSL against the same rules written by
hand in Python, on the same states (DESIGN §4a).

    python tools/handwritten.py [--runs 5] [--calls 2000]

Three baselines, each mirroring the DSL line by line (with the engine's own primitives for the
state changes, as a hand-written engine would):
* noise roll (rulesets/nemesis_core/rules/movement.nem `noise_roll`, faces 1-4 that place a marker);
* intruder attack (combat.nem `intruder_attack` with the attack cards' effect scripts of
  cards_attacks.yaml: a miss, a larva, Scratch/Claw light wounds, Bite/Tail/Frenzy serious wounds;
  cases where somebody would die, or the deck must be reshuffled, are left out);
* event card movement (events.nem `event_movement` and movement.nem `move_group`: groups,
  closed doors, technical corridors).
Before timing, every case runs both versions on copies of one state and the resulting zones,
entities, log and counters must be equal. `nemesis bench` prints the ratios (a source checkout).
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nemesis_rules import Game, load_ruleset  # noqa: E402
from nemesis_rules.engine import primitives as prim  # noqa: E402
from nemesis_rules.engine import vm  # noqa: E402
from nemesis_rules.engine.state import E_COMP, E_FACE, E_KIND, E_PROPS, E_ZONE, read_record  # noqa: E402

# Reads go through `read_record` and the `entities` index, as the interpreter's reads do: indexing a
# clone's shared table (`st.entities[e]`) would copy the record first, a cost no engine written by
# hand would pay for a read. Changes go through the runtime (`rt.move`, `rt.set_attr`, ...).


class NotCovered(Exception):
    """A case the hand-written version does not handle (it changed nothing)."""


# ---- shared queries (common.nem), by hand ----
def _slot_of(st, e) -> str:
    return read_record(st.entities, e)[E_ZONE].partition("@")[2]


def _kind_in(st, zone: str, kind: str) -> list[str]:
    entities = st.entities
    return [e for e in read_record(st.zones, zone) if read_record(entities, e)[E_KIND] == kind]


def _board_slots(rt: vm.Runtime) -> list[str]:
    side = "alternative" if rt.state.options.get("board") == "alternative" else "main"
    return [k for k in prim.entities(rt, "room_slot") if rt.get_attr(k, "side") == side]


def _active(rt: vm.Runtime, p: str) -> bool:
    st = rt.state
    ch = rt.get_attr(p, "character")
    if rt.get_attr(p, "status") != "on_board" or ch is None:
        return False
    owner = (read_record(st.entities, ch)[E_ZONE] or "").partition("@")[2]
    return bool(owner) and owner in st.entities and read_record(st.entities, owner)[E_KIND] == "room_slot"


def _player_of(rt: vm.Runtime, ch: str) -> str | None:
    return next((p for p in rt.program.player_ids[:rt.state.players] if rt.get_attr(p, "character") == ch), None)


# ---- noise roll (movement.nem noise_roll, faces 1-4) ----
def noise_roll_by_hand(rt: vm.Runtime, who: str, face) -> str:
    """What the DSL's noise_roll does for a face 1-4: 'placed', 'encounter', 'full' or 'none'."""
    st = rt.state
    slot = read_record(st.entities, rt.get_attr(who, "character"))[E_ZONE].partition("@")[2]
    rt.add_log("noise_roll", None, {"who": who, "face": face})
    if _noise_rerollers(rt, who):
        raise NotCovered("an item could reroll the die (the DSL asks its owner)")
    link = rt.program.graph.by_label.get((slot, face))
    if link is None:
        return "none"
    if read_record(st.entities, link)[E_KIND] == "corridor":
        zone = f"corridor_contents@{link}"
    else:
        a, b = rt.program.graph.ends[link]
        zone = f"hub_contents@{b if a == slot else a}"
    if any(read_record(st.entities, m)[E_COMP] == "noise_marker" for m in read_record(st.zones, zone)):
        return "encounter"
    marker = next((m for m in read_record(st.zones, "marker_supply")
                   if read_record(st.entities, m)[E_COMP] == "noise_marker"), None)
    if marker is None:
        return "full"
    rt.move(marker, zone)
    return "placed"


def _noise_rerollers(rt: vm.Runtime, who: str) -> list[str]:
    """cards.nem `noise_rerollers`: carried items that reroll the noise die and can be paid for."""
    in_hand = len(_kind_in(rt.state, f"hand@{who}", "action_card"))
    return [i for i in _carried_items(rt.state, who)
            if rt.get_attr(i, "rerolls_noise") and in_hand >= (rt.get_attr(i, "cost") or 0)]


# ---- intruder attack (combat.nem intruder_attack, cards_attacks.yaml effects) ----
def intruder_attack_by_hand(rt: vm.Runtime, i: str, who: str) -> None:
    st = rt.state
    if not _active(rt, who) or _slot_of(st, i) != _slot_of(st, rt.get_attr(who, "character")):
        return
    if rt.get_attr(i, "intruder_type") == "larva":
        rt.move(i, "intruder_figures")
        if not rt.get_attr(who, "larva"):
            rt.set_attr(who, "larva", True)
        _contaminate(rt, who)
        rt.add_log("larva_attack", None, {"who": who})
        return
    deck = read_record(st.zones, "attack_deck")
    if not deck:
        raise NotCovered("the attack deck would be reshuffled")
    c = deck[0]
    targets = _attack_targets(rt, c, i, who)
    if targets is None:
        raise NotCovered(f"{c}: not a card written here")
    if any(_would_die(rt, c, p) for p in targets):
        raise NotCovered("somebody would die")
    prim.reveal(rt, c)
    rt.move(c, "attack_discard")
    kind = rt.get_attr(i, "intruder_type")
    if kind not in rt.get_attr(c, "attackers"):
        rt.add_log("attack_misses", None, {"what": kind, "card": c})
        rt.set_attr(who, "surprised", False)
        return
    rt.add_log("attack", None, {"what": kind, "who": who, "card": c})
    if _attack_shields(rt, who):
        raise NotCovered("a card or item could ignore the attack (the DSL asks its owner)")
    rt.set_attr(who, "surprised", False)  # `attack_ignored` forgets the surprise
    if _softens(rt, c, i):
        raise NotCovered("a revealed weakness softens the attack")
    props = read_record(st.entities, c)[E_PROPS]
    for p in targets:
        if props.get("light_wounds"):  # Scratch, Claw
            for _ in range(props["light_wounds"]):
                _light_wound(rt, p)
            for _ in range(props["contamination"]):
                _contaminate(rt, p)
        elif _active(rt, p):  # Bite, Tail, Frenzy: wound_or_death without a death
            for _ in range(props["serious_wounds"]):
                _serious_wound(rt, p)


def _carried_items(st, who: str) -> list[str]:
    """cards.nem `carried_items`."""
    return [i for z in (f"backpack@{who}", f"held@{who}") for i in read_record(st.zones, z)
            if read_record(st.entities, i)[E_KIND] == "item_card"]


def _attack_shields(rt: vm.Runtime, who: str) -> list[str]:
    """cards.nem `attack_shields`: cards in hand and carried items that could ignore the attack."""
    surprised = rt.get_attr(who, "surprised")
    return [c for c in _kind_in(rt.state, f"hand@{who}", "action_card") + _carried_items(rt.state, who)
            if (how := rt.get_attr(c, "ignores_attack")) == "any" or (how == "surprise" and surprised)]


def _weakness_holds(rt: vm.Runtime, field: str, args: list) -> bool:
    """weaknesses.nem: a revealed weakness card whose expression field `field` holds for `args`."""
    for space in prim.entities(rt, "weakness_space"):
        slot = read_record(rt.state.zones, f"weakness_slot@{space}")
        w = slot[0] if slot else None
        if w is not None and read_record(rt.state.entities, w)[E_FACE] and prim.has_script(rt, w, field) \
                and rt.call_fn_script(w, field, args):
            return True
    return False


def _softens(rt: vm.Runtime, c: str, i: str) -> bool:
    return _weakness_holds(rt, "softens_attack", [c, i])


def _door_bound(rt: vm.Runtime, i: str) -> bool:
    return _weakness_holds(rt, "door_bound", [i])


def _contaminate(rt: vm.Runtime, who: str) -> None:
    """base's `contaminate(who, 1)`: the top contamination card onto the top of the discard."""
    deck = read_record(rt.state.zones, "contamination_deck")
    if deck:
        rt.move(deck[0], f"action_discard@{who}")


def _attack_targets(rt: vm.Runtime, c: str, i: str, who: str) -> list[str] | None:
    """Who the card's effect wounds, or None for a card this baseline does not write out."""
    comp = read_record(rt.state.entities, c)[E_COMP]
    if comp.startswith(("attack_scratch", "attack_claw", "attack_bite", "attack_tail")):
        return [who]
    if comp.startswith("attack_frenzy"):
        slot = _slot_of(rt.state, i)
        return [_player_of(rt, ch) for ch in _kind_in(rt.state, f"room_contents@{slot}", "character")]
    return None


def _would_die(rt: vm.Runtime, c: str, p: str) -> bool:
    props = read_record(rt.state.entities, c)[E_PROPS]
    serious, light = rt.get_attr(p, "serious"), rt.get_attr(p, "light_wounds")
    if props.get("light_wounds"):
        return serious >= 3 or (light + props["light_wounds"] >= 3 and serious >= 2)
    limit = props.get("death_if_serious_at_least") or 0
    return (limit > 0 and serious >= limit) or serious + props.get("serious_wounds", 0) > 3


def _light_wound(rt: vm.Runtime, who: str) -> None:
    if not _active(rt, who):
        return
    rt.set_attr(who, "light_wounds", rt.get_attr(who, "light_wounds") + 1)
    rt.add_log("light_wound", None, {"who": who})
    if rt.get_attr(who, "light_wounds") >= 3:
        rt.set_attr(who, "light_wounds", 0)
        _serious_wound(rt, who)


def _serious_wound(rt: vm.Runtime, who: str) -> None:
    if not _active(rt, who):
        return
    rt.set_attr(who, "serious", rt.get_attr(who, "serious") + 1)
    prim.deal(rt, "serious_wound_deck", f"serious_wounds@{who}", 1)
    rt.add_log("serious_wound", None, {"who": who})


# ---- event card movement (events.nem event_movement, movement.nem move_group) ----
def event_movement_by_hand(rt: vm.Runtime, c: str) -> None:
    st = rt.state
    movers, number = rt.get_attr(c, "movers"), rt.get_attr(c, "corridor")
    groups = [(s, [i for i in _kind_in(st, f"room_contents@{s}", "intruder")
                   if rt.get_attr(i, "intruder_type") in movers])
              for s in _board_slots(rt) if not _kind_in(st, f"room_contents@{s}", "character")]
    for slot, group in groups:
        _move_group(rt, group, slot, number)


def _move_group(rt: vm.Runtime, group: list[str], slot: str, number) -> None:
    st = rt.state
    way = rt.program.graph.by_label.get((slot, number))
    if way is None or not group:
        return
    if read_record(st.entities, way)[E_KIND] == "tech_entrance":
        for i in group:
            _to_bag(rt, i)
        return
    doors = _kind_in(st, f"corridor_contents@{way}", "door_marker")
    if any(rt.get_attr(d, "state") == "closed" for d in doors):
        if not any(not _door_bound(rt, i) for i in group):  # weaknesses.nem `breaks_doors`
            return
        for d in doors:
            rt.set_attr(d, "state", "destroyed")
        rt.add_log("door_destroyed", None, {"corridor": way})
        return
    a, b = rt.program.graph.ends[way]
    to = b if a == slot else a
    for i in group:
        rt.move(i, f"room_contents@{to}")
    rt.add_log("intruders_move", None, {"room": to, "n": len(group)})


def _to_bag(rt: vm.Runtime, i: str) -> None:
    st = rt.state
    kind = rt.get_attr(i, "intruder_type")
    rt.set_attr(i, "injuries", 0)
    rt.move(i, "intruder_figures")
    tok = next((t for t in read_record(st.zones, "intruder_tokens_aside") if rt.get_attr(t, "intruder_type") == kind), None)
    if tok is None:
        tok = next((t for t in read_record(st.zones, "intruder_token_supply")
                    if rt.get_attr(t, "intruder_type") == kind), None)
    if tok is not None:
        rt.move(tok, "intruder_bag")
    rt.add_log("intruder_vanishes", None, {"what": kind})


# ---- cases, checks and timing ----
def dsl_call(game: Game, proc: str, args: list, forced: list | None = None) -> None:
    """Run one procedure of the rules on the game's state, as the interpreter does."""
    st = game.state
    st.stack, st.pending, st.forced = [], None, list(forced or [])
    rt = vm.Runtime(game.rules.program, st)
    vm.push(rt, proc, args, 0)
    vm.run(rt)


def by_hand_call(fn: Callable[..., Any]) -> Callable[[Game, tuple], Any]:
    def call(game: Game, args: tuple) -> Any:
        st = game.state
        st.stack, st.pending, st.forced = [], None, []
        return fn(vm.Runtime(game.rules.program, st), *args)
    return call


def _noise_dsl(game: Game, args: tuple) -> None:
    dsl_call(game, "noise_roll", [args[0]], [args[1]])


class Baseline:
    """One rule: its cases (state, arguments), the hand-written call and the DSL call."""

    def __init__(self, name: str, cases: Callable[[Game], list[tuple]], by_hand: Callable[..., Any],
                 dsl: Callable[[Game, tuple], None], keep: Callable[[Any], bool] = lambda _: True) -> None:
        self.name, self.cases, self.keep = name, cases, keep
        self.by_hand, self.dsl = by_hand_call(by_hand), dsl


def _noise_cases(game: Game) -> list[tuple]:
    character = game.state.entities["player1"][E_PROPS].get("character")
    if not character or "@" not in (game.state.entities[character][E_ZONE] or ""):
        return []
    return [("player1", face) for face in (1, 2, 3, 4)]


def _attack_cases(game: Game) -> list[tuple]:
    st = game.state
    cases = []
    for p in game.rules.program.player_ids[:st.players]:
        ch = st.entities[p][E_PROPS].get("character")
        zone = ch and st.entities[ch][E_ZONE] or ""
        if zone.startswith("room_contents@"):
            cases += [(i, p) for i in _kind_in(st, zone, "intruder") if not _attack_changed(game, i, p)]
    return cases


def _attack_changed(game: Game, i: str, p: str) -> bool:
    """A card or item that cancels the attack, or a revealed weakness that softens it: the
    hand-written version does not write those out, so such cases are left out (asked of the DSL's
    own functions before timing)."""
    rt, fns, deck = vm.Runtime(game.rules.program, game.state), game.rules.program.fns, game.state.zones["attack_deck"]
    ignored = "attack_shields" in fns and len(fns["attack_shields"](rt, [p])) > 0
    softened = bool(deck) and "softened_attack" in fns and fns["softened_attack"](rt, [deck[0], i])
    return bool(ignored or softened)


def _movement_cases(game: Game) -> list[tuple]:
    """The next event cards, where some intruder stands on the board."""
    st = game.state
    if not any(e[E_KIND] == "intruder" and (e[E_ZONE] or "").startswith("room_contents@")
               for e in st.entities.values()):
        return []
    return [(c,) for c in st.zones["event_deck"][:3]]


BASELINES = [
    Baseline("noise roll placing a marker", _noise_cases, noise_roll_by_hand, _noise_dsl,
             keep=lambda outcome: outcome == "placed"),
    Baseline("intruder attack", _attack_cases, intruder_attack_by_hand,
             lambda g, a: dsl_call(g, "intruder_attack", list(a))),
    Baseline("event card movement", _movement_cases, event_movement_by_hand,
             lambda g, a: dsl_call(g, "event_movement", list(a))),
]


def states(rules, count: int, seeds: int = 200) -> list[Game]:
    """Copies of random 2-player games at `count` decisions spread over the games."""
    found: list[Game] = []
    for seed in range(seeds):
        game = Game.new(rules, players=2, seed=seed)
        rnd = random.Random(seed)
        while not game.over and len(found) < count:
            if len(game.state.moves) % 7 == 3:
                found.append(game.clone())
            game.apply(rnd.randrange(len(game.decision.options)))
        if len(found) >= count:
            break
    return found


def _snapshot(game: Game) -> tuple:
    st = game.state
    return st.zones, st.entities, st.log, st.counters, st.result


def checked_cases(baseline: Baseline, games: list[Game]) -> list[tuple[Game, tuple]]:
    """The (state, arguments) pairs the hand-written version covers, each checked against the DSL."""
    pairs = []
    for game in games:
        for args in baseline.cases(game):
            by_hand, dsl = game.clone(), game.clone()
            try:
                outcome = baseline.by_hand(by_hand, args)
            except NotCovered:
                continue
            if not baseline.keep(outcome):
                continue
            baseline.dsl(dsl, args)
            if _snapshot(by_hand) != _snapshot(dsl):
                raise SystemExit(f"{baseline.name}: the two versions differ on {args} "
                                 f"(after {len(game.state.moves)} decisions): fix the hand-written one")
            pairs.append((game, args))
    return pairs


def _time(fn: Callable[[Game, tuple], Any], cases: list[tuple[Game, tuple]]) -> float:
    """Seconds per call, with Python's collector off while timing (as timeit does: a collection
    lands on whichever side happens to allocate past the threshold)."""
    copies = [(g.clone(), a) for g, a in cases]
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for game, args in copies:
            fn(game, args)
        return (time.perf_counter() - start) / len(copies)
    finally:
        gc.enable()


def measure(rules, runs: int = 5, calls: int = 2000, state_count: int = 150) -> list[tuple[str, int, float, float]]:
    """(name, distinct cases, hand-written s/call, DSL s/call) for each baseline: medians of `runs`."""
    games = states(rules, state_count)
    rows = []
    for baseline in BASELINES:
        pairs = checked_cases(baseline, games)
        if not pairs:
            raise SystemExit(f"{baseline.name}: no state the hand-written version covers")
        chosen = [pairs[k % len(pairs)] for k in range(calls)]
        # the two sides take turns, so that a slow spell of the machine falls on both
        times = [(_time(baseline.by_hand, chosen), _time(baseline.dsl, chosen)) for _ in range(runs)]
        hand = statistics.median(h for h, _ in times)
        dsl = statistics.median(d for _, d in times)
        rows.append((baseline.name, len(pairs), hand, dsl))
    return rows


def base_rules():
    return load_ruleset("base", ROOT / "tests" / "fixtures" / "base_testboard")


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 5
    calls = int(argv[argv.index("--calls") + 1]) if "--calls" in argv else 2000
    print(f"DSL against hand-written Python, same states, {calls} calls x {runs} runs "
          "(medians, clone time excluded):")
    for name, cases, hand, dsl in measure(base_rules(), runs, calls):
        print(f"  {name} ({cases} cases): hand-written {hand * 1e6:.1f} µs, DSL {dsl * 1e6:.1f} µs, "
              f"ratio {dsl / hand:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Golden replays: recorded games (rules, seed, decisions) whose final state must not change.

    python tools/golden.py            # check every file in tests/golden/ (exit 1 on a difference)
    python tools/golden.py --update   # re-record them after a deliberate rules change

A difference means the rules or the engine now play the same decisions differently: look at the
first differing step (printed), then either fix the regression or re-record and commit the diff.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nemesis_rules import Game, RulesError, load_ruleset  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"
# name -> (modules, players, seed, options): the games to record
GAMES = {
    "toy_3p_seed7": (["tests/fixtures/toy"], 3, 7, {}),
    # the printed board with its printed decks
    "base_4p_seed1": (["base"], 4, 1, {}),
    "base_solo_seed2": (["base"], 1, 2, {"mode": "solo"}),
    "base_coop_3p_seed3": (["base"], 3, 3, {"mode": "coop"}),
}


def _digest(game: Game) -> str:
    """The state's digest without the rules' fingerprint: a replay pins how the game plays, so a
    change that plays the same (a screen panel, a bot hint, a comment) keeps it valid."""
    state = game.state.to_dict()
    del state["ruleset"]
    return hashlib.sha256(json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()


def record(name: str) -> dict:
    modules, players, seed, options = GAMES[name]
    rules = load_ruleset(*[str(ROOT / m) if "/" in m else m for m in modules])
    game = Game.new(rules, players=players, seed=seed, **options)
    rnd = random.Random(seed)
    steps = []
    while not game.over:
        choice = rnd.randrange(len(game.decision.options))
        game.apply(choice)
        steps.append([choice, _digest(game)[:12]])
    return {"modules": modules, "players": players, "seed": seed, "options": options,
            "steps": steps, "result": game.result, "final": _digest(game)}


def replay(data: dict) -> tuple[int | None, str]:
    """None and '' when the recording replays exactly, else the first differing step and why."""
    rules = load_ruleset(*[str(ROOT / m) if "/" in m else m for m in data["modules"]])
    game = Game.new(rules, players=data["players"], seed=data["seed"], **data["options"])
    for i, (choice, digest) in enumerate(data["steps"]):
        if game.over:
            return i, "the game ended earlier"
        try:
            game.apply(choice)
        except RulesError as err:
            return i, f"decision {i} fails: {err}"
        if _digest(game)[:12] != digest:
            return i, f"state after decision {i} differs"
    if not game.over:
        return len(data["steps"]), "the game goes on after the recorded end"
    if _digest(game) != data["final"]:
        return len(data["steps"]), "the final state differs"
    return None, ""


def main(argv: list[str]) -> int:
    failed = 0
    for name in GAMES:
        path = GOLDEN / f"{name}.json"
        if "--update" in argv or not path.is_file():
            path.write_text(json.dumps(record(name), indent=1) + "\n", encoding="utf-8")
            print(f"recorded {path.relative_to(ROOT)}")
            continue
        step, why = replay(json.loads(path.read_text(encoding="utf-8")))
        print(f"{'ok  ' if step is None else 'DIFF'} {name}" + (f": {why} (step {step})" if why else ""))
        failed += step is not None
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

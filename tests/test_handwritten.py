"""tools/handwritten.py: each hand-written baseline leaves the same state as the rule in the DSL
(zones, entities, log, counters) on every case it covers, and covers cases of every kind."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import handwritten  # noqa: E402


@pytest.fixture(scope="module")
def games():
    return handwritten.states(handwritten.base_rules(), 120)


def _effects(baseline, pairs) -> Counter:
    """The log messages each covered case writes (by the hand-written version)."""
    seen = Counter()
    for game, args in pairs:
        copy = game.clone()
        start = len(copy.state.log)
        baseline.by_hand(copy, args)
        seen.update(e["msg"] for e in copy.state.log[start:])
    return seen


@pytest.mark.parametrize("name, effects", [
    ("noise roll placing a marker", {"noise_roll"}),
    ("intruder attack", {"attack", "light_wound", "serious_wound"}),
    ("event card movement", {"intruders_move"}),
])
def test_baseline_gives_the_dsl_state(games, name, effects):
    baseline = next(b for b in handwritten.BASELINES if b.name == name)
    pairs = handwritten.checked_cases(baseline, games)  # raises SystemExit on any difference
    assert len(pairs) >= 10
    assert effects <= set(_effects(baseline, pairs))


def test_a_wrong_baseline_is_caught(games):
    def forgets_the_log(rt, c):
        handwritten.event_movement_by_hand(rt, c)
        if rt.state.log and rt.state.log[-1]["msg"] == "intruders_move":
            rt.state.log.pop()

    wrong = handwritten.Baseline("wrong", handwritten._movement_cases, forgets_the_log,
                                 handwritten.BASELINES[2].dsl)
    with pytest.raises(SystemExit, match="the two versions differ"):
        handwritten.checked_cases(wrong, games)


def test_bench_prints_each_ratio(capsys):
    from nemesis_rules.cli import bench
    from nemesis_rules.cli.main import build_parser

    assert bench.HANDWRITTEN is not None
    bench._bench_baselines(bench.HANDWRITTEN, runs=1, calls=5)
    out = capsys.readouterr().out
    for baseline in handwritten.BASELINES:
        assert f"  {baseline.name}: " in out and "x (DSL " in out, out
    assert build_parser().parse_args(["bench", "--no-baselines"]).no_baselines

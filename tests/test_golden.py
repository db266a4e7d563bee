"""Golden replays (tests/golden/): recorded games still play out to the same states."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import golden  # noqa: E402

FILES = sorted((ROOT / "tests" / "golden").glob("*.json"))


def test_every_recorded_game_has_a_file() -> None:
    assert {p.stem for p in FILES} == set(golden.GAMES)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_recorded_game_replays_exactly(path: Path) -> None:
    step, why = golden.replay(json.loads(path.read_text(encoding="utf-8")))
    assert step is None, f"{why} at step {step}: fix the regression or re-record with tools/golden.py --update"


def test_a_changed_decision_is_caught() -> None:
    data = json.loads(FILES[0].read_text(encoding="utf-8"))
    data["steps"][0][0] = (data["steps"][0][0] + 1) % 2
    assert golden.replay(data)[0] is not None

"""`nemesis compare A B` (issue #37 point 3): two configurations on the same seeds, each
difference with its interval and test, and a mod's own cards with their effect; and stats.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nemesis_rules.cli import stats
from tests.test_simulate_tables import run_quietly, sections

ROOT = Path(__file__).resolve().parents[1]
DEADLY = f"base,{ROOT / 'tests' / 'fixtures' / 'mod_deadly_card'}"
MOD_EXAMPLE = f"base,{ROOT / 'tests' / 'fixtures' / 'mod_example'}"
DIFF_LINE = re.compile(r"^  (.+?)  +A +(\S+)  B +(\S+)  ([+-]\d+\.\d)( pp)? \[([+-]\d+\.\d), ([+-]\d+\.\d)\] p=(\S+)( \*)?$")


def differences(out: str) -> dict[str, re.Match]:
    return {m[1].strip(): m for m in map(DIFF_LINE.match, out.splitlines()) if m}


@pytest.fixture(scope="module")
def deadly(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """base against base + a card that kills whoever plays it: 20 two-player games a side."""
    html = tmp_path_factory.mktemp("cmp") / "compare.html"
    code, out, err = run_quietly("compare", "base", DEADLY, "--games", "20", "--jobs", "1", "-q",
                                 "--report", str(html))
    assert code == 0, err
    return {"out": out, "html": html}


def test_compare_flags_the_planted_card(deadly):
    out = deadly["out"]
    rows = differences(out)
    cause = next(m for what, m in rows.items() if "killed_by_deadly_card" in what)
    assert cause[2] == "0.0%" and cause[9] == " *", cause[0]  # never in base, significant in B
    card = next(line for line in out.splitlines() if "(soldier_deadly_card)" in line)
    assert "played by" in card and card.endswith(" *") and "100.0% against 0.0%" in card, card


def test_compare_reports_each_difference_with_an_interval(deadly):
    rows = differences(deadly["out"])
    assert {"seats surviving", "seats winning", "mean rounds a game", "mean decisions a game"} <= set(rows)
    for what, m in rows.items():
        delta, low, high = float(m[4]), float(m[6]), float(m[7])
        assert low <= delta <= high, what
        assert 0 <= float(m[8]) <= 1, what
    assert "Fisher's exact test" in deadly["out"]


def test_compare_report_page(deadly):
    found = sections(deadly["html"])
    assert found["differences"]["svg"] == 1 and found["differences"]["rows"] > 5
    assert found["mod-cards"]["rows"] > 1
    assert {"A-outcomes", "B-outcomes", "A-causes", "B-causes"} <= set(found)
    assert "soldier_deadly_card" in deadly["html"].read_text()


def test_compare_names_the_mods_cards():
    code, out, err = run_quietly("compare", "base", MOD_EXAMPLE, "--games", "6", "--jobs", "1", "-q")
    assert code == 0, err
    part = out.split("cards of B's own modules", 1)[1]
    for card in ("event_coolant_vent", "item_signal_flare", "weakness_fear_of_fire"):
        assert f"({card})" in part
    assert "seeds 0..5" in out and differences(out)


def test_same_configuration_same_seeds_no_difference():
    code, out, err = run_quietly("compare", "base", "base", "--games", "4", "--jobs", "1", "-q", "--seed", "7")
    assert code == 0, err
    rows = differences(out)
    assert rows and all(m[2] == m[3] and float(m[4]) == 0 and m[9] is None for m in rows.values())
    assert "cards of B's own modules" not in out


@pytest.mark.parametrize(("argv", "text"), [
    (["compare", "base", "no_such_module"], "no_such_module"),
    (["compare", "base", "base", "--option-b", "mode=sideways"], "option `mode` takes one of"),
    (["compare", "base", "base", "--games", "0"], "--games must be at least 1"),
    (["compare", "base", "base", "--bots-a", "genius"], "unknown bot"),
])
def test_bad_input_is_one_line(argv, text):
    code, out, err = run_quietly(*argv, "-q")
    assert code == 2 and text in err and "Traceback" not in err and out == ""


# ---- stats.py ----
def test_wilson_interval_known_values():
    low, high = stats.wilson(0, 10)
    assert low == 0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = stats.wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_two_proportions_and_means():
    d = stats.proportions(10, 100, 25, 100)
    assert d.delta == pytest.approx(0.15) and d.low < 0.15 < d.high and d.significant
    assert d.p == pytest.approx(0.0085036, abs=1e-6)  # scipy.stats.fisher_exact's
    assert stats.fisher(1, 11, 0, 989) == pytest.approx(0.011) and stats.fisher(0, 20, 6, 20) == pytest.approx(0.020196, abs=1e-6)
    same = stats.proportions(3, 30, 3, 30)
    assert same.delta == 0 and same.p == pytest.approx(1.0) and not same.significant
    m = stats.means([1, 2, 3, 4], [3, 4, 5, 6])
    assert m.delta == 2 and m.low < 2 < m.high and m.significant

"""`nemesis simulate` backends and progress: Ray gives the local backend's report for the same
seeds (skipped without the `ray` extra), a missing extra is one clear line, and the progress bar
shows games/s and the time left on a terminal only."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from nemesis_rules.cli import simulate
from nemesis_rules.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
TOY = str(ROOT / "tests" / "fixtures" / "toy")
BASE = f"base,{ROOT / 'tests' / 'fixtures' / 'base_testboard'}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


@pytest.mark.parametrize("modules, games", [(TOY, "40"), (BASE, "4")])
def test_ray_gives_the_local_report(capsys, local_ray, modules, games):
    args = ("simulate", "--modules", modules, "--games", games, "--seed", "3", "--players", "2")
    code, local, _ = run(capsys, *args, "--jobs", "2")
    assert code == 0 and "errors: none" in local
    code, on_ray, err = run(capsys, *args, "--backend", "ray")
    assert code == 0 and on_ray == local
    assert "ray (2 CPUs)" in err


def test_ray_progress_counts_every_game(local_ray):
    rules = simulate.common.load([TOY])
    spec = simulate.Spec((TOY,), "en", 2, "random", {})
    seen: list[int] = []
    records = simulate.simulate(rules, spec, 0, 25, simulate.Backend("ray"), progress=seen.append)
    assert sum(seen) == 25 and [r["seed"] for r in records] == list(range(25))


def test_ray_missing_is_one_clear_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    code, out, err = run(capsys, "simulate", "--modules", TOY, "--games", "2", "--backend", "ray")
    assert code == 2 and out == ""
    assert err.strip() == "nemesis: --backend ray needs Ray: pip install 'nemesis-rules[ray]'"


@pytest.mark.parametrize("argv, message", [
    (("--address", "127.0.0.1:6379"), "--address is for --backend ray"),
    (("--backend", "dask"), "invalid choice: 'dask'"),
])
def test_backend_options_refused(capsys, argv, message):
    code, _, err = run(capsys, "simulate", "--modules", TOY, "--games", "2", *argv)
    assert code == 2 and message in err and "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal(monkeypatch):
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with simulate._Progress(10, show=True) as bar:
        bar.advance(4)
        bar._bar.refresh()
    shown = screen.getvalue()
    assert "4/10" in shown and "games/s" in shown and "left" in shown


@pytest.mark.parametrize("terminal, quiet", [(False, False), (True, True)])
def test_no_progress_off_a_terminal_or_when_quiet(capsys, monkeypatch, terminal, quiet):
    screen = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", screen)
    code = main(["simulate", "--modules", TOY, "--games", "30", "--jobs", "1", *(["--quiet"] if quiet else [])])
    assert code == 0 and "30 games of toy" in capsys.readouterr().out
    shown = screen.getvalue()
    assert shown == "" if quiet else (shown.startswith("time: ") and shown.count("\n") == 1), shown

"""Every file read from a user goes through one reader that refuses what is not a regular file,
never blocks on a FIFO and never reads past its limit (issue #39 point 2)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from nemesis_rules import RulesError, load_ruleset
from nemesis_rules.paths import UnreadableFile, read_user_file
from nemesis_rules.scenario import run_file

TOY = Path(__file__).parent / "fixtures" / "toy"


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_user_file(fifo, 100)


def test_a_device_is_refused_and_a_large_file_never_read_whole(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFile, match="not a regular file"):
        read_user_file(Path("/dev/zero"), 100)
    big = tmp_path / "big"
    with big.open("wb") as f:
        f.truncate(1 << 30)  # a sparse GiB: its size is refused before a byte is read
    with pytest.raises(UnreadableFile, match="too large") as err:
        read_user_file(big, 1000)
    assert err.value.code == "E801"


def test_a_link_out_of_the_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("do not quote me")
    root = tmp_path / "mod"
    root.mkdir()
    (root / "link.yaml").symlink_to(outside)
    with pytest.raises(UnreadableFile, match="outside") as err:
        read_user_file(root / "link.yaml", 1000, root)
    assert err.value.code == "E105"


def test_a_module_with_a_fifo_or_a_device_link_loads_to_a_clear_error(tmp_path: Path, monkeypatch) -> None:
    """The load cache's digest of a module folder read every file: a FIFO hung it for ever and a
    link to /dev/zero grew memory without bound."""
    monkeypatch.setenv("NEMESIS_CACHE_DIR", str(tmp_path / "cache"))
    for name, make in (("fifo", lambda p: os.mkfifo(p)), ("zero", lambda p: p.symlink_to("/dev/zero"))):
        mod = tmp_path / name
        shutil.copytree(TOY, mod)
        make(mod / "extra.yaml")
        with pytest.raises(RulesError) as err:
            load_ruleset(mod)
        assert any(d.code == "E105" for d in err.value.diagnostics), err.value


def test_a_scenarios_after_save_reads_only_a_save_file(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: probe\nmodules: [base]\nplayers: 2\nafter: {save: /dev/zero}\nexpect: {over: true}\n")
    report = run_file(scenario)
    assert "not a regular file" in str(report), report

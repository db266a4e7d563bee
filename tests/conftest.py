"""Shared fixtures and the hypothesis profiles (`--hypothesis-profile=long` for the long runs)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from nemesis_rules import load_ruleset

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# the ruleset cache (nemesis_rules/ruleset/cache.py) of this run in a folder of its own, not the user's
os.environ["NEMESIS_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="nemesis-test-cache-")
atexit.register(shutil.rmtree, _CACHE, True)

FIXTURES = Path(__file__).parent / "fixtures"
TOY = FIXTURES / "toy"


@pytest.fixture(scope="session", autouse=True)
def _parse_cache_of_the_session(tmp_path_factory):
    """nemesis-lint's cache of parsed files (and the processes tests start) in a folder of this
    run, not the user's ~/.cache."""
    os.environ["NEMESIS_RULES_CACHE"] = str(tmp_path_factory.mktemp("nemesis-cache"))


@pytest.fixture(scope="session")
def toy_rules():
    return load_ruleset(TOY)

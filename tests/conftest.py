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

# the ruleset cache and nemesis-lint's parsed files (nemesis_rules/ruleset/cache.py, parse_cache.py)
# of this run, and of the processes tests start, in a folder of its own, not the user's
os.environ["NEMESIS_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="nemesis-test-cache-")
atexit.register(shutil.rmtree, _CACHE, True)

FIXTURES = Path(__file__).parent / "fixtures"
TOY = FIXTURES / "toy"


@pytest.fixture(scope="session")
def toy_rules():
    return load_ruleset(TOY)

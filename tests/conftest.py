"""Shared fixtures and the hypothesis profiles (`--hypothesis-profile=long` for the long runs)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from nemesis_rules import load_ruleset

settings.register_profile("default", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

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

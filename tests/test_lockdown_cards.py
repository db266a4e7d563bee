"""Lockdown reads well to a new user (issue #34 point 4): every component of Lockdown and of its
adapters has an English name, and a card whose effect our sources do not give says so, in every
language, instead of reading as a plausible effect such as "Do nothing."."""

from __future__ import annotations

from pathlib import Path

import pytest

from nemesis_rules.lint.runner import lint_paths

ROOT = Path(__file__).resolve().parents[1]
LOCKDOWN_MODULES = ["lockdown", "aftermath_lockdown", "base_characters_lockdown", "carnomorphs_lockdown",
                    "chytrids_lockdown", "void_seeders_lockdown", "lockdown_medic"]


@pytest.mark.parametrize("module", LOCKDOWN_MODULES)
def test_every_component_has_an_english_name(module):
    findings, _ = lint_paths([ROOT / "rulesets" / module])
    missing = [f.message for f in findings if f.code == "W600" and "has no name in en" in f.message]
    assert missing == []

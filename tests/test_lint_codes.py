"""The lint code registry, its generated reference page and the pre-commit hook."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # until pyproject sets pytest's `pythonpath = ["."]`
    sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from ruamel.yaml import YAML  # noqa: E402

from nemesis_rules.dsl.diagnostics import did_you_mean  # noqa: E402
from nemesis_rules.lint import codes  # noqa: E402

PROPOSED = """
E100 syntax-error E101 unexpected-token E102 bad-indentation W103 irregular-indentation E103 yaml-syntax
E104 unreadable-file E105 not-a-module-file E200 unknown-field E201 missing-field E202 wrong-value-type E203 bad-module-id
E300 unknown-name E301 unknown-primitive E302 unknown-procedure E303 unknown-component
E304 unknown-kind E305 unknown-zone E306 unknown-prop E307 unknown-translation-key
E308 unknown-event E309 unknown-option E310 unknown-symbol-value E400 wrong-arity E401 wrong-argument-type
E402 not-callable E403 wrong-prop-type E404 id-as-string E500 duplicate-id E501 deck-count-mismatch W502 unreachable-code
W503 unused-procedure W504 unused-component W506 unlaid-link E505 misplaced-statement W507 missing-link-label
E508 duplicate-link-label E509 unreachable-node E510 wrong-kind-in-zone W600 missing-translation
W601 unused-translation-key E602 placeholder-mismatch E603 bad-placeholder W604 missing-prompt E700 missing-required-module
E701 module-cycle E702 conflicting-replacements E703 engine-version-out-of-range
E704 conflicting-modules E705 bad-requires-path W800 unbounded-loop E801 file-too-large
E802 yaml-alias-expansion E803 too-many-components E804 value-too-large E805 nesting-too-deep
E806 bad-player-range E807 counter-out-of-bounds E999 internal-error
""".split()


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_lint_docs", ROOT / "tools" / "gen_lint_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_registry_keeps_the_agreed_codes_and_names():
    agreed = dict(zip(PROPOSED[::2], PROPOSED[1::2], strict=True))
    assert {c.code: c.name for c in codes.CODES} == agreed


@pytest.mark.parametrize("rule", codes.CODES, ids=lambda r: r.code)
def test_each_code_is_documented_in_sections(rule):
    assert rule.severity == ("warning" if rule.code.startswith("W") else "error")
    for title in codes.SECTIONS:
        assert codes.section(rule.doc, title), title
    assert rule.summary.endswith(".")
    assert "```" in codes.section(rule.doc, "Example")


def test_lookup_by_code_or_name():
    assert codes.lookup("e300") is codes.lookup("unknown-name") is codes.BY_CODE["E300"]
    assert codes.lookup("E3000") is None
    assert codes.suggest("unknwn-name") == "did you mean `unknown-name`?"


def test_did_you_mean_offers_a_typo_fix_but_not_a_short_name_sharing_a_few_letters():
    known = ["red", "purge", "noise", "card"]
    assert did_you_mean("purged", known) == "did you mean `purge`?"
    assert did_you_mean("nosie", known) == "did you mean `noise`?"
    assert did_you_mean("crad", known) == "did you mean `card`?"
    assert did_you_mean("purged", ["red", "blue"]) == ""  # issue #38: `red` was offered


def test_docs_lint_md_is_fresh():
    generated = load_generator().render()
    on_disk = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    assert on_disk == generated, "docs/lint.md is stale: run python tools/gen_lint_docs.py"


def test_docs_lint_md_has_a_heading_for_every_code():
    text = (ROOT / "docs" / "lint.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### ([EW]\d{3}) ([a-z-]+)$", text, re.M)
    assert headings == sorted(((c.code, c.name) for c in codes.CODES), key=lambda h: h[0][1:])


def test_pre_commit_hook():
    hooks = {h["id"]: h for h in YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["nemesis-fmt"]["entry"] == "nemesis fmt --check"
    hook = hooks["nemesis-lint"]
    assert hook["language"] == "python"
    assert hook["entry"] == "nemesis-lint"
    pattern = re.compile(hook["files"])
    assert all(pattern.search(p) for p in ["a/rules.nem", "a/module.yaml", "b.yml"])
    assert not pattern.search("README.md")


def test_every_code_the_checker_emits_is_registered():
    """A code literal anywhere in the package (outside lint/) must be in the registry."""
    used = set()
    for path in (ROOT / "nemesis_rules").rglob("*.py"):
        if "lint" not in path.parts:
            used |= set(re.findall(r"""["']([EW]\d{3})["']""", path.read_text(encoding="utf-8")))
    assert used - set(codes.BY_CODE) <= {"E000"}  # E000: RulesError from a bare string

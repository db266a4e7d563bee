"""Where the grammar, the shipped rulesets and the describer's phrases are, in a source tree or an installed package."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    installed = _PACKAGE / name  # a wheel maps the top-level folder into the package
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name  # a source checkout or an editable install


def grammar_file() -> Path:
    return _find("grammar") / "nemesis.lark"


def grammar_tables_file() -> Path:
    """The grammar's parser tables, made by tools/gen_grammar_tables.py (dsl/parse.py `parser`)."""
    return _find("grammar") / "nemesis.tables"


def rulesets_dir() -> Path:
    return _find("rulesets")


def phrases_dir() -> Path:
    return _PACKAGE / "phrases"

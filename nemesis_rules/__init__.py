"""nemesis-rules: the rules of the Nemesis board-game family as data, run by a generic engine.

The names below are imported on first use (PEP 562), so a tool that needs only part of the
package (`nemesis-lint`) does not load the engine's play and save code."""

from typing import TYPE_CHECKING

from nemesis_rules.version import __version__

if TYPE_CHECKING:  # what type checkers and editors see; at run time, __getattr__ below
    from nemesis_rules.api import Decision, Game, Option, Ruleset, load_ruleset
    from nemesis_rules.dsl.diagnostics import Diagnostic, IllegalMoveError, RefusedError, RulesError

__all__ = [
    "Decision",
    "Diagnostic",
    "Game",
    "IllegalMoveError",
    "Option",
    "RefusedError",
    "RulesError",
    "Ruleset",
    "__version__",
    "load_ruleset",
]

_FROM = {
    "Decision": "nemesis_rules.api",
    "Game": "nemesis_rules.api",
    "Option": "nemesis_rules.api",
    "Ruleset": "nemesis_rules.api",
    "load_ruleset": "nemesis_rules.api",
    "Diagnostic": "nemesis_rules.dsl.diagnostics",
    "IllegalMoveError": "nemesis_rules.dsl.diagnostics",
    "RefusedError": "nemesis_rules.dsl.diagnostics",
    "RulesError": "nemesis_rules.dsl.diagnostics",
}


def __getattr__(name: str):
    if name in _FROM:
        import importlib

        value = getattr(importlib.import_module(_FROM[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

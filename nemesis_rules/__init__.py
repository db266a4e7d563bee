"""nemesis-rules: the rules of the Nemesis board-game family as data, run by a generic engine."""

from nemesis_rules.api import Decision, Game, Option, Ruleset, load_ruleset
from nemesis_rules.dsl.diagnostics import Diagnostic, IllegalMoveError, RulesError
from nemesis_rules.version import __version__

__all__ = [
    "Decision",
    "Diagnostic",
    "Game",
    "IllegalMoveError",
    "Option",
    "RulesError",
    "Ruleset",
    "__version__",
    "load_ruleset",
]

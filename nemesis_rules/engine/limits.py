"""Resource limits a module's data and scripts run under (docs/limits.md lists them).

A shared mod must not hang or exhaust the machine, so sizes are bounded where values are made,
and work that one step can hide (long lists and strings, comprehensions, function calls) is
counted on top of the step budget. The numbers sit far above anything a real ruleset does.
"""

from __future__ import annotations

MAX_INT = 2**63 - 1  # a script's integers stay within -MAX_INT..MAX_INT
MAX_LENGTH = 100_000  # items of a list, characters of a string made by a script
MAX_RANGE = 100_000  # items of one range()
MAX_WORK = 2_000_000  # list items and characters made, comprehension items, function calls per run
MAX_CHANCE_OUTCOMES = 10_000  # a chance node lists at most this many outcomes
MAX_MADE = 1_000_000  # entities a game may make in play
MAX_COMPONENT_COUNT = 10_000  # copies of one component
MAX_COMPONENTS = 100_000  # entities a game starts with
MAX_PLAYERS = 64  # players.max
MAX_FILE_BYTES = 4_000_000  # one module file
MAX_SAVE_BYTES = 64_000_000  # one save file (far above a finished game's save)
MAX_TEMPLATE_FIELDS = 100  # `{name}` fields of one message template
MAX_FIELD_TEXT = 2_000  # characters one filled field adds to a message text
MAX_YAML_NODES = 1_000_000  # nodes of one YAML file with its aliases expanded
MAX_YAML_CHARS = 20_000_000  # characters of its keys and scalars with aliases expanded (5 files' worth)
MAX_NESTING = 64  # expressions and statements nested in a script (brackets, signs, blocks)

# The work done since the interpreter last started to run: one shared counter, reset by every
# entry into script code (a run, a function called from outside), checked only where work is big.
work = [0]


class LimitError(Exception):
    """A script went past a resource limit (the interpreter adds file and line)."""


def charge(units: int) -> None:
    work[0] += units
    if work[0] > MAX_WORK:
        work[0] = 0
        raise LimitError(f"more than {MAX_WORK:,} units of work without a decision (long lists or "
                         "strings, big comprehensions or many function calls: an endless computation?)")


def check_int(value: int) -> int:
    if -MAX_INT <= value <= MAX_INT:
        return value
    raise LimitError(f"an integer beyond the limit of ±{MAX_INT} (2**63 - 1)")


def check_length(value):
    n = len(value)
    if n > MAX_LENGTH:
        raise LimitError(f"a {'string' if isinstance(value, str) else 'list'} longer than {MAX_LENGTH:,}")
    if n > 64:
        charge(n)
    return value

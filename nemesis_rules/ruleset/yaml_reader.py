"""YAML with positions, read by libyaml where it is safe to.

ruamel's round-trip loader gives every mapping and sequence its line and column (`.lc`), which
the diagnostics point with; its pure-Python scanner is also most of a cold load's time. The same
round-trip constructor over ruamel's C parser (the `ruamel.yaml.clib` extension) builds equal
documents, positions included, several times faster. Two cases keep the pure parser:

* a text that is not valid YAML: the pure parser's errors are the ones the diagnostics
  interpret (`load.py _parse_yaml`), so the C parser's error only sends the text there;
* a text whose nesting could go deeper than the C parser's recursion can take (it has no depth
  check and would crash the process, not raise): every level of nesting needs one of `[{-?:`,
  so a text with few of those cannot go deep.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import ReusedAnchorWarning, YAMLError
from ruamel.yaml.resolver import VersionedResolver

try:
    from _ruamel_yaml import CParser
except ImportError:  # no compiled extension for this Python: the pure parser does it all
    CParser = None

# At most this many characters that can open a level of nesting: far below the depth at which the
# C parser overflows an 8 MiB stack (measured: 20,000 levels read, 40,000 crash), far above our
# largest file (~1,500).
MAX_NESTING_MARKS = 5_000
NESTING_MARKS = "[{-?:"


def load_positioned(text: str) -> Any:
    """The document as ruamel's round-trip loader reads it (CommentedMap/CommentedSeq with `.lc`).

    Raises:
        YAMLError: the text is not valid YAML (raised by the pure parser, with its message).
    """
    # YAML lets an anchor be defined again (an alias names the latest): ruamel's Python warning
    # about it would reach the user's terminal as a library's chatter, so it is not raised
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReusedAnchorWarning)
        if CParser is not None and _shallow(text):
            try:
                return _CLoader(text).document()
            except YAMLError:
                pass  # the pure parser says what is wrong, as the diagnostics expect
        return YAML(typ="rt", pure=True).load(io.StringIO(text))


def _shallow(text: str) -> bool:
    return sum(map(text.count, NESTING_MARKS)) <= MAX_NESTING_MARKS


if CParser is not None:
    class _CLoader(CParser, RoundTripConstructor, VersionedResolver):
        """ruamel's C parser and composer, with the round-trip constructor and resolver (what
        `YAML(typ="rt")` would combine if it offered a compiled parser)."""

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            self._parser = self._composer = self
            RoundTripConstructor.__init__(self, loader=self)
            VersionedResolver.__init__(self, version=None, loadumper=self)
            self.allow_duplicate_keys = False  # as YAML(typ="rt"): a repeated key is an error
            self.comment_handling = None  # the C parser keeps no comments

        def document(self) -> Any:
            try:
                return self.get_single_data()
            finally:
                self.dispose()

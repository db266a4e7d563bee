"""Message templates of the catalogs: `{name}` fields, and `{name|key=text|...|text}` fields that
pick a text by the argument's value, so that a catalog, not Python, decides a language's
singular and plural (`{n|1=point|points}`) or article (`{what|owl=An|A}`). The engine fills
nothing else (lint E603)."""

from __future__ import annotations

import re
from typing import Any

# `{{`, `}}`, or a field: its name, then its choices (`|key,key=text` ... `|text`), if any
FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)((?:\|[^{}|]*)*)\}")
KEYED_CHOICE = re.compile(r"[A-Za-z0-9_]+(?:,[A-Za-z0-9_]+)*=[^{}|]*")


def choice_key(value: Any) -> str:
    """How a choice names a value: a number as written, true/false, an entity by its component
    (`bite#2` is `bite`)."""
    if isinstance(value, bool):
        return str(value).lower()
    return str(value).partition("#")[0]


def choose_text(value: Any, choices: str) -> str:
    """The text of `|key=text|...|text` whose keys name `value`, else the last one."""
    *keyed, default = choices[1:].split("|")
    key = choice_key(value)
    for choice in keyed:
        keys, _, text = choice.partition("=")
        if key in keys.split(","):
            return text
    return default


def bad_choices(choices: str) -> bool:
    """Whether a field's choices break the form: each but the last is `keys=text`."""
    return not all(KEYED_CHOICE.fullmatch(c) for c in choices[1:].split("|")[:-1])

"""Output formats of nemesis-lint: text, json, sarif and github.

Each formatter takes the findings (already filtered and sorted) and the source texts, and
returns the whole output as one string.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import PurePath

from nemesis_rules.dsl.diagnostics import Diagnostic
from nemesis_rules.lint.codes import BY_CODE, CODES, LintCode

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

Sources = dict[str, str]


def printable(text: str) -> str:
    """The text with control characters (escape sequences too) shown as U+FFFD."""
    return _CONTROL.sub("\ufffd", text)


def severity_of(diagnostic: Diagnostic) -> str:
    """`warning` or `error` (anything that is not a warning counts as an error)."""
    return "warning" if diagnostic.severity == "warning" else "error"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# ---- text ----


def summary_line(findings: Sequence[Diagnostic]) -> str:
    if not findings:
        return "All checks passed!"
    warnings = sum(severity_of(d) == "warning" for d in findings)
    errors = len(findings) - warnings
    return f"Found {_plural(errors, 'error')}, {_plural(warnings, 'warning')}."


def format_text(findings: Sequence[Diagnostic], sources: Sources, version: str = "") -> str:
    blocks = [d.render(sources.get(d.span.file)) for d in findings]
    return printable("\n\n".join([*blocks, summary_line(findings)])) + "\n"


def format_concise(findings: Sequence[Diagnostic], sources: Sources, version: str = "") -> str:
    """One line a finding (`path:line:col: CODE message`), then the summary."""
    return printable("\n".join([*(d.concise() for d in findings), summary_line(findings)])) + "\n"


def format_statistics(findings: Sequence[Diagnostic]) -> str:
    """One line a code, most frequent first: count, code, name."""
    counts = Counter(d.code for d in findings)
    width = len(str(max(counts.values(), default=0)))
    lines = [
        f"{n:>{width}}  {code}  {_rule_of(code).name}"
        for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return "\n".join([*lines, summary_line(findings)]) + "\n"


# ---- json ----


def format_json(findings: Sequence[Diagnostic], sources: Sources, version: str = "") -> str:
    rows = [{**d.to_dict(), "severity": severity_of(d)} for d in findings]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


# ---- sarif ----


def _rule_of(code: str) -> LintCode:
    known = BY_CODE.get(code)
    return known or LintCode(code, "unregistered-code", "error", f"## What it does\n{code}.")


def _sarif_rule(rule: LintCode) -> dict[str, object]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "defaultConfiguration": {"level": rule.severity},
        "properties": {"tags": [rule.family]},
    }


def _artifact_uri(path: str) -> str:
    pure = PurePath(path)
    return pure.as_uri() if pure.is_absolute() else pure.as_posix()


def _sarif_region(d: Diagnostic) -> dict[str, int]:
    s = d.span
    line, column = max(s.line, 1), max(s.column, 1)
    end_line = max(s.end_line, line)
    end_column = max(s.end_column, column + 1) if end_line == line else max(s.end_column, 1)
    return {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}


def _sarif_result(d: Diagnostic, index: dict[str, int]) -> dict[str, object]:
    text = d.message + (f"\nhelp: {d.help}" if d.help else "")
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": _artifact_uri(d.span.file)},
            "region": _sarif_region(d),
        }
    }
    return {
        "ruleId": d.code,
        "ruleIndex": index[d.code],
        "level": severity_of(d),
        "message": {"text": text},
        "locations": [location],
    }


def format_sarif(findings: Sequence[Diagnostic], sources: Sources, version: str = "") -> str:
    rules = list(CODES) + [_rule_of(c) for c in sorted({d.code for d in findings} - set(BY_CODE))]
    index = {rule.code: i for i, rule in enumerate(rules)}
    driver = {
        "name": "nemesis-lint",
        "version": version or "unknown",
        "rules": [_sarif_rule(rule) for rule in rules],
    }
    run = {"tool": {"driver": driver}, "results": [_sarif_result(d, index) for d in findings]}
    log = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


# ---- github ----


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_line(d: Diagnostic) -> str:
    s = d.span
    props = {
        "file": s.file, "line": s.line, "col": s.column,
        "endLine": s.end_line, "endColumn": s.end_column, "title": d.code,
    }
    fields = ",".join(f"{key}={_escape_property(str(value))}" for key, value in props.items())
    return f"::{severity_of(d)} {fields}::{_escape_data(d.message)}"


def format_github(findings: Sequence[Diagnostic], sources: Sources, version: str = "") -> str:
    return "".join(printable(_github_line(d)) + "\n" for d in findings)


Formatter = Callable[[Sequence[Diagnostic], Sources, str], str]

FORMATTERS: dict[str, Formatter] = {
    "text": format_text,
    "concise": format_concise,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
}

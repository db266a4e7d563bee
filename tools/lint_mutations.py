"""Mutation test of nemesis-lint: apply single faults to copies of a module, count those caught.

Each mutant is a copy of the module with one automatic fault (misspelt reference, deleted
field, value of the wrong type, duplicated id, dropped translation, broken indentation,
truncated file, stray token, misspelt symbol in a record's props). A mutant is caught when the linter reports a finding that
matches the fault's expectation (usually: an error or warning on the faulty line).

Usage:
    python tools/lint_mutations.py [MODULE] [--count 500] [--seed 1] [--show-misses 20]

Exit status 0 when the share caught reaches --bar (default 0.95), else 1.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nemesis_rules.dsl.diagnostics import Diagnostic  # noqa: E402
from nemesis_rules.lint import runner  # noqa: E402

KEYWORDS = set(
    "proc fn modifier event on before after instead of action cost when phase step extend "
    "remove replace with let return pass break continue emit if elif else for in repeat while "
    "match case not and or true false none".split()
)
_NAME = re.compile(r"\b[a-z_][a-z0-9_]{3,}\b")
_YAML_REF = re.compile(r"^(\s*-?\s*(?:kind|zone|per|entry)\s*:\s*)([a-z_][a-z0-9_]*)\s*(#.*)?$")
_YAML_INT = re.compile(r"^(\s*-?\s*[a-z_]+\s*:\s*)(\d+)\s*(#.*)?$")
_YAML_FIELD = re.compile(r"^\s+[a-z_]+\s*:")
_YAML_ID = re.compile(r"^(\s*)- id\s*:")
_I18N_KEY = re.compile(r"^\s+([a-z_][a-z0-9_.]*)\s*:")


@dataclass
class Mutant:
    kind: str
    file: str  # relative to the module folder
    text: str  # the new text of the file
    line: int  # the line a finding should point at
    accept: Callable[[Diagnostic, str, int], bool]  # (finding, its relative file, line)


def on_line(slack: int = 0) -> Callable[[Diagnostic, str, int], bool]:
    def accept(d: Diagnostic, file: str, line: int) -> bool:
        return abs(d.span.line - line) <= slack
    return accept


def anywhere(d: Diagnostic, file: str, line: int) -> bool:
    return True


def mentions(word: str) -> Callable[[Diagnostic, str, int], bool]:
    return lambda d, file, line: word in d.message or word in d.help


def _misspell(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word) - 1)
    swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return swapped if swapped != word else word[:i] + word[i + 1:]


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _pick(rng: random.Random, lines: list[str], pattern: re.Pattern[str]) -> int | None:
    hits = [i for i, line in enumerate(lines) if pattern.search(line) and not line.lstrip().startswith("#")]
    return rng.choice(hits) if hits else None


# ---- mutators: (rng, relative file, text) -> Mutant | None ----


def misspell_reference(rng, file, text):
    lines = _lines(text)
    if file.endswith(".nem"):
        i = _pick(rng, lines, _NAME)
        if i is None:
            return None
        code = lines[i].split("#")[0]
        words = [m for m in _NAME.finditer(code) if m.group() not in KEYWORDS]
        if not words:
            return None
        m = rng.choice(words)
        lines[i] = code[: m.start()] + _misspell(m.group(), rng) + lines[i][m.end():]
    else:
        i = _pick(rng, lines, _YAML_REF)
        if i is None:
            return None
        m = _YAML_REF.match(lines[i])
        lines[i] = m.group(1) + _misspell(m.group(2), rng)
    return Mutant("misspell a reference", file, "\n".join(lines), i + 1, on_line())


def delete_field(rng, file, text):
    lines = _lines(text)
    if not file.endswith(".yaml") or "i18n/" in file:
        return None
    i = _pick(rng, lines, re.compile(r"^\s*-?\s*(id|kind)\s*:"))
    if i is None:
        return None
    start = next((j for j in range(i, -1, -1) if lines[j].lstrip().startswith("- ")), i)
    end = next((j for j in range(i + 1, len(lines)) if lines[j].lstrip().startswith("- ")), len(lines))
    if lines[i].lstrip().startswith("- "):  # `- id: x` then `  kind: k`: keep `- kind: k`
        if i + 1 >= end or not _YAML_FIELD.match(lines[i + 1]):
            return None
        lines[i] = lines[i][: lines[i].index("- ") + 2] + lines[i + 1].strip()
        i += 1
    del lines[i]
    record = range(start + 1, end + 1)
    return Mutant("delete a required field", file, "\n".join(lines), start + 1,
                  lambda d, f, line: d.span.line in record)


def change_type(rng, file, text):
    lines = _lines(text)
    if not file.endswith(".yaml") or "i18n/" in file:
        return None
    i = _pick(rng, lines, _YAML_INT)
    if i is None:
        return None
    m = _YAML_INT.match(lines[i])
    lines[i] = m.group(1) + rng.choice(["many", "[1, 2]", "{a: 1}", "true"])
    return Mutant("change a value's type", file, "\n".join(lines), i + 1, on_line())


def duplicate_id(rng, file, text):
    lines = _lines(text)
    i = _pick(rng, lines, _YAML_ID)
    if i is None or "i18n/" in file:
        return None
    indent = len(_YAML_ID.match(lines[i]).group(1))
    end = next((j for j in range(i + 1, len(lines))
                if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) <= indent), len(lines))
    copy = lines[i:end]
    lines[end:end] = copy
    return Mutant("duplicate an id", file, "\n".join(lines), end + 1,
                  lambda d, f, line: d.span.line in (i + 1, end + 1))


def drop_translation(rng, file, text):
    if "i18n/" not in file:
        return None
    lines = _lines(text)
    i = _pick(rng, lines, _I18N_KEY)
    if i is None:
        return None
    key = _I18N_KEY.match(lines[i]).group(1)
    del lines[i]
    return Mutant("drop a translation", file, "\n".join(lines), i + 1, mentions(key))


def break_indentation(rng, file, text):
    lines = _lines(text)
    pattern = re.compile(r"^ {8,}\S") if file.endswith(".nem") else re.compile(r"^ {4,}[a-z_]+:")
    i = _pick(rng, lines, pattern)
    if i is None:
        return None
    lines[i] = lines[i][rng.choice([1, 2, 3]):]
    return Mutant("break indentation", file, "\n".join(lines), i + 1, on_line(slack=1))


def truncate(rng, file, text):
    if len(text) < 40:
        return None
    cut = rng.randrange(len(text) // 4, len(text) - 1)
    line = text.count("\n", 0, cut) + 1
    return Mutant("truncate a file", file, text[:cut], line, anywhere)  # often valid: any finding


def stray_token(rng, file, text):
    lines = _lines(text)
    if file.endswith(".nem"):
        i = _pick(rng, lines, re.compile(r"^\s+\S"))
        if i is None:
            return None
        code = lines[i].split("#")[0].rstrip()
        if '"' in code:  # keep the token out of string literals, where it is no fault
            code = code[: code.index('"')].rstrip() or code
        at = rng.randrange(len(code) - len(code.lstrip()), len(code) + 1)
        lines[i] = code[:at] + rng.choice([")", "$", "]", " : ", ",", " = ="]) + code[at:]
    else:  # YAML accepts most characters inside a scalar: use tokens that break the syntax
        i = _pick(rng, lines, _YAML_FIELD)
        if i is None:
            return None
        key, _, value = lines[i].partition(":")
        value = value.split(" #")[0]  # a token inside a comment is no fault
        lines[i] = rng.choice([f"{key}:{value.rstrip()}: x: y", f'{key}: "{value.strip()}'])
    return Mutant("insert a stray token", file, "\n".join(lines), i + 1, on_line())


_PROP_SYMBOL = re.compile(r"(?<![a-z0-9_])([a-z][a-z0-9_]{3,})(?=\s*[,\]}])")  # a value (not a key) in a flow mapping


def misspell_prop_symbol(rng, file, text):
    """A symbol among a record's props misspelt (`movers: [adult, breder]`): caught by its prop's type."""
    lines = _lines(text)
    if not file.endswith(".yaml") or "i18n/" in file:
        return None
    i = _pick(rng, lines, re.compile(r"props: \{.*[a-z]{4,}\s*[,\]}]"))
    if i is None:
        return None
    code = lines[i].split(" #")[0]
    start = code.index("props: {")
    words = [m for m in _PROP_SYMBOL.finditer(code, start) if m.group() not in ("true", "false", "null")]
    if not words:
        return None
    m = rng.choice(words)
    lines[i] = code[: m.start()] + _misspell(m.group(), rng) + lines[i][m.end():]
    return Mutant("misspell a prop's symbol", file, "\n".join(lines), i + 1, on_line())


MUTATORS = [misspell_reference, delete_field, change_type, duplicate_id, drop_translation,
            break_indentation, truncate, stray_token, misspell_prop_symbol]


def make_mutants(module: Path, count: int, seed: int) -> list[Mutant]:
    rng = random.Random(seed)
    files = sorted(p for p in module.rglob("*") if p.suffix in (".nem", ".yaml") and p.is_file())
    texts = {p.relative_to(module).as_posix(): p.read_text(encoding="utf-8") for p in files}
    mutants: list[Mutant] = []
    for _ in range(count * 50):
        if len(mutants) >= count:
            break
        mutator = rng.choice(MUTATORS)
        file = rng.choice(sorted(texts))
        mutant = mutator(rng, file, texts[file])
        if mutant is not None and mutant.text != texts[file]:
            mutants.append(mutant)
    return mutants


def _key(d: Diagnostic, folder: Path) -> tuple[str, str, str]:
    return d.code, _relative(d.span.file, folder), d.message


def caught(mutant: Mutant, module: Path, work: Path, known: frozenset = frozenset()) -> bool:
    copy = work / module.name
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(module, copy)
    (copy / mutant.file).write_text(mutant.text, encoding="utf-8")
    findings, _ = runner.lint_paths([copy])
    for d in findings:
        relative = _relative(d.span.file, copy)
        if _key(d, copy) in known:
            continue  # the module had this finding before the fault: it does not catch it
        if d.code != "E999" and mutant.accept(d, relative, mutant.line):
            return True
    return False


def _relative(path: str, folder: Path) -> str:
    try:
        return Path(path).resolve().relative_to(folder.resolve()).as_posix()
    except ValueError:
        return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", nargs="?", type=Path, default=ROOT / "rulesets" / "base")
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bar", type=float, default=0.95)
    parser.add_argument("--show-misses", type=int, default=10)
    args = parser.parse_args(argv)
    baseline, _ = runner.lint_paths([args.module])
    known = frozenset(_key(d, args.module) for d in baseline)
    if baseline:
        print(f"{args.module} has {len(baseline)} findings of its own; only new findings count")
    mutants = make_mutants(args.module, args.count, args.seed)
    totals, hits, misses = Counter(), Counter(), []
    with tempfile.TemporaryDirectory() as work:
        for mutant in mutants:
            totals[mutant.kind] += 1
            if caught(mutant, args.module, Path(work), known):
                hits[mutant.kind] += 1
            else:
                misses.append(mutant)
    for kind in totals:
        print(f"{kind:24} {hits[kind]:4} / {totals[kind]:4}")
    share = sum(hits.values()) / max(len(mutants), 1)
    print(f"caught {sum(hits.values())} of {len(mutants)} mutants: {share:.1%}")
    for m in misses[: args.show_misses]:
        print(f"  missed: {m.kind} in {m.file}:{m.line}: {_lines(m.text)[m.line - 1][:80]!r}"
              if m.line <= len(_lines(m.text)) else f"  missed: {m.kind} in {m.file}:{m.line}")
    return 0 if share >= args.bar else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""What a run is about: the modules named on the command line, by path or by module id.

Findings in those modules are shown. Findings in the modules they require (dependencies) are
counted in one line unless `--dependencies`: a modder linting their module has no use for a page
of base's findings. Missing translations (W600) are counted the same way unless `--translations`
or `--select` asks for codes: they are a translator's work list, not a fault in the rules.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from nemesis_rules.dsl.diagnostics import Diagnostic
from nemesis_rules.lint.formats import severity_of
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.ruleset.compose import MODULE_ID, resolve_folder

MISSING_TRANSLATION = "W600"


def resolve(argument: str) -> Path:
    """A command-line PATH: an existing path as given, else a module id under rulesets/ as the
    other commands resolve it (`nemesis-lint base`), else the path (reported as unreadable)."""
    path = Path(argument)
    if path.exists() or not MODULE_ID.fullmatch(argument):
        return path
    folder = resolve_folder(argument, [rulesets_dir()])
    return _relative_to_cwd(folder) if folder is not None else path


def _relative_to_cwd(path: Path) -> Path:
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


@attrs.frozen
class Shown:
    """The findings to print, and those only counted: in dependencies, and missing translations."""

    findings: list[Diagnostic]
    in_dependencies: list[Diagnostic]
    translations: list[Diagnostic]

    def errors_not_shown(self) -> int:
        return sum(severity_of(d) == "error" for d in self.in_dependencies)

    def notes(self) -> list[str]:
        """One line for each group of findings not shown, naming the flag that shows it."""
        notes = []
        if self.in_dependencies:
            notes.append(f"{_count(self.in_dependencies, 'finding')} in dependencies not shown: "
                         f"{_by_module(self.in_dependencies)}; --dependencies shows them")
        if self.translations:
            notes.append(f"{_count(self.translations, 'missing translation')} (W600) not shown: "
                         f"{_by_module(self.translations)}; --translations shows them")
        return notes


def split(findings: Sequence[Diagnostic], named: Sequence[Path], dependencies: bool,
          translations: bool) -> Shown:
    """`findings` sorted into those shown and those only counted (see the module's doc)."""
    roots = [p.resolve() for p in named]
    shown, elsewhere, untranslated = [], [], []
    for d in findings:
        if not dependencies and _in_another_module(d.span.file, roots):
            elsewhere.append(d)
        elif not translations and d.code == MISSING_TRANSLATION:
            untranslated.append(d)
        else:
            shown.append(d)
    return Shown(shown, elsewhere, untranslated)


def _in_another_module(file: str, roots: Iterable[Path]) -> bool:
    """Whether `file` lies in a module folder outside every named path (a dependency's file)."""
    path = Path(file).resolve()
    if any(path == root or path.is_relative_to(root) for root in roots):
        return False
    return _module_folder(path.parent) is not None


def _count(findings: Sequence[Diagnostic], word: str) -> str:
    return f"{len(findings)} {word}{'' if len(findings) == 1 else 's'}"


def _by_module(findings: Iterable[Diagnostic]) -> str:
    counts = Counter(_module_of(d.span.file) for d in findings)
    return ", ".join(f"{module} ({n})" for module, n in sorted(counts.items()))


def _module_of(file: str) -> str:
    parent = Path(file).resolve().parent
    folder = _module_folder(parent) or parent
    return folder.name or str(folder)


@functools.cache
def _module_folder(folder: Path) -> Path | None:
    """The module folder holding `folder` (the nearest with a module.yaml), or None."""
    return next((c for c in [folder, *folder.parents] if (c / "module.yaml").is_file()), None)

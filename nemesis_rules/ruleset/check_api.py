"""Checking files and module folders without compiling them: what `nemesis-lint` runs.

`check_paths(paths)` checks every module folder named or found under `paths` (following
`requires`), and returns every diagnostic of every stage plus the source text of each file (keyed
by the path used in the diagnostics' spans) for caret excerpts. A single file is checked as part
of its module, and only its own findings are kept.
"""

from __future__ import annotations

from pathlib import Path

from nemesis_rules.dsl.diagnostics import Diagnostic, RulesError, Span
from nemesis_rules.dsl.parse import parse_module
from nemesis_rules.engine.compile import build_program
from nemesis_rules.paths import rulesets_dir
from nemesis_rules.ruleset import parse_cache
from nemesis_rules.ruleset.cache import collector_paused
from nemesis_rules.ruleset.compose import compose
from nemesis_rules.ruleset.load import SECTION_SHAPE, load_manifest, read_text, read_yaml
from nemesis_rules.ruleset.validate import validate


def _module_folder(path: Path) -> Path | None:
    for folder in [path.parent, *path.parent.parents]:
        if (folder / "module.yaml").is_file():
            return folder
    return None


def _display(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _targets(paths: list[Path], root: Path) -> tuple[list[Path], set[str] | None, list[Diagnostic], list[Path]]:
    """Module folders to check, the files to keep findings for (None: all), problems, loose files."""
    folders: list[Path] = []
    keep: set[str] = set()
    keep_all = False
    problems: list[Diagnostic] = []
    loose: list[Path] = []
    for p in paths:
        shown = _display(p, root)
        if p.is_dir():
            keep_all = True
            if (p / "module.yaml").is_file():
                folders.append(p)
                continue
            found = sorted(d for d in p.rglob("module.yaml"))
            if not found:
                problems.append(Diagnostic("E104", "no module folder (one with module.yaml) here",
                                           Span(shown, 1, 1, 1, 2), help="name a module folder or a file in one"))
            folders += [f.parent for f in found]
        elif p.is_file():
            folder = _module_folder(p)
            if folder is None:
                loose.append(p)
            else:
                folders.append(folder)
                keep.add(shown)
        else:
            problems.append(Diagnostic("E104", "no such file or folder", Span(shown, 1, 1, 1, 2)))
    return folders, (None if keep_all else keep), problems, loose


def check_paths(paths: list[Path]) -> tuple[list[Diagnostic], dict[str, str]]:
    with collector_paused():
        return _check_paths(paths)


def _check_paths(paths: list[Path]) -> tuple[list[Diagnostic], dict[str, str]]:
    root = Path.cwd()
    folders, keep, diagnostics, loose = _targets([Path(p) for p in paths], root)
    sources: dict[str, str] = {}
    seen: set[Path] = set()
    loaded: dict = {}  # modules shared by several compositions are read and parsed once
    for folder in folders:
        key = folder.resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            comp = compose([folder], display_root=root, cache=loaded)
            library = None
            if comp.entry is None:
                comp, library = _with_a_user(folder, comp, root, loaded, folders)
            validate(comp, library)
            _compiles(comp, key.as_posix())
            if library is not None:  # only the findings in the library's own files are its own
                mine = _display(folder, root) + "/"
                comp.diagnostics = [d for d in comp.diagnostics if d.span.file.startswith(mine)]
        except Exception as err:  # a bug of ours is still reported as a finding, not a traceback
            shown = _display(folder, root)
            diagnostics.append(Diagnostic("E999", f"internal error while checking: {type(err).__name__}: {err}",
                                          Span(shown, 1, 1, 1, 2), help="please report this"))
            continue
        diagnostics += _without_follow_ons(comp.diagnostics)
        sources.update(comp.sources)
    for path in loose:
        diagnostics += _check_loose(path, _display(path, root), sources)
    if keep is not None and folders:
        keep_files = keep | {d.span.file for d in diagnostics if d.code == "E104"}
        diagnostics = [d for d in diagnostics if d.span.file in keep_files]
    return _unique(diagnostics), sources


def _with_a_user(folder: Path, comp, root: Path, loaded: dict, named: list[Path]):
    """A library module (no entry: shared rules, an expansion for several games) is checked in the
    composition of a module that requires it and has an entry: (that composition, the library's
    id). With no such module it is checked alone: (its own composition, None).

    Users are looked for only among the folders named to the linter and, for a module shipped in
    rulesets/, the other shipped modules; a user's folder is composed only after its module.yaml
    alone shows it requires the library. Folders beside an arbitrary library are never read: a
    module from elsewhere (a download) must not make the linter load whatever lies next to it."""
    lib = comp.modules[-1].id if comp.modules else None
    for candidate in _possible_users(folder, named):
        manifest = load_manifest(candidate)
        if manifest is None or lib not in manifest.requires:
            continue
        user = compose([candidate], display_root=root, cache=loaded)
        if user.entry is None:
            continue
        return user, lib
    return comp, None


def _possible_users(folder: Path, named: list[Path]) -> list[Path]:
    shipped = rulesets_dir().resolve()
    candidates = list(named)
    if folder.resolve().parent == shipped:
        candidates += sorted(p.parent for p in shipped.glob("*/module.yaml"))
    unique = {c.resolve(): c for c in candidates if c.resolve() != folder.resolve()}
    return list(unique.values())


def _compiles(comp, name: str) -> None:
    """What load_ruleset refuses, the linter must refuse too: build the program of a module that
    checks clean. With the parse cache on, Python's code for its expressions is compiled (or
    taken from the cache) and kept there for the next run and load; with the cache off nothing
    would keep it, so only what the build itself calls is compiled (`lazy`)."""
    if not any(d.is_error for d in comp.diagnostics):
        try:
            if parse_cache.on():
                parse_cache.compiled(name, lambda: build_program(comp, comp.players.max))
            else:
                build_program(comp, comp.players.max, lazy=True)
        except RulesError as err:
            comp.diagnostics += err.diagnostics


def _without_follow_ons(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """With a YAML section empty or misshapen (not loaded), only the reading and structuring
    findings (E1xx, E2xx): names and checks that depend on the section would be follow-ons."""
    if not any(d.code == "E202" and d.message.startswith(SECTION_SHAPE) for d in diagnostics):
        return diagnostics
    return [d for d in diagnostics if d.code[1:] < "300" or d.code == "E999"]


def _check_loose(path: Path, shown: str, sources: dict[str, str]) -> list[Diagnostic]:
    """A file outside any module: only its syntax can be checked."""
    if path.suffix == ".nem":
        text, diags = read_text(path, shown)
        if text is None:
            return diags
        sources[shown] = text
        return parse_module(text, shown)[1]
    if path.suffix in (".yaml", ".yml"):
        _, text, diags = read_yaml(path, shown)
        if text is not None:
            sources[shown] = text
        return diags
    return [Diagnostic("E104", "not a .nem or .yaml file", Span(shown, 1, 1, 1, 2))]


def _unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    seen = set()
    out = []
    for d in diagnostics:
        if d not in seen:
            seen.add(d)
            out.append(d)
    out.sort(key=lambda d: (d.span.file, d.span.line, d.span.column, d.code))
    return out

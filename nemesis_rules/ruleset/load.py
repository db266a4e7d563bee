"""Reading a module folder: YAML with positions (ruamel.yaml), records (cattrs), scripts (Lark).

Nothing here raises on bad input: every problem becomes a diagnostic with file, line, column.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.diagnostics import Diagnostic, Span, did_you_mean
from nemesis_rules.dsl.parse import parse_body, parse_module, parse_module_reusing
from nemesis_rules.dsl.template import FIELD
from nemesis_rules.engine import limits
from nemesis_rules.engine.limits import (
    MAX_FILE_BYTES,
    MAX_TEMPLATE_FIELDS,
    MAX_YAML_CHARS,
    MAX_YAML_NODES,
)
from nemesis_rules.paths import UnreadableFile, read_user_file
from nemesis_rules.ruleset import parse_cache
from nemesis_rules.ruleset.records import (
    Catalog,
    Component,
    ComponentFile,
    ComponentSpec,
    Manifest,
    Script,
)
from nemesis_rules.ruleset.yaml_reader import load_positioned

COMPONENT_FIELDS = {f.name for f in attrs.fields(ComponentSpec)}


@attrs.define
class Editing:
    """An editor's view of the files (the language server): unsaved buffers are read instead of
    the files, and each file's last parse is kept, so a change re-parses only what changed."""

    buffers: dict[Path, str] = attrs.Factory(dict)  # resolved path -> text
    parses: dict[tuple, tuple[str, Any]] = attrs.Factory(dict)  # (what, file, ...) -> (text, result)
    declarations: dict[str, dict] = attrs.Factory(dict)  # file -> its declarations' trees by text

    def parsed(self, key: tuple, text: str, parse: Callable[[], Any]) -> Any:
        kept = self.parses.get(key)
        if kept is None or kept[0] != text:
            kept = self.parses[key] = (text, parse())
        return kept[1]


_EDITING: contextvars.ContextVar[Editing | None] = contextvars.ContextVar("editing", default=None)


@contextlib.contextmanager
def editing(session: Editing) -> Iterator[Editing]:
    """Load modules as `session` sees them (see `Editing`) inside the `with` block."""
    token = _EDITING.set(session)
    try:
        yield session
    finally:
        _EDITING.reset(token)


def _memo(key: tuple, text: str, parse: Callable[[], Any]) -> Any:
    session = _EDITING.get()
    return parse_cache.cached(key, text, parse) if session is None else session.parsed(key, text, parse)


@attrs.define
class ModuleSource:
    """Everything read from one module folder, before composition."""

    path: Path
    manifest: Manifest | None = None
    manifest_span: Span = attrs.Factory(Span)
    manifest_raw: Any = None  # the YAML nodes, for the spans of its fields
    files: list[tuple[str, ComponentFile, Any]] = attrs.Factory(list)  # (file, record, raw yaml)
    components: list[Component] = attrs.Factory(list)
    scripts: list[ast.Module] = attrs.Factory(list)
    catalogs: dict[str, list[tuple[str, Catalog, Any]]] = attrs.Factory(dict)  # lang -> files
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    sources: dict[str, str] = attrs.Factory(dict)
    full: bool = False  # its components passed MAX_COMPONENTS entities: no more are read

    def manifest_at(self, *path: Any) -> Span:
        """Where a field of module.yaml is written (or the file's start)."""
        if self.manifest_raw is None:
            return self.manifest_span
        return yaml_span(self.manifest_raw, path, self.manifest_span.file)

    @property
    def id(self) -> str:
        return self.manifest.id if self.manifest else self.path.name


# ---- cattrs: strict scalars, errors mapped back to YAML positions ----
def _strict(kind: type) -> typing.Callable[[Any, type], Any]:
    def hook(value: Any, _: type) -> Any:
        if type(value) is bool and kind is not bool or not isinstance(value, kind):
            raise TypeError(f"expected {_type_name(kind)}, got {_describe(value)}")
        return kind(value) if kind is not str else str(value)

    return hook


def _is_scalar_union(t: Any) -> bool:
    return isinstance(t, types.UnionType | typing._UnionGenericAlias) and all(  # type: ignore[attr-defined]
        a in (int, str, bool, type(None)) for a in typing.get_args(t)
    )


def _scalar_union(value: Any, t: Any) -> Any:
    allowed = typing.get_args(t)
    if isinstance(value, int) and not isinstance(value, bool):
        value = int(value)
    ok = (value is None and type(None) in allowed) or any(
        type(value) is a for a in allowed if a is not type(None)
    )
    if not ok:
        names = " or ".join(_type_name(a) for a in allowed)
        raise TypeError(f"expected {names}, got {_describe(value)}")
    return str(value) if isinstance(value, str) else value


def _plain(value: Any, _: Any) -> Any:
    if isinstance(value, list):
        return tuple(_plain(v, None) for v in value)
    if isinstance(value, dict):
        return {str(k): _plain(v, None) for k, v in value.items()}
    if isinstance(value, str):
        return str(value)
    if value is None or isinstance(value, bool):
        return value if value is None else bool(value)
    if isinstance(value, int):
        return int(value)  # ruamel's ScalarInt and friends become plain ints
    raise TypeError(f"expected a number, a name, true/false or a list, got {_describe(value)}")


def _type_name(t: Any) -> str:
    return {int: "an integer", str: "a string", bool: "true or false", type(None): "nothing"}.get(
        t, getattr(t, "__name__", str(t))
    )


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"{type(value).__name__} {value!r}"


def _converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    for kind in (int, str, bool):
        conv.register_structure_hook(kind, _strict(kind))
    conv.register_structure_hook_func(_is_scalar_union, _scalar_union)
    conv.register_structure_hook(Any, _plain)
    return conv


CONVERTER = _converter()


def _error_paths(exc: BaseException, path: tuple) -> list[tuple[tuple, BaseException]]:
    if isinstance(exc, ClassValidationError | IterableValidationError):
        found = []
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            step = getattr(note, "name", getattr(note, "index", None))
            found += _error_paths(sub, (*path, step))
        for sub in without:
            found += _error_paths(sub, path)
        return found
    if isinstance(exc, BaseExceptionGroup):
        return [p for sub in exc.exceptions for p in _error_paths(sub, path)]
    return [(path, exc)]


def structure(raw: Any, cls: type, file: str, root: Any, base: tuple = ()) -> tuple[Any, list[Diagnostic]]:
    """`raw` as a `cls` record, or None and the diagnostics (with positions from `root`)."""
    if not isinstance(raw, dict):
        span = yaml_span(root, base, file)
        return None, [Diagnostic("E202", f"expected a mapping, got {_describe(raw)}", span)]
    bad_keys = _non_string_keys(raw, base)
    if bad_keys:
        return None, [Diagnostic("E202", f"a key must be a name, got {_describe(key)}", yaml_span(root, where, file))
                      for where, key in bad_keys]
    raw, misshapen = _without_misshapen_sections(raw, cls, file, root, base)
    try:
        return CONVERTER.structure(raw, cls), misshapen
    except Exception as exc:  # cattrs reports every field problem at once
        return None, misshapen + [_field_diagnostic(p, e, cls, file, root, base) for p, e in _error_paths(exc, ())]


SECTION_SHAPE = "section `"  # how a misshapen section's E202 begins (check_api drops its follow-ons)
# a record's field type -> what YAML gives for it, named, and how to write it
_SHAPES = {dict: (dict, "a mapping", "write `name: value` entries indented under it"),
           tuple: (list, "a list", "write `- item` lines under it, or `[a, b]`")}


def _without_misshapen_sections(raw: dict, cls: type, file: str, root: Any,
                                base: tuple) -> tuple[dict, list[Diagnostic]]:
    """`raw` without the sections (mapping or list fields of `cls`) that are empty or of another
    shape, and one E202 at each: the rest of the file still loads, and the author reads one
    clear finding instead of a Python message and the follow-ons of a whole file dropped."""
    found = {}
    for name, origin in _section_kinds(cls).items():
        yaml_type, shape, how = _SHAPES[origin]
        if name not in raw or isinstance(raw[name], yaml_type):
            continue
        found[name] = _misshapen(name, raw[name], origin, yaml_span(root, (*base, name), file, key=True))
    if not found:
        return raw, []
    return {k: v for k, v in raw.items() if k not in found}, list(found.values())


def _misshapen(name: str, value: Any, expected: type | None, span: Span) -> Diagnostic:
    """The E202 of section `name`, holding `value` where an `expected` (dict, tuple or unknown)
    belongs."""
    shape, how = _SHAPES[expected][1:] if expected in _SHAPES else ("something else", "see docs/language.md")
    what = "is empty" if value is None else f"must be {shape}, not {_describe(value)}"
    return Diagnostic("E202", f"{SECTION_SHAPE}{name}:` {what}", span, help=f"{how}, or delete the line")


@functools.cache
def _section_kinds(cls: type) -> dict[str, type]:
    """The fields of the record `cls` that hold a mapping (dict) or a list (tuple), by name."""
    if not attrs.has(cls):
        return {}
    hints = typing.get_type_hints(cls)
    origins = {f.name: typing.get_origin(hints[f.name]) for f in attrs.fields(cls)}
    return {name: origin for name, origin in origins.items() if origin in _SHAPES}


def _non_string_keys(value: Any, path: tuple) -> list[tuple[tuple, Any]]:
    found: list[tuple[tuple, Any]] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                found.append((path, k))
            else:
                found += _non_string_keys(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _non_string_keys(v, (*path, i))
    return found


def _field_diagnostic(path: tuple, exc: BaseException, cls: type, file: str, root: Any, base: tuple) -> Diagnostic:
    full = (*base, *path)
    if isinstance(exc, ForbiddenExtraKeysError):
        extra = sorted(map(str, exc.extra_fields or ()))[0] if exc.extra_fields else "?"
        known = [f.name for f in attrs.fields(exc.cl)] if attrs.has(exc.cl) else []
        hint = did_you_mean(extra, known) or f"known fields: {', '.join(known)}"
        return Diagnostic("E200", f"unknown field `{extra}`", yaml_span(root, (*full, extra), file, key=True), help=hint)
    if isinstance(exc, KeyError):
        field = str(exc.args[0]) if exc.args else "?"
        return Diagnostic("E201", f"missing field `{field}`", yaml_span(root, full[:-1] or full, file, key=True),
                          help=f"add `{field}:`")
    where = ".".join(str(p) for p in path) or "value"
    if isinstance(exc, TypeError | AttributeError) and not str(exc).startswith("expected "):
        return _nested_section(where, exc, file, root, full)  # Python's words, not our hooks'
    return Diagnostic("E202", f"wrong type for `{where}`: {exc}", yaml_span(root, full, file))


def _nested_section(where: str, exc: BaseException, file: str, root: Any, full: tuple) -> Diagnostic:
    """A section inside a record (`dice.d6:`, a kind's `props:`) empty or of another shape."""
    expected = dict if "items" in str(exc) else tuple if "iterable" in str(exc) else None
    return _misshapen(where, yaml_node(root, full), expected, yaml_span(root, full, file, key=True))


# ---- YAML with positions ----
def read_yaml(path: Path, file: str, root: Path | None = None) -> tuple[Any, str | None, list[Diagnostic]]:
    """The YAML document (ruamel round-trip nodes keep positions), its text, and diagnostics."""
    text, diags = read_text(path, file, root)
    if text is None:
        return None, None, diags
    raw, diags = _memo(("yaml", file), text, lambda: _parse_yaml(text, file))
    return raw, text, list(diags)


def _parse_yaml(text: str, file: str) -> tuple[Any, list[Diagnostic]]:
    try:
        doc = load_positioned(text)
        nodes, chars = _expanded_size(doc)
        if nodes > MAX_YAML_NODES or chars > MAX_YAML_CHARS:
            return None, [Diagnostic("E802", f"YAML aliases expand to more than {MAX_YAML_NODES:,} nodes or "
                                     f"{MAX_YAML_CHARS:,} characters", Span(file, 1, 1, 1, 2),
                                     help="write the data out, or use fewer aliases")]
        return doc, []
    except MarkedYAMLError as err:
        # an unclosed quote or bracket is found at the end of the file: point at where it opened
        opened = err.context_mark is not None and "end of stream" in str(err.problem or "")
        mark = err.context_mark if opened else (err.problem_mark or err.context_mark)
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        msg = (err.problem or err.context or "invalid YAML").strip()
        quote = _unclosed_quote(text, line)
        if quote is not None:
            return None, [Diagnostic("E103", "YAML: a quote opened here is not closed on its line",
                                     Span(file, quote[0], quote[1], quote[0], quote[1] + 1),
                                     help=f"close the quote (the parser then stopped at line {line}: {msg})")]
        return None, [Diagnostic("E103", f"YAML: {msg}", Span(file, line, col, line, col + 1),
                                 help="check indentation, colons and quotes")]
    except (YAMLError, ValueError, RecursionError, TypeError, AttributeError) as err:
        return None, [Diagnostic("E103", f"YAML: {type(err).__name__}: {str(err)[:200]}",
                                 Span(file, 1, 1, 1, 2))]


def _unclosed_quote(text: str, up_to: int) -> tuple[int, int] | None:
    """The first line (and column) up to `up_to` whose value opens a double quote it never closes.

    Quoted scalars may span lines in YAML, but in module files they never do: one that does is
    almost always a missing quote, and the parser reports it lines later."""
    for number, line in enumerate(text.splitlines()[:up_to], 1):
        body = re.sub(r'"([^"\\]|\\.)*"', "", line)
        body = re.sub(r"'[^']*'", "", body)
        if "#" in body:
            body = body[: body.index("#")]
        if '"' in body:
            return number, line.index('"') + 1
    return None


def read_text(path: Path, file: str, root: Path | None = None) -> tuple[str | None, list[Diagnostic]]:
    """A module file's text; only a regular file (inside `root`, the module folder, when given)
    of at most MAX_FILE_BYTES, checked before a byte is read."""
    span = Span(file, 1, 1, 1, 2)
    session = _EDITING.get()
    if session is not None and path.resolve() in session.buffers:
        return session.buffers[path.resolve()], []
    try:
        data = read_user_file(path, MAX_FILE_BYTES, root)
    except UnreadableFile as err:
        hint = {"E105": "copy the file into the module, or require the other module" if "link" in err.message else None,
                "E801": "split it into several files"}.get(err.code)
        return None, [Diagnostic(err.code, err.message, span, help=hint)]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        return None, [Diagnostic("E104", "not UTF-8 text", Span(file, line, 1, line, 2),
                                 help="save the file as UTF-8")]
    if "\x00" in text:
        return None, [Diagnostic("E104", "binary data (a NUL byte) in a text file", span)]
    return text, []


def _expanded_size(root: Any) -> tuple[int, int]:
    """How many nodes, and characters of keys and scalars, the document has with every alias
    expanded (shared nodes counted each time they are used), worked out once per distinct node,
    without recursion. A long text used by a thousand aliases counts a thousand times: whatever
    later copies or joins the data would pay for each."""
    size: dict[int, tuple[int, int]] = {}
    over = (10 * MAX_YAML_NODES, 10 * MAX_YAML_CHARS)
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not isinstance(node, dict | list) or (id(node) in size and not done):
            continue
        items = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        children = [c for c in items if isinstance(c, dict | list)]
        if done:
            nodes = 1 + len(node) + sum(size[id(c)][0] for c in children)
            chars = sum(_scalar_chars(c) for c in items) + sum(size[id(c)][1] for c in children)
            size[id(node)] = (min(nodes, over[0]), min(chars, over[1]))
        else:
            if len(stack) > MAX_YAML_NODES:
                return over
            size[id(node)] = (0, 0)  # a cycle (an alias inside its own anchor) counts as nothing more
            stack.append((node, True))
            stack.extend((c, False) for c in children)
    return size.get(id(root), (1, _scalar_chars(root)))


def _scalar_chars(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0 if isinstance(value, dict | list) else 1


def yaml_span(root: Any, path: tuple, file: str, key: bool = False) -> Span:
    """The span of the node at `path` (or of its key), falling back to the nearest parent."""
    line, col = 0, 0
    node = root
    for step in path:
        pos = None
        try:
            if isinstance(node, CommentedMap) and step in node:
                pos = node.lc.key(step) if key else node.lc.value(step)
                node = node[step]
            elif isinstance(node, CommentedSeq) and isinstance(step, int) and 0 <= step < len(node):
                pos = node.lc.item(step)
                node = node[step]
            else:
                break
        except (KeyError, TypeError, AttributeError, IndexError):
            break
        if pos is not None and pos[0] is not None:
            line, col = pos
    width = len(str(path[-1])) if key and path else 1
    if not key and isinstance(node, str | int) and not isinstance(node, bool):
        width = max(1, len(str(node)))
    return Span(file, line + 1, col + 1, line + 1, col + 1 + width)


# ---- a module folder ----
def load_module(folder: Path, display_root: Path | None = None) -> ModuleSource:
    src = ModuleSource(folder)
    name = _display(folder, display_root)
    manifest_file = folder / "module.yaml"
    if not manifest_file.is_file():
        src.diagnostics.append(Diagnostic("E104", "a module folder needs a module.yaml",
                                          Span(f"{name}/module.yaml", 1, 1, 1, 2),
                                          help="add module.yaml with id, name and version"))
        return src
    _load_manifest(src, manifest_file, _display(manifest_file, display_root))
    for path in _module_files(folder):
        if path.name == "module.yaml" or path.name.startswith("."):
            continue
        shown = _display(path, display_root)
        rel = path.relative_to(folder)
        if rel.parts[0] == "i18n" and path.suffix in (".yaml", ".yml"):
            _load_catalog(src, path, shown)
        elif path.suffix in (".yaml", ".yml"):
            if src.full:
                continue  # E803 is said: the rest would only cost time and memory
            _load_component_file(src, path, shown)
        elif path.suffix == ".nem":
            _load_script(src, path, shown)
    return src


def load_manifest(folder: Path) -> Any:
    """Only the folder's module.yaml, as a Manifest (None if it has none, or it does not read):
    enough to know a module's id and what it requires without reading its other files."""
    src = ModuleSource(folder)
    path = folder / "module.yaml"
    if not path.is_file():
        return None
    _load_manifest(src, path, path.as_posix())
    return src.manifest


def _module_files(folder: Path) -> list[Path]:
    """The folder's files, sorted; linked folders are not entered (a link can lead anywhere)."""
    found = []
    for top, _, files in os.walk(folder):
        found += [Path(top) / f for f in files]
    return sorted(found)


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def _read_record(src: ModuleSource, path: Path, file: str, cls: type) -> tuple[Any, Any]:
    """A YAML file structured as `cls`: (record or None, the YAML nodes), findings recorded."""
    raw, text, diags = read_yaml(path, file, src.path)
    src.diagnostics += diags
    if text is not None:
        src.sources[file] = text
    if raw is None:
        if not diags and cls is Manifest:
            src.diagnostics.append(Diagnostic("E201", "module.yaml is empty", Span(file, 1, 1, 1, 2),
                                              help="add id, name and version"))
        return None, None
    record, diags = structure(raw, cls, file, raw)
    src.diagnostics += diags
    return record, raw


def _load_manifest(src: ModuleSource, path: Path, file: str) -> None:
    src.manifest, src.manifest_raw = _read_record(src, path, file, Manifest)
    src.manifest_span = Span(file, 1, 1, 1, 2)


def _load_catalog(src: ModuleSource, path: Path, file: str) -> None:
    catalog, raw = _read_record(src, path, file, Catalog)
    if catalog is None:
        return
    for key, text in catalog.messages.items():  # every view writes each log line's text again
        fields = len(FIELD.findall(text))
        if fields > MAX_TEMPLATE_FIELDS:
            src.diagnostics.append(Diagnostic(
                "E804", f"message `{key}` has {fields:,} fields (limit {MAX_TEMPLATE_FIELDS})",
                yaml_span(raw, ("messages", key), file), help="split it into several messages"))
            return
    src.catalogs.setdefault(path.stem, []).append((file, catalog, raw))


def _load_script(src: ModuleSource, path: Path, file: str) -> None:
    text, diags = read_text(path, file, src.path)
    src.diagnostics += diags
    if text is None:
        return
    src.sources[file] = text
    session = _EDITING.get()
    if session is None:
        tree, diags = parse_cache.cached(("nem", file), text, lambda: parse_module(text, file))
    else:
        tree, diags = session.parsed(("nem", file), text, lambda: parse_module_reusing(
            text, file, session.declarations.setdefault(file, {})))
    src.diagnostics += diags
    if tree is not None:
        src.scripts.append(tree)


def _load_component_file(src: ModuleSource, path: Path, file: str) -> None:
    session = _EDITING.get()
    if session is None:
        return _read_component_file(src, path, file)
    text = read_text(path, file, src.path)[0]
    part = session.parsed(("components", file, src.id), text or "", lambda: _component_part(src, path, file))
    src.files += part.files
    src.components += part.components
    src.diagnostics += part.diagnostics
    src.sources.update(part.sources)
    src.full = src.full or part.full


def _component_part(src: ModuleSource, path: Path, file: str) -> ModuleSource:
    """What one component file adds to its module (records are frozen: it can be kept)."""
    part = ModuleSource(src.path, manifest=src.manifest)
    _read_component_file(part, path, file)
    return part


def _read_component_file(src: ModuleSource, path: Path, file: str) -> None:
    record, raw = _read_record(src, path, file, ComponentFile)
    if record is None:
        return
    src.files.append((file, record, raw))
    text = src.sources.get(file, "")
    raw_list = raw.get("components")
    raw_list = raw_list if isinstance(raw_list, list) else []  # a misshapen list is reported by structure
    total = _entities(src.components)
    for i, item in enumerate(raw_list):
        total += _copies(item)
        if total > limits.MAX_COMPONENTS:  # counted as they come: a million components are never all read
            src.full = True
            src.diagnostics.append(Diagnostic(
                "E803", f"with this component the components make more than {limits.MAX_COMPONENTS:,} entities; "
                "the rest of the module's components are not read", yaml_span(raw, ("components", i), file),
                help="model a large quantity as a counter or a prop"))
            return
        component = _component(src, item, file, raw, ("components", i), text or "")
        if component is not None:
            src.components.append(component)


def _entities(components: list[Component]) -> int:
    return sum(max(0, c.spec.count) for c in components)


def _copies(item: Any) -> int:
    """The entities a raw component item makes (its `count`, checked later; 1 when not a number)."""
    count = item.get("count", 1) if isinstance(item, dict) else 1
    return max(0, count) if isinstance(count, int) and not isinstance(count, bool) else 1


def _component(src: ModuleSource, item: Any, file: str, root: Any, where: tuple, text: str) -> Component | None:
    if not isinstance(item, dict):
        src.diagnostics.append(Diagnostic("E202", f"a component must be a mapping, got {_describe(item)}",
                                          yaml_span(root, where, file)))
        return None
    fields = {k: v for k, v in item.items() if k in COMPONENT_FIELDS}
    extra = {str(k): v for k, v in item.items() if k not in COMPONENT_FIELDS}
    spec, diags = structure(fields, ComponentSpec, file, root, where)
    src.diagnostics += diags
    if spec is None:
        return None
    scripts = {}
    for key, value in extra.items():
        if not isinstance(value, str):
            hint = did_you_mean(key, COMPONENT_FIELDS) or "a script field holds a script (text)"
            src.diagnostics.append(Diagnostic("E200", f"unknown field `{key}`",
                                              yaml_span(root, (*where, key), file, key=True), help=hint))
            continue
        scripts[key] = _script(value, root, (*where, key), file, text)
    return Component(spec, scripts, src.id, yaml_span(root, (*where, "id"), file), _field_spans(root, where, file))


def _field_spans(root: Any, where: tuple, file: str) -> dict[str, Span]:
    item = yaml_node(root, where)
    spans = {str(k): yaml_span(root, (*where, k), file) for k in item} if isinstance(item, dict) else {}
    props = item.get("props") if isinstance(item, dict) else None
    if isinstance(props, dict):
        spans.update({f"props.{k}": yaml_span(root, (*where, "props", k), file, key=True) for k in props})
    return spans


def yaml_node(root: Any, path: tuple) -> Any:
    """The YAML value at `path` (keys and indexes) under `root`, or None."""
    node = root
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _script(value: str, root: Any, where: tuple, file: str, text: str) -> Script:
    """Where a script's text starts in its file, so its diagnostics point at the real line."""
    span = yaml_span(root, where, file)
    lines = text.splitlines()
    start = span.line - 1  # 0-based line of the value's first character (or the `|`)
    first = lines[start] if 0 <= start < len(lines) else ""
    marker = first[span.column - 1:].lstrip()[:1] if first else ""
    if marker in ("|", ">"):
        body_line = start + 1
        while body_line < len(lines) and not lines[body_line].strip():
            body_line += 1
        indent = len(lines[body_line]) - len(lines[body_line].lstrip()) if body_line < len(lines) else 0
        return Script(value, span, body_line - _leading_blank(value), indent)
    quote = 1 if marker in ("'", '"') else 0
    return Script(value, span, start, span.column - 1 + quote)


def _leading_blank(value: str) -> int:
    return len(value) - len(value.lstrip("\n"))


def parse_script(script: Script, file: str) -> tuple[ast.Body | None, list[Diagnostic]]:
    key = ("script", file, script.line_offset, script.col_offset)
    tree, diags = _memo(key, script.text, lambda: parse_body(script.text, file, script.line_offset, script.col_offset))
    return tree, list(diags)

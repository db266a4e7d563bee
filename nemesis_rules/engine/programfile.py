"""A built program as bytes, and back: what lets a warm load skip compiling (ruleset/cache.py).

A program is data (steps, tables) plus Python functions of two sorts: those generated from the
rules (their globals are the program's own namespace, `Program.ns`) and the compiler's closures
over values it worked out (compile.py). Neither can be pickled by name, so a function is written
as its code object, its globals (the namespace, or the module it was defined in), its closure's
values and its defaults, as cloudpickle does for the few kinds of function a program holds; the
namespace is written once and every generated function shares it again when read. What the
process shares with the program (the work counter, modules, registered primitives) is written by
name and read back as the very same object. Importable functions go by name, as pickle does.

The bytes are for this engine's own cache, read by the same code that wrote them (the cache key
holds the engine's code and Python's version): they are trusted like the rest of that folder.
"""

from __future__ import annotations

import importlib
import io
import marshal
import pickle
import sys
from types import CellType, CodeType, FunctionType, ModuleType
from typing import Any

import attrs

from nemesis_rules.engine import limits, vm
from nemesis_rules.engine.primitives import REGISTRY, Primitive
from nemesis_rules.engine.program import Program


def dumps(program: Program) -> bytes:
    """The program (with its namespace) as bytes for `loads`."""
    out = io.BytesIO()  # the sources it compiled (`compiled`) are not needed to run it
    _Writer(out, program.ns).dump((dict(program.ns), attrs.evolve(program, compiled={})))
    return out.getvalue()


def loads(data: bytes) -> Program:
    """The program `dumps` wrote, its generated functions sharing one new namespace."""
    ns: dict[str, Any] = {}
    contents, program = _Reader(io.BytesIO(data), ns).load()
    ns.update(contents)
    program.ns = ns
    return program


def _function(code: CodeType, globals_: dict, name: str, defaults: tuple | None, cells: tuple | None,
              kwdefaults: dict | None) -> FunctionType:
    closure = None if cells is None else tuple(CellType(value) for value in cells)
    fn = FunctionType(code, globals_, name, defaults, closure)
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    return fn


def _module_function(code: CodeType, module: str, name: str, defaults: tuple | None, cells: tuple | None,
                     kwdefaults: dict | None) -> FunctionType:
    return _function(code, importlib.import_module(module).__dict__, name, defaults, cells, kwdefaults)


# objects the program's functions share with the engine, compared by identity (`is`): written
# by name and read back as the very same object
_SHARED = {"work": limits.work, "wait": vm.WAIT}
_SHARED_NAMES = {id(obj): name for name, obj in _SHARED.items()}


class _Writer(pickle.Pickler):
    def __init__(self, out: io.BytesIO, ns: dict) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.ns = ns

    def persistent_id(self, obj: Any) -> tuple | None:
        if obj is self.ns:
            return ("ns",)
        name = _SHARED_NAMES.get(id(obj))
        if name is not None:
            return (name,)
        if isinstance(obj, ModuleType):
            return ("module", obj.__name__)
        if isinstance(obj, Primitive) and REGISTRY.get(obj.name) is obj:
            return ("primitive", obj.name)
        return None

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is CodeType:
            return (marshal.loads, (marshal.dumps(obj),))
        if type(obj) is not FunctionType:
            return NotImplemented
        g = obj.__globals__
        if g is not self.ns:
            module = sys.modules.get(obj.__module__)
            if module is not None and getattr(module, obj.__qualname__, None) is obj:
                return NotImplemented  # importable: by its name
        cells = None if obj.__closure__ is None else tuple(c.cell_contents for c in obj.__closure__)
        rest = (obj.__name__, obj.__defaults__, cells, obj.__kwdefaults__)
        if g is self.ns:
            return (_function, (obj.__code__, g, *rest))
        return (_module_function, (obj.__code__, g["__name__"], *rest))


class _Reader(pickle.Unpickler):
    def __init__(self, data: io.BytesIO, ns: dict) -> None:
        super().__init__(data)
        self.ns = ns

    def persistent_load(self, pid: tuple) -> Any:
        kind = pid[0]
        if kind == "ns":
            return self.ns
        if kind in _SHARED:
            return _SHARED[kind]
        if kind == "module":
            return importlib.import_module(pid[1])
        if kind == "primitive":
            return REGISTRY[pid[1]]
        raise pickle.UnpicklingError(f"unknown shared object {pid!r}")

"""Scripts read back as plain sentences in a ruleset's language, from their AST (never from prose).

Generic words come from the phrase tables: `nemesis_rules/phrases/<lang>.yaml` for statements,
operators and entity attributes, and for primitives the registry's English `phrase` or the
table's `primitives:` section. What a module declares is named by its catalog (`rules.label`).
A reading is a list of lines `(depth, sentence)`; a nested block is one level deeper.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
from ruamel.yaml import YAML

from nemesis_rules.dsl import ast
from nemesis_rules.dsl.printer import SUM, bracketed, operands
from nemesis_rules.dsl.template import FIELD, choose_text
from nemesis_rules.engine.primitives import REGISTRY, Param, Primitive
from nemesis_rules.paths import phrases_dir

if TYPE_CHECKING:
    from nemesis_rules.api import Ruleset

BASE_LANG = "en"
Line = tuple[int, str]

_SEGMENT = re.compile(r"\[([^\[\]|]*)(?:\|([^\[\]]*))?\]")
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")


# ---- phrase tables ----
@attrs.frozen
class Phrases:
    language: dict[str, str]  # statements, expressions, operators, declarations
    attributes: dict[str, str]  # e.id, e.kind, ...
    primitives: dict[str, str]
    screen: dict[str, str]  # the words of `nemesis play` around the module's labels
    page: dict[str, str]  # the words of the web table (nemesis_rules/serve/static)


def _read(lang: str) -> dict[str, Any]:
    path = phrases_dir() / f"{lang}.yaml"
    return YAML(typ="safe").load(path.read_text(encoding="utf-8")) if path.is_file() else {}


@functools.cache
def phrases(lang: str) -> Phrases:
    """The phrase tables of a language (English where it has none)."""
    table = _read(lang) or _read(BASE_LANG)
    english = {name: prim.phrase for name, prim in REGISTRY.items()}
    screen = {**_read(BASE_LANG)["screen"], **table.get("screen", {})}
    page = {**_read(BASE_LANG)["page"], **table.get("page", {})}
    return Phrases(table["language"], table["attributes"], table.get("primitives", english), screen, page)


def fill(template: str, values: Mapping[str, str | None], missing: str | None) -> str:
    """The template with its `[optional]` parts settled and its placeholders filled (one without
    a value reads `missing`, or stays as written when that is None)."""

    def settle(m: re.Match) -> str:
        kept, otherwise = m.group(1), m.group(2) or ""
        return kept if all(values.get(n) is not None for n in _PLACEHOLDER.findall(kept)) else otherwise

    return substitute(_SEGMENT.sub(settle, template), values, missing)


def substitute(template: str, values: Mapping[str, str | None], missing: str | None = None) -> str:
    """Placeholders filled; one without a value reads `missing` (or stays as written)."""

    def value(m: re.Match) -> str:
        v = values.get(m.group(1))
        return v if v is not None else (m.group(0) if missing is None else missing)

    return _PLACEHOLDER.sub(value, template)


# ---- the public readings ----
def describe_script(rules: Ruleset, proc: ast.ProcDef, kind: str | None = None) -> list[Line]:
    """A component's script field (`<component>.<field>`): its body; `this` reads as one of `kind`."""
    reader = Describer(rules, bound_names(proc), None if kind is None else rules.label(kind))
    return reader.block(proc.body, 0)


def describe_face(rules: Ruleset, proc: ast.ProcDef | ast.FnDef, kind: str, holder: str | None) -> list[Line]:
    """What a card's face reads to its holder: its text field with the parameter `holder` read as
    "you"; a script that only gives a value (a condition, as an objective's) reads as that value."""
    reader = Describer(rules, bound_names(proc), rules.label(kind), you=holder, face=proc)
    if isinstance(proc, ast.FnDef):
        return [reader.line(0, reader.expr(proc.expr))]
    match proc.body:
        case (ast.Return(value=value),) if value is not None:
            return [reader.line(0, reader.expr(value))]
    return reader.block(proc.body, 0)


def describe_expression(rules: Ruleset, fn: ast.FnDef, kind: str | None = None) -> list[Line]:
    """A component's expression field (a condition such as `usable`): its expression, one line."""
    reader = Describer(rules, bound_names(fn), None if kind is None else rules.label(kind))
    return [reader.line(0, reader.expr(fn.expr))]


def describe_decl(rules: Ruleset, d: ast.Decl) -> list[Line]:
    """A declaration: a heading line, then its body one level deeper."""
    return Describer(rules, bound_names(d)).decl(d)


def as_lines(reading: Iterable[Line], indent: str = "") -> list[str]:
    """Top-level sentences as they are, nested ones as indented bullets."""
    return [indent + ("  " * depth + "- " if depth else "") + text for depth, text in reading]


def summary(reading: Iterable[Line], width: int = 60) -> str:
    """The first sentences on one line, cut at a word and marked when longer than `width`."""
    text = " ".join(sentence for _, sentence in reading)
    if len(text) <= width:
        return text
    return text[:width].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def bound_names(node: Any) -> set[str]:
    """The variables a declaration binds: parameters, `let`, loop and comprehension variables."""
    names: set[str] = set()
    for n in ast.walk(node):
        match n:
            case ast.ProcDef(params=p) | ast.FnDef(params=p) | ast.ModifierDef(params=p) | \
                    ast.EventDef(params=p) | ast.TriggerDef(params=p) | ast.HookDef(params=p):
                names.update(p)
            case ast.Let(name=x) | ast.For(var=x) | ast.ListComp(var=x) | ast.ActionParam(name=x) | \
                    ast.ActionDef(actor=x):
                names.add(x)
    names.discard("this")
    return names


_NOT_LITERAL = object()


def _literal(e: ast.Expr) -> Any:
    """A literal's value (a marker object for anything else)."""
    match e:
        case ast.Num(value=v) | ast.Str(value=v) | ast.Bool(value=v):
            return v
        case ast.NoneLit():
            return None
        case ast.ListLit(items=()):
            return ()
    return _NOT_LITERAL


class Describer:
    """Reads nodes of one declaration; `bound` are its variables, `this_kind` the label of `this`."""

    def __init__(self, rules: Ruleset, bound: Iterable[str] = (), this_kind: str | None = None,
                 you: str | None = None, face: Any = None) -> None:
        self.rules = rules
        self.you = you  # the variable that reads as "you" (a card's holder, on its face)
        self.face = face is not None  # a card's face: its variables read as words, never as ids
        self.words = phrases(rules.lang)
        self.bound = frozenset(bound)
        self.this_kind = this_kind
        comp = rules.composition
        self.owned_zones = {n for n, z in comp.zones.items() if z.value.per is not None}
        self.declared = set(comp.procs) | set(comp.fns) | set(comp.phases)
        self.refs = {} if face is None else self.references(face)

    def references(self, node: Any) -> dict[str, str]:
        """On a card's face a one-letter variable is no word: it reads as what it stands for, the
        chosen one (`let t = choose(...)`), the one a loop is at, or the one a list keeps."""
        refs: dict[str, str] = {}
        for n in ast.walk(node):
            match n:
                case ast.Let(name=x, value=v) | ast.Assign(target=ast.Name(id=x), value=v) \
                        if len(x) == 1 and self.is_choice(v):
                    refs.setdefault(x, "chosen")
                case ast.For(var=x) | ast.Let(name=x) if len(x) == 1:
                    refs.setdefault(x, "that_one")
                case ast.ListComp(var=x) if len(x) == 1:
                    refs.setdefault(x, "it")
        return refs

    def say(self, key: str, **values: str | None) -> str:
        return fill(self.words.language[key], values, self.words.language["missing"])

    def line(self, depth: int, text: str) -> Line:
        """A sentence: capitalised unless it opens with a variable, closed with a full stop."""
        first = text.split(" ", 1)[0]
        if first not in self.bound:
            text = text[:1].upper() + text[1:]
        return depth, text if text.endswith(":") else text + "."

    # ---- statements ----
    def block(self, stmts: tuple[ast.Stmt, ...], depth: int) -> list[Line]:
        return [line for s in stmts for line in self.stmt(s, depth)]

    def header(self, text: str, body: tuple[ast.Stmt, ...], depth: int) -> list[Line]:
        return [self.line(depth, text), *self.block(body, depth + 1)]

    def stmt(self, s: ast.Stmt, depth: int) -> list[Line]:
        match s:
            case ast.If(branches=(branch,), orelse=orelse) if (between := self.choice_between(branch, orelse)):
                return [self.line(depth, between)]
            case ast.If(branches=branches, orelse=orelse):
                lines = [ln for i, b in enumerate(branches)
                         for ln in self.header(self.say("elif" if i else "if", cond=self.expr(b.cond)), b.body, depth)]
                return lines + (self.header(self.say("else"), orelse, depth) if orelse else [])
            case ast.For(var=v, iter=it, body=body) if v in self.refs:
                return self.header(self.say("for_each_of", iter=self.expr(it)), body, depth)
            case ast.For(var=v, iter=it, body=body):
                return self.header(self.say("for", var=self.name(v), iter=self.expr(it)), body, depth)
            case ast.Repeat(count=c, body=body):
                return self.header(self.say("repeat", count=self.arg(c)), body, depth)
            case ast.While(cond=c, body=body):
                return self.header(self.say("while", cond=self.expr(c)), body, depth)
            case ast.Match(subject=subject, cases=cases):
                heading = self.say("match_choice", choice=self.choice_phrase("choose", subject)) \
                    if self.is_choice(subject) else self.say("match", subject=self.expr(subject))
                lines = [self.line(depth, heading)]
                return lines + [ln for c in cases for ln in self.header(self.case(c), c.body, depth + 1)]
        return [self.line(depth, self.simple(s))]

    def simple(self, s: ast.Stmt) -> str:
        match s:
            case ast.Let(name=n, value=v) | ast.Assign(target=ast.Name(id=n), value=v) if self.is_choice(v):
                values = self.bind(REGISTRY["choose"], v)
                if values is not None and n in self.refs:  # "you choose one of ...", then "the chosen one"
                    return fill(self.primitive_phrase("choose", v), values, self.words.language["missing"])
                if values is not None:  # "who chooses target from ...", as an action's parameter reads
                    you = bool(v.args) and self.is_you(v.args[0])
                    return fill(self.words.language["let_choose_you" if you else "let_choose"],
                                {**values, "name": self.name(n)}, self.words.language["missing"])
                return self.say("let", name=self.name(n), value=self.expr(v))
            case ast.Let(name=n, value=v):
                return self.say("let", name=self.name(n), value=self.expr(v))
            case ast.Assign(target=t, value=v):
                return self.say("set", target=self.expr(t), value=self.expr(v))
            case ast.AugAssign(target=t, op=op, value=v):
                return self.say("increase" if op == "+=" else "decrease", target=self.expr(t), value=self.arg(v))
            case ast.Return(value=None):
                return self.say("return")
            case ast.Return(value=v):
                return self.say("return_value", value=self.expr(v))
            case ast.Pass():
                return self.say("pass")
            case ast.Break():
                return self.say("break")
            case ast.Continue():
                return self.say("continue")
            case ast.Emit(event=ev, args=args):
                return self.say("emit", event=self.rules.label(ev), args=self.listing(args))
            case ast.ExprStmt(expr=ast.Call(func=ast.Name(id=n)) as e) if self.documented(n):
                return self.reading(n, e) or self.doc_reading(n, e)
            case ast.ExprStmt(expr=e) if self.is_choice(e):
                return self.choice_phrase("choose", e)
            case ast.ExprStmt(expr=e):
                return self.expr(e)
        raise TypeError(f"not a statement node: {s!r}")

    def is_choice(self, e: ast.Expr) -> bool:
        """A call of the primitive `choose` (not a procedure or variable of that name)."""
        return isinstance(e, ast.Call) and e.func == ast.Name("choose") and self.is_primitive("choose")

    def is_primitive(self, name: str) -> bool:
        """Whether `name` names the primitive (no variable or declaration hides it)."""
        return name in REGISTRY and name not in self.bound and name not in self.declared

    def choice_between(self, branch: ast.Branch, orelse: tuple[ast.Stmt, ...]) -> str | None:
        """`if [cond and] choose(...) == X: A else: B`, each branch one statement, as a choice
        between A and B ("you choose: A, or B"); None when the `if` is not one."""
        cond, choice = self.split_choice(branch.cond)
        first, second = self.only_sentence(branch.body), self.only_sentence(orelse)
        if choice is None or first is None or second is None:
            return None
        between = self.choice_say("choose_between", choice.left, first=first, second=second)
        return between if cond is None else self.say("if_choose_between", cond=self.expr(cond), choice=between,
                                                     orelse=second)

    def split_choice(self, cond: ast.Expr) -> tuple[ast.Expr | None, ast.Compare | None]:
        """A condition `choose(...) == X`, or `C and choose(...) == X`: (C or None, the comparison)."""
        match cond:
            case ast.Compare(op="==", left=left) if self.is_choice(left):
                return None, cond
            case ast.BoolOp(op="and", left=c, right=ast.Compare(op="==", left=left) as compare) \
                    if self.is_choice(left):
                return c, compare
        return None, None

    def only_sentence(self, body: tuple[ast.Stmt, ...]) -> str | None:
        """The reading of a block of one simple statement, opening in lower case (None otherwise)."""
        if len(body) != 1 or isinstance(body[0], ast.If | ast.For | ast.Repeat | ast.While | ast.Match):
            return None
        return self.noun(self.simple(body[0]))

    def choice_say(self, key: str, call: ast.Call, **values: str | None) -> str:
        """A phrase about the choice `call`, in the second person (`you_<key>`) when the holder chooses."""
        you = bool(call.args) and self.is_you(call.args[0])
        player = None if you or not call.args else self.arg(call.args[0])
        return self.say(f"you_{key}" if you else key, player=player, **values)

    def choice_phrase(self, key: str, call: ast.Call, **values: str | None) -> str:
        """The choice `call` read by `key` with its own arguments (options, prompt, passing)."""
        bound = self.bind(REGISTRY["choose"], call) or {}
        return self.choice_say(key, call, **{**{k: v for k, v in bound.items() if k != "player"}, **values}) \
            if key != "choose" else fill(self.primitive_phrase("choose", call), bound, self.words.language["missing"])

    def case(self, c: ast.Case) -> str:
        if any(isinstance(p, ast.Wildcard) for p in c.patterns):
            return self.say("case_other")
        return self.say("case", patterns=self.alternatives([self.expr(p) for p in c.patterns]))

    def alternatives(self, texts: list[str]) -> str:
        return functools.reduce(lambda left, right: self.say("or", left=left, right=right), texts)

    # ---- expressions ----
    def expr(self, e: ast.Expr) -> str:
        match e:
            case ast.Num(value=v):
                return str(v)
            case ast.Str(value=v):
                return self.string(v)
            case ast.Bool(value=v):
                return self.say("true" if v else "false")
            case ast.NoneLit():
                return self.say("none")
            case ast.Name(id=i):
                return self.name(i)
            case ast.Attr(obj=ast.Name(id="this"), name=n) if "this" not in self.bound:
                return self.say("attr_this", prop=self.prop(n), kind=self.this_kind)
            case ast.Attr(obj=o, name=n) if self.is_you(o):
                return self.say("attr_you", prop=self.prop(n))
            case ast.Attr(obj=o, name=n):
                return self.say("attr", prop=self.prop(n), obj=self.arg(o))
            case ast.Index(obj=o, index=i):
                return self.say("index", obj=self.arg(o), index=self.expr(i))
            case ast.Call():
                return self.call(e)
            case ast.ListLit(items=items):
                return self.listing(items) or self.say("empty_list")
            case ast.ListComp(elt=elt, var=var, iter=it, cond=cond):
                key = "each" if elt == ast.Name(var) else "each_of"
                return self.say(f"{key}_it" if var in self.refs else key, elt=self.arg(elt), var=self.name(var),
                                iter=self.arg(it), cond=None if cond is None else self.expr(cond))
        return self.operation(e)

    def operation(self, e: ast.Expr) -> str:
        match e:
            case ast.Compare(op="in" | "not in" as op, left=left, right=ast.Call(func=ast.Name(id="inside"),
                                                                               args=(zone,), kwargs=())) \
                    if self.is_primitive("inside"):  # "the card is in your hand", not "is one of everything in"
                return self.say("in_zone" if op == "in" else "not_in_zone", left=self.arg(left), zone=self.arg(zone))
            case ast.Compare(op="==", left=left, right=right) if self.is_choice(left):
                return self.choice_phrase("chose_value", left, value=self.arg(right), options=None, optional=None)
            case ast.Compare(op="==" | "!=" as op, left=left, right=ast.NoneLit()):
                key = "is_none" if op == "==" else "is_not_none"
                return self.say(key, left=bracketed(self.expr(left), left, SUM))
            case ast.BinOp(op=op) | ast.BoolOp(op=op) | ast.Compare(op=op):
                left, right = operands(e, self.expr)
                return self.say(op, left=left, right=right)
            case ast.Neg():
                return self.say("negative", operand=operands(e, self.expr)[0])
            case ast.Not():
                return self.say("not", operand=operands(e, self.expr)[0])
            case ast.IfExp():
                then, cond, orelse = operands(e, self.expr)
                return self.say("if_else", then=then, cond=cond, orelse=orelse)
        raise TypeError(f"not an expression node: {e!r}")

    def arg(self, e: ast.Expr) -> str:
        """`e` read inside a phrase: bracketed when it is a comparison, `and`/`or`/`not` or `if`."""
        return bracketed(self.expr(e), e, SUM)

    def listing(self, items: Iterable[ast.Expr]) -> str | None:
        return ", ".join(self.arg(i) for i in items) or None

    def name(self, name: str) -> str:
        if name == self.you:
            return self.say("you")
        if name in self.refs:
            return self.say(self.refs[name])
        if name in self.bound:  # on a card's face a variable reads as words (`first room`), never as an id
            return name.replace("_", " ") if self.face else name
        if name == "this":
            return self.say("this", kind=self.this_kind)
        return self.rules.label(name)

    def prop(self, name: str) -> str:
        return self.words.attributes.get(name) or self.rules.label(name)

    def string(self, value: str) -> str:
        """A string literal: a name from the catalog, a message's text, or the string quoted."""
        if value in self.rules.names or (_IDENTIFIER.fullmatch(value) and value not in self.rules.messages):
            return self.rules.label(value)
        return self.say("quote", text=self.rules.messages.get(value, value))

    # ---- calls ----
    def call(self, e: ast.Call) -> str:
        match e.func:
            case ast.Attr(obj=obj, name=field):
                return self.say("run_script", script=self.rules.label(field), obj=self.arg(obj),
                                args=self.arguments(e))
            case ast.Name(id=n) if n in self.owned_zones and len(e.args) == 1 and not e.kwargs \
                    and n not in self.bound:
                if self.is_you(e.args[0]):
                    return self.say("owned_zone_you", zone=self.rules.label(n))
                return self.say("owned_zone", zone=self.rules.label(n), owner=self.arg(e.args[0]))
            case ast.Name(id="choose") if self.is_choice(e) and self.bind(REGISTRY["choose"], e) is not None:
                return self.choice_phrase("the_choice", e)  # "put the one you choose from ... on top of ..."
            case ast.Name(id=n) if n in REGISTRY and n not in self.bound and n not in self.declared:
                values = self.bind(REGISTRY[n], e)
                if values is not None:
                    return fill(self.primitive_phrase(n, e), values, self.words.language["missing"])
            case ast.Name(id=n) if n in self.rules.readings and n not in self.bound:
                if (text := self.reading(n, e)) is not None:
                    return text
            case ast.Name(id=n) if self.face and self.documented(n) and self.arguments_by_name(n, e) is not None:
                return self.noun(self.doc_reading(n, e))
        return self.say("call", name=self.arg(e.func), args=self.arguments(e))

    @staticmethod
    def noun(sentence: str) -> str:
        """A doc comment's sentence inside another: "Whether X is Y" reads "X is Y", and it
        opens in lower case (unless with an abbreviation such as `ID`)."""
        text = re.sub(r"^Whether ", "", sentence)
        return text if text[1:2].isupper() else text[:1].lower() + text[1:]

    def primitive_phrase(self, name: str, e: ast.Call) -> str:
        """A primitive's phrase; `you_<name>` of the language when the card's holder is one of its
        arguments ("you secretly look at", not "you secretly looks at"; "you learn", not "tell you")."""
        holder = any(self.is_you(a) for a in (*e.args, *(k.value for k in e.kwargs)))
        return self.words.language.get(f"you_{name}") if holder and f"you_{name}" in self.words.language \
            else self.words.primitives[name]

    def declaration(self, name: str) -> ast.ProcDef | ast.FnDef | None:
        comp = self.rules.composition
        found = comp.procs.get(name) or comp.fns.get(name)
        return None if found is None else found.value

    def arguments_by_name(self, name: str, e: ast.Call) -> dict[str, str | None] | None:
        """The reading of each argument by the declared parameter it fills (None: they do not fit);
        a literal flag reads "" when `true` and is absent when `false`, as a primitive's does, and
        `none` is absent."""
        d = self.declaration(name)
        if d is None or len(e.args) > len(d.params) or e.kwargs:
            return None
        return {p: ("" if a.value else None) if isinstance(a, ast.Bool) else None if isinstance(a, ast.NoneLit)
                else self.arg(a) for p, a in zip(d.params, e.args, strict=False)}

    def reading(self, name: str, e: ast.Call) -> str | None:
        """A call of a declared procedure or function as the catalog's `readings:` words it. An
        argument that is the card's holder counts as absent in `[...|...]` parts (so a reading
        says `[{who} searches|search]`) and reads "you" elsewhere."""
        values = self.arguments_by_name(name, e)
        if name not in self.rules.readings or values is None:
            return None
        holder = self.holder_params(name, e)
        template = self.settle_choices(self.rules.readings[name], name, e)
        settled = fill(template, {p: None if p in holder else v for p, v in values.items()}, None)
        return substitute(settled, values, self.words.language["missing"])

    def holder_params(self, name: str, e: ast.Call) -> set[str]:
        """The parameters of `name` the call fills with the card's holder."""
        return {p for p, a in zip(self.declaration(name).params, e.args, strict=False) if self.is_you(a)}

    def is_you(self, e: ast.Expr) -> bool:
        """Whether the argument `e` is the card's holder (read "you" on its face)."""
        return self.you is not None and e == ast.Name(self.you)

    def documented(self, name: str) -> bool:
        """Whether a call of `name` as a statement reads as a sentence: from the catalog's
        `readings:`, or in English from its `##` doc comment."""
        if name in self.bound or self.declaration(name) is None:
            return False
        return name in self.rules.readings or (self.rules.lang == BASE_LANG and bool(self.declaration(name).doc))

    def doc_reading(self, name: str, e: ast.Call) -> str:
        """The first sentence of the `##` doc comment, its `parameter`s filled with the arguments."""
        values = self.arguments_by_name(name, e)
        if values is None:
            return self.say("call", name=self.name(name), args=self.arguments(e))
        values.update({p: self.say("none") for p, a in zip(self.declaration(name).params, e.args, strict=False)
                       if isinstance(a, ast.NoneLit)})
        holder = self.holder_params(name, e)
        values.update(dict.fromkeys(holder, self.say("holder")))  # a doc speaks of its subject in the third person
        first = self.declaration(name).doc.strip().split("\n")[0].rstrip(".")
        first = re.sub(r"`(\w+)`['’]s\b", lambda m: self.say("your") if m.group(1) in holder else m.group(0), first)
        first = re.sub(r"`(\w+)`", lambda m: values.get(m.group(1)) or m.group(1).replace("_", " "), first)
        return re.sub(r"`([^`]*)`", lambda m: m.group(1).replace("_", " "), first)  # other code reads as words

    def arguments(self, e: ast.Call) -> str | None:
        named = [f"{k.name} = {self.arg(k.value)}" for k in e.kwargs]
        return ", ".join([self.arg(a) for a in e.args] + named) or None

    def bind(self, prim: Primitive, e: ast.Call) -> dict[str, str | None] | None:
        """A primitive's phrase values by parameter name, or None when the call does not fit it."""
        names = [p.name for p in prim.params]
        if len(e.args) > len(names):
            return None
        given = dict(zip(names, e.args, strict=False))
        extra: dict[str, ast.Expr] = {}
        for k in e.kwargs:
            if k.name in given or (k.name not in names and not prim.varkw):
                return None
            (given if k.name in names else extra)[k.name] = k.value
        values = {p.name: self.argument(p, given.get(p.name)) for p in prim.params}
        if prim.varkw and names:  # the further arguments fill the message named first (`log`)
            values[names[0]] = self.message(given.get(names[0]), extra)
        return values

    def argument(self, p: Param, e: ast.Expr | None) -> str | None:
        """An argument's reading; None when absent or the default, "" for a flag set to `true`."""
        if e is None or (not p.required and _literal(e) == p.default):
            return None
        if p.type == "bool" and isinstance(e, ast.Bool):
            return "" if e.value else None
        if p.type == "bool":
            return f" ({self.expr(e)})"
        return self.arg(e)

    def message(self, e: ast.Expr | None, args: dict[str, ast.Expr]) -> str | None:
        readings = {k: self.say("holder") if self.is_you(v) else self.arg(v) for k, v in args.items()}  # a message speaks in the third person
        if isinstance(e, ast.Str) and e.value in self.rules.messages:
            return self.say("quote", text=self.message_text(self.rules.messages[e.value], args, readings))
        if e is None:
            return None
        return self.arg(e) + "".join(f", {k} = {v}" for k, v in readings.items())

    def message_text(self, template: str, args: dict[str, ast.Expr], readings: dict[str, str]) -> str:
        """A message's template filled with the readings; a choice field (`{n|1=moves|move}`)
        picks by a literal or declared name, else reads its last text."""

        def field(m: re.Match) -> str:
            name, choices = m.group(1), m.group(2)
            if name is None:
                return m.group()[0]  # `{{`, `}}`
            return self.chosen_text(args.get(name), choices) if choices else readings.get(name, m.group())

        return FIELD.sub(field, template)

    def chosen_text(self, arg: ast.Expr | None, choices: str) -> str:
        """A choice field's text (`|1=card|cards`) for the argument `arg`: picked by a literal or
        a declared name, else its last text."""
        value = _NOT_LITERAL if arg is None else _literal(arg)
        if isinstance(arg, ast.Name) and arg.id not in self.bound:
            value = arg.id  # a symbol (`what=adult`)
        return choose_text(value, choices) if value is not _NOT_LITERAL else choices.rsplit("|", 1)[1]

    def settle_choices(self, template: str, name: str, e: ast.Call) -> str:
        """A reading's choice fields (`{n|1=card|cards}`) settled by the call's arguments."""
        args = dict(zip(self.declaration(name).params, e.args, strict=False))
        return FIELD.sub(lambda m: self.chosen_text(args.get(m.group(1)), m.group(2)) if m.group(2) else m.group(),
                         template)

    # ---- declarations ----
    def decl(self, d: ast.Decl) -> list[Line]:
        match d:
            case ast.ProcDef(name=n, params=p, body=b):
                return self.header(self.say("proc", name=self.rules.label(n), params=self.params(p)), b, 0)
            case ast.FnDef(name=n, params=p, expr=e):
                return [self.line(0, self.say("fn", name=self.rules.label(n), params=self.params(p), value=self.expr(e)))]
            case ast.ModifierDef(name=n, params=p, when=w, op=op, expr=e):
                return [self.line(0, self.say(f"modifier {op}", name=self.rules.label(n), params=self.params(p),
                                              value=self.arg(e), when=self.when(w)))]
            case ast.EventDef(name=n, params=p):
                return [self.line(0, self.say("event", name=self.rules.label(n), params=self.params(p)))]
            case ast.TriggerDef(event=ev, params=p, when=w, body=b):
                text = self.say("trigger", event=self.rules.label(ev), params=self.params(p), when=self.when(w))
                return self.header(text, b, 0)
            case ast.HookDef(kind=k, target=t, params=p, when=w, body=b):
                text = self.say(k, target=self.rules.label(t), params=self.params(p), when=self.when(w))
                return self.header(text, b, 0)
            case ast.ActionDef():
                return self.action(d)
            case ast.PhaseDef(name=n, steps=steps):
                text = self.say("phase", name=self.rules.label(n), steps=", ".join(map(self.rules.label, steps)))
                return [self.line(0, text)]
            case ast.PhaseExtend(name=n, changes=changes):
                return [self.line(0, self.say("extend_phase", name=self.rules.label(n))),
                        *(self.line(1, self.step_change(c)) for c in changes)]
        raise TypeError(f"not a declaration node: {d!r}")

    def action(self, d: ast.ActionDef) -> list[Line]:
        text = self.say("action", name=self.rules.label(d.name), actor=d.actor,
                        cost=None if d.cost is None else self.arg(d.cost), when=self.when(d.when))
        asks = [self.line(1, self.say("action_param", actor=d.actor, param=p.name, domain=self.expr(p.domain)))
                for p in d.params]
        return [self.line(0, text), *asks, *self.block(d.body, 1)]

    def step_change(self, c: ast.StepChange) -> str:
        return self.say(f"step_{c.op}", step=self.rules.label(c.step), anchor=self.rules.label(c.anchor))

    def params(self, params: tuple[str, ...]) -> str | None:
        return ", ".join(p for p in params if p != "this") or None

    def when(self, w: ast.Expr | None) -> str | None:
        return None if w is None else self.expr(w)

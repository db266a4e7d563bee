"""The one registry of lint codes: code, name, default severity and documentation.

Codes are stable and grouped in families by their first digit (E1xx syntax, E2xx schema, E3xx
references, E4xx types and arity, E5xx/W5xx structure, E6xx/W6xx i18n, E7xx layering, W8xx
bounds, E9xx the linter itself). A name reads well after "allow" (`unknown-primitive`). Each
documentation string has the sections What it does / Why it matters / Example / Instead; the
reference page `docs/lint.md` and `nemesis-lint --explain` are made from it.
"""

from __future__ import annotations

import re
import textwrap

import attrs

from nemesis_rules.dsl.diagnostics import ERROR, WARNING, did_you_mean

SECTIONS = ("What it does", "Why it matters", "Example", "Instead")

FAMILIES = {
    "1": "Syntax",
    "2": "Schema",
    "3": "References",
    "4": "Types and arity",
    "5": "Duplicates and structure",
    "6": "Translations (i18n)",
    "7": "Layering of modules",
    "8": "Bounds",
    "9": "The linter itself",
}


@attrs.frozen(slots=True)
class LintCode:
    """One lint check: a stable code, a kebab-case name, a default severity and its docs."""

    code: str
    name: str
    severity: str
    doc: str

    @property
    def family(self) -> str:
        return FAMILIES[self.code[1]]

    @property
    def summary(self) -> str:
        """The first sentence of "What it does", on one line."""
        body = section(self.doc, SECTIONS[0]).split("\n\n")[0]
        return " ".join(body.split())

    def explain(self) -> str:
        """The text `nemesis-lint --explain` prints."""
        return f"{self.code} {self.name} ({self.severity})\n\n{self.doc}"


def section(doc: str, title: str) -> str:
    """The body of the section `## title` of a documentation string."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return match.group(1).strip() if match else ""


def _rule(code: str, name: str, doc: str) -> LintCode:
    severity = WARNING if code.startswith("W") else ERROR
    return LintCode(code, name, severity, textwrap.dedent(doc).strip())


CODES: tuple[LintCode, ...] = (
    # ---- E1xx syntax ----
    _rule("E100", "syntax-error", """
        ## What it does
        Reports a script (`.nem` file or a YAML script field) that the parser cannot read.

        ## Why it matters
        A module whose scripts do not parse cannot be loaded, so no game can start with it.

        ## Example
        ```
        proc setup(:
            pass
        ```

        ## Instead
        Fix the statement at the caret; the message lists the tokens the parser expected.
        ```
        proc setup():
            pass
        ```
        """),
    _rule("E101", "unexpected-token", """
        ## What it does
        Reports a token the parser did not expect at that place, with the tokens it expected.

        ## Why it matters
        One stray token stops the whole file from loading; the linter recovers and reports the
        others too, so fix them from the top.

        ## Example
        ```
        proc score(who):
            who.score += += 1
        ```

        ## Instead
        ```
        proc score(who):
            who.score += 1
        ```
        """),
    _rule("E102", "bad-indentation", """
        ## What it does
        Reports a line indented inconsistently with its block (a dedent to a level that was
        never opened, or a block with no indented body).

        ## Why it matters
        Indentation makes blocks, as in Python: a wrong indent changes or breaks the program.

        ## Example
        ```
        proc setup():
            let n = 1
          log("setup")
        ```

        ## Instead
        Indent every statement of a block by the same amount (four spaces is usual).
        ```
        proc setup():
            let n = 1
            log("setup")
        ```
        """),
    _rule("W103", "irregular-indentation", """
        ## What it does
        Warns about a script line whose indentation is not a multiple of the file's indent unit
        (the smallest indentation used in it, usually four spaces).

        ## Why it matters
        A line indented one space too little can still parse, as part of another block: the
        program then does something else than it reads. Even indentation makes such slips visible.

        ## Example
        ```
        proc setup():
            for p in players():
                deal(deck, hand(p), 2)
               log("dealt", who=p)
        ```

        ## Instead
        Indent by whole units.
        ```
        proc setup():
            for p in players():
                deal(deck, hand(p), 2)
                log("dealt", who=p)
        ```
        """),
    _rule("E103", "yaml-syntax", """
        ## What it does
        Reports a YAML file (`module.yaml`, a component file, a translation file) that is not
        valid YAML.

        ## Why it matters
        An unreadable YAML file means missing components, kinds or translations.

        ## Example
        ```yaml
        components:
          - id: gem
            props: {value: 2, suit: red
        ```

        ## Instead
        ```yaml
        components:
          - id: gem
            props: {value: 2, suit: red}
        ```
        """),
    _rule("E104", "unreadable-file", """
        ## What it does
        Reports a path that does not exist or cannot be read: a missing file, a directory where
        a file is expected, a file that is not UTF-8 text, or a permission problem.

        ## Why it matters
        Nothing in an unreadable file can be checked. `nemesis-lint` exits with status 2.

        ## Example
        ```
        $ nemesis-lint rulesets/bsae
        rulesets/bsae:1:1: E104 no such file or folder
        ```

        ## Instead
        Pass an existing module folder or file, saved as UTF-8.
        """),
    _rule("E105", "not-a-module-file", """
        ## What it does
        Reports a file in a module folder that is not a regular file inside that folder: a symbolic
        link that leads out of the module, a device, a FIFO or a socket. It is not read.

        ## Why it matters
        A shared module must not make the engine read other files of the machine (their lines would
        be quoted in diagnostics and CI annotations), nor hang on a pipe or read a device forever.

        ## Example
        ```
        $ ln -s /etc/passwd rulesets/mymod/evil.yaml
        rulesets/mymod/evil.yaml:1:1: E105 a link to a file outside the module folder: not read
        ```

        ## Instead
        Copy the file into the module folder, or name another module in `requires:`.
        """),
    # ---- E2xx schema ----
    _rule("E200", "unknown-field", """
        ## What it does
        Reports a YAML field that the schema of its section does not know, with the nearest
        known field.

        ## Why it matters
        A misspelt field is silently ignored by most YAML tools; here it would leave a setting
        at its default.

        ## Example
        ```yaml
        components:
          - id: gem
            kind: card
            cuont: 3
        ```

        ## Instead
        ```yaml
            count: 3
        ```
        """),
    _rule("E201", "missing-field", """
        ## What it does
        Reports a required YAML field that is absent (for example a component's `id` or
        `kind`, or a root module's `entry`).

        ## Why it matters
        The loader cannot build the component or module without it.

        ## Example
        ```yaml
        components:
          - kind: card
            zone: deck
        ```

        ## Instead
        ```yaml
          - id: gem
            kind: card
            zone: deck
        ```
        """),
    _rule("E202", "wrong-value-type", """
        ## What it does
        Reports a YAML value of the wrong type: a string where an integer is expected, a
        mapping where a list is expected, a prop value that does not match its kind's type.
        An empty or misshapen section (`counters:` with nothing under it, a list where a mapping
        is expected) is one finding at its line; the rest of the file is read, and findings
        that would follow from the missing section (unknown names) are not reported until it
        is fixed.

        ## Why it matters
        A wrong type fails later, in the middle of a game, far from its cause.

        ## Example
        ```yaml
        counters:
          round: {min: 0, max: "thirty", start: 0}
        ```

        ## Instead
        ```yaml
          round: {min: 0, max: 30, start: 0}
        ```
        """),
    _rule("E203", "bad-module-id", """
        ## What it does
        Reports a module `id` that is not a lowercase name (letters, digits, `_`).

        ## Why it matters
        Module ids name folders and appear in save files and fingerprints: `../../etc` or `a+b`
        would point elsewhere or break them.

        ## Example
        ```yaml
        id: ../../etc/passwd
        ```

        ## Instead
        ```yaml
        id: my_expansion
        ```
        """),
    # ---- E3xx references ----
    _rule("E300", "unknown-name", """
        ## What it does
        Reports a name in a script that is not a variable, parameter, symbol, component, kind,
        zone, counter, die, action, option or callable, with the nearest known name; also an
        unknown counter named by the module's `report:` (`rounds:` or `counters:`).

        ## Why it matters
        The engine would stop the game with an error when the line runs.

        ## Example
        ```
        proc score(who):
            who.score += bouns
        ```

        ## Instead
        Declare the variable with `let`, or fix the spelling.
        ```
        proc score(who):
            let bonus = 2
            who.score += bonus
        ```
        """),
    _rule("E301", "unknown-primitive", """
        ## What it does
        Reports a call to a function that is neither a primitive of the engine nor a procedure
        or function of a loaded module.

        ## Why it matters
        The call would fail when it runs. The help line suggests the nearest primitive.

        ## Example
        ```
        proc setup():
            shufle(deck)
        ```

        ## Instead
        ```
        proc setup():
            shuffle(deck)
        ```
        """),
    _rule("E302", "unknown-procedure", """
        ## What it does
        Reports a reference to a procedure that no loaded module defines: a `step` of a phase,
        a hook (`before`, `after`, `instead of`), a `replace proc`, or the module's `entry`;
        and a function named by the module's `report:` that no loaded module defines.

        ## Why it matters
        A phase step or entry point that does not exist cannot run.

        ## Example
        ```
        phase round:
            step draw_stpe
        ```

        ## Instead
        ```
        phase round:
            step draw_step
        ```
        """),
    _rule("E303", "unknown-component", """
        ## What it does
        Reports a component id that no loaded module declares: in `remove:`, in a link's
        `ends:`, in a zone name such as `contents@hall`, or in a script.

        ## Why it matters
        The reference points at nothing, so the rule it belongs to cannot work.

        ## Example
        ```yaml
        remove: [old_crad]
        ```

        ## Instead
        ```yaml
        remove: [old_card]
        ```
        """),
    _rule("E304", "unknown-kind", """
        ## What it does
        Reports a kind that is not declared under `kinds:` (a component's `kind`, a zone's
        `per`).

        ## Why it matters
        The engine cannot create entities of a kind it does not know.

        ## Example
        ```yaml
        components:
          - id: gem
            kind: crad
        ```

        ## Instead
        ```yaml
            kind: card
        ```
        """),
    _rule("E305", "unknown-zone", """
        ## What it does
        Reports a zone that is not declared under `zones:` (a component's starting `zone`, a
        zone used in a script, a kind's owned zone).

        ## Why it matters
        Entities placed in an unknown zone cannot be found or moved.

        ## Example
        ```yaml
        components:
          - id: gem
            kind: card
            zone: dekc
        ```

        ## Instead
        ```yaml
            zone: deck
        ```
        """),
    _rule("E306", "unknown-prop", """
        ## What it does
        Reports a property that the entity's kind does not declare, in YAML `props:` or in a
        script (`e.prop`); also a kind's `back` naming none of its props, or its `text` none of
        its script fields.

        ## Why it matters
        Reading an undeclared property fails when the line runs; writing one would be lost.

        ## Example
        ```
        who.scroe += 1
        ```

        ## Instead
        ```
        who.score += 1
        ```
        """),
    _rule("E307", "unknown-translation-key", """
        ## What it does
        Reports a message key (in `log(...)`, a `prompt=`, an end-game reason, the `plays:` of
        the module's `report:`) that no translation file of the module defines.

        ## Why it matters
        Players would see the raw key instead of a sentence.

        ## Example
        ```
        log("alrm", who=who)
        ```

        ## Instead
        Fix the key, or add it to `i18n/en.yaml` (and the other languages).
        ```
        log("alarm", who=who)
        ```
        """),
    _rule("E308", "unknown-event", """
        ## What it does
        Reports an `emit` or an `on` trigger for an event that is not declared with `event`.

        ## Why it matters
        A trigger on an undeclared event never runs; an emit of one has no listeners and
        hides a typo.

        ## Example
        ```
        event alarm(who)
        on alram(who):
            pass
        ```

        ## Instead
        ```
        on alarm(who):
            pass
        ```
        """),
    _rule("E309", "unknown-option", """
        ## What it does
        Reports `option(name)` for an option that `module.yaml` does not declare, or a default
        that is not one of the option's values.

        ## Why it matters
        The game would fail when the option is read.

        ## Example
        ```
        if option("mdoe") == short:
            pass
        ```

        ## Instead
        ```
        if option("mode") == short:
            pass
        ```
        """),
    # ---- E4xx types and arity ----
    _rule("E310", "unknown-symbol-value", """
        ## What it does
        Reports a value that a prop's type does not allow among names: a symbol outside the
        prop's symbol set (`combat: anytime | in_combat | out_of_combat`), a name declared nowhere
        for a `symbol` prop, in a record (`props:`, `defaults:`), an item of a `list of ...` prop,
        or a script's assignment; also a symbol set naming an undeclared symbol. The help offers
        the nearest allowed name.

        ## Why it matters
        A misspelt symbol loads and plays: the rules that compare it with the right name never
        match, so the card silently does nothing (its movers never move, its item is never
        offered).

        ## Example
        ```
        props: {movers: [adult, breder], combat: out_of_combt}
        ```

        ## Instead
        ```
        props: {movers: [adult, breeder], combat: out_of_combat}
        ```
        """),
    _rule("E400", "wrong-arity", """
        ## What it does
        Reports a call with too few or too many arguments, or an unknown keyword argument,
        for a primitive, procedure, function, event or script field; also a function named by
        the module's `report:` that does not take 1 parameter (a player), and a `plays:`
        argument its message does not have.

        ## Why it matters
        The call would fail when it runs.

        ## Example
        ```
        proc noise_roll(who):
            pass

        proc turn(p):
            noise_roll()
        ```

        ## Instead
        ```
            noise_roll(p)
        ```
        """),
    _rule("E401", "wrong-argument-type", """
        ## What it does
        Reports an argument whose type is known to be wrong: a zone where a die is expected, a
        string where an integer is expected, and so on.

        ## Why it matters
        The primitive would reject the argument in the middle of a game.

        ## Example
        ```
        let face = roll(deck)
        ```

        ## Instead
        ```
        let face = roll(d6)
        ```
        """),
    _rule("E402", "not-callable", """
        ## What it does
        Reports a call of something that is not callable: a variable, a symbol, a counter, an
        integer; also a procedure or phase where the engine calls a function (`report:`), and a
        call that waits or changes the state (`choose`, `roll`, a procedure, `move`) where nothing
        may: in a `fn`, a modifier, a `when` condition, a `cost` or an action parameter's domain.

        ## Why it matters
        The call would fail when it runs; it is often a missing operator or a name clash. A
        condition or a function is worked out whenever the engine needs it, so it cannot stop
        to ask a player.

        ## Example
        ```
        let n = 3
        n(1)
        ```

        ## Instead
        Call a procedure, function or primitive, or drop the parentheses.
        """),
    # ---- E5xx / W5xx duplicates and structure ----
    _rule("E403", "wrong-prop-type", """
        ## What it does
        Reports a script assigning a literal of the wrong type to a prop whose kinds declare its
        type (a number to a `bool` prop, `true` to an `int` prop), or a record naming a
        component of another kind where a kind-typed prop (`target: room_tile`) wants that kind.

        ## Why it matters
        The game runs on with a value no rule expects: `p.hidden = 1` is true to `if p.hidden`
        but not equal to `true`, so some checks see the state and others do not.

        ## Example
        ```
        who.hidden = 1
        ```

        ## Instead
        ```
        who.hidden = true
        ```
        """),
    _rule("E404", "id-as-string", """
        ## What it does
        Reports a string literal where an entity id or a declared name is wanted: an argument
        of a primitive whose parameter is an entity, a string naming a component given to a
        procedure or function, or a string assigned to a prop holding names.

        ## Why it matters
        Names are checked only when written as names: a misspelt id inside quotes reaches the
        game and fails (or finds nothing) when the line runs.

        ## Example
        ```
        intruder_enters(i, "slot_storage")
        ```

        ## Instead
        ```
        intruder_enters(i, slot_storage)
        ```
        """),
    _rule("E500", "duplicate-id", """
        ## What it does
        Reports an id declared twice: two components, kinds, zones, procedures or translation
        keys with the same name in the loaded modules (without `replace`); also a procedure, a
        function and a phase that share a name (reported at the second declaration), and a
        component whose id is a player's own (`player1`, `player2`, …).

        ## Why it matters
        One of the two would silently win, depending on the load order; a call `name(...)` must
        mean one thing (a hook `instead of name` needs a procedure, a modifier a function).

        ## Example
        ```yaml
        components:
          - {id: gem, kind: card}
          - {id: gem, kind: card}
        ```

        ## Instead
        Rename one, merge them with `count:`, or say `replace: true` in a later module.
        """),
    _rule("E501", "deck-count-mismatch", """
        ## What it does
        Reports a zone whose declared number of cards differs from the number of components
        placed in it (the sum of their `count`).

        ## Why it matters
        A deck with a card too many or too few changes the odds of the game.

        ## Example
        ```yaml
        zones:
          deck: {visibility: hidden, count: 10}
        components:
          - {id: gem, kind: card, count: 9, zone: deck}
        ```

        ## Instead
        Fix the counts so that they add up to the declared size.
        """),
    _rule("W502", "unreachable-code", """
        ## What it does
        Warns about statements that can never run: after `return`, `break` or `continue` in
        the same block.

        ## Why it matters
        Dead code is usually a mistake (a misplaced `return`) and confuses readers.

        ## Example
        ```
        proc turn(p):
            return
            p.score += 1
        ```

        ## Instead
        Remove the dead statements or move the `return`.
        """),
    _rule("W503", "unused-procedure", """
        ## What it does
        Warns about a procedure or function that nothing calls: no script, step, hook, action
        or `entry` refers to it.

        ## Why it matters
        It is dead weight, or a step or call was forgotten.

        ## Example
        ```
        proc bonus_step():
            pass
        ```

        ## Instead
        Call it (for example add `step bonus_step` to a phase) or delete it.
        """),
    _rule("W504", "unused-component", """
        ## What it does
        Warns about a component that is placed in no zone and that no script or YAML field
        refers to.

        ## Why it matters
        An entity nobody can reach never takes part in the game.

        ## Example
        ```yaml
        components:
          - {id: spare_gem, kind: card}
        ```

        ## Instead
        Give it a starting `zone:`, refer to it, or delete it.
        """),
    _rule("W506", "unlaid-link", """
        ## What it does
        Warns about a component of a link kind without `ends` in rules that never call
        `connect`.

        ## Why it matters
        A link without `ends` is laid during play by `connect`; if no rule does that, it never
        joins anything, and most likely its `ends` were forgotten.

        ## Example
        ```yaml
        components:
          - {id: hall_to_vault, kind: path}
        ```

        ## Instead
        Give it `ends: [a, b]` (a printed link), or lay it in play with `connect(a, b, link)`.
        """),
    _rule("W507", "missing-link-label", """
        ## What it does
        Warns about a component of a kind with `graph: {links, labels, part}` whose printed
        links of those kinds do not carry every one of `labels` (a board's room without a
        way out numbered 3).

        ## Why it matters
        A rule that picks a way out by its label (a die roll, an event's number) finds none.
        A board may leave a number out on purpose, so this is a warning.

        ## Example
        ```yaml
        kinds:
          room: {graph: {links: [path], labels: [1, 2]}}
          path: {link: true}
        components:
          - {id: hall, kind: room}
          - {id: vault, kind: room}
          - {id: hall_vault, kind: path, ends: [hall, vault], labels: [1, 1]}
        ```

        ## Instead
        Give every label at each end: `labels: [[1, 2], [1, 2]]`.
        """),
    _rule("E508", "duplicate-link-label", """
        ## What it does
        Reports a component of a kind with `graph:` that carries one of `labels` on two of its
        links (a board's room with two ways out numbered 2).

        ## Why it matters
        A rule that picks a way out by its label cannot tell which is meant.

        ## Example
        ```yaml
        components:
          - {id: hall_vault, kind: path, ends: [hall, vault], labels: [1, [1, 2]]}
          - {id: hall_cellar, kind: path, ends: [hall, cellar], labels: [1, [1, 2]]}
        ```

        ## Instead
        Keep each label on one link: `labels: [2, [1, 2]]` for the second.
        """),
    _rule("E509", "unreachable-node", """
        ## What it does
        Reports a component of a kind with `graph:` that its links of the named kinds do not
        join to the others of the same `part` (a board's room no path leads to).

        ## Why it matters
        Nothing can ever reach it: a link was forgotten or ends at the wrong component.

        ## Example
        ```yaml
        components:
          - {id: cellar, kind: room}
        ```

        ## Instead
        Link it to the others: `- {id: hall_cellar, kind: path, ends: [hall, cellar], labels: [2, [1, 2]]}`.
        """),
    _rule("E510", "wrong-kind-in-zone", """
        ## What it does
        Reports a component that starts in a zone whose `holds:` does not list its kind, or
        whose `where:` asks for a prop value it lacks (a red item in the yellow item deck).

        ## Why it matters
        The rules that draw from a zone run each card as the kind the zone holds: a card of
        another kind fails when drawn, deep inside the rules that drew it and far from the card.

        ## Example
        ```
        zones:
          event_deck: {visibility: hidden, holds: [event_card]}
        components:
          - {id: weakness_light, kind: weakness_card, zone: event_deck}
        ```

        ## Instead
        ```
        components:
          - {id: weakness_light, kind: weakness_card, zone: weakness_deck}
        ```
        """),
    _rule("E505", "misplaced-statement", """
        ## What it does
        Reports `return` outside a procedure or script, and `break` or `continue` outside a
        loop.

        ## Why it matters
        The statement has no scope to leave, so its meaning is undefined.

        ## Example
        ```
        proc turn(p):
            if p.alive:
                break
        ```

        ## Instead
        ```
        proc turn(p):
            if p.alive:
                return
        ```
        """),
    # ---- E6xx / W6xx i18n ----
    _rule("W600", "missing-translation", """
        ## What it does
        Warns about a translation key that one language file has and another lacks, and about a
        component with no name in the English catalog (its title on cards and screens). The
        languages asked for are those the module's `languages:` names (and any it has a file
        for); without `languages:`, every language of the modules loaded.

        ## Why it matters
        Players of that language would see the English text, or the raw id.

        ## Example
        ```yaml
        # i18n/en.yaml
        alarm: "{who} hears an alarm"
        # i18n/pl.yaml has no `alarm`
        ```

        ## Instead
        Add the key to every language file of the module, name every component in
        `i18n/en.yaml`, or say which languages the module ships: `languages: [en]` in module.yaml.
        """),
    _rule("W601", "unused-translation-key", """
        ## What it does
        Warns about a translation key that no script, YAML field or engine message uses.

        ## Why it matters
        Unused keys go stale and cost translators time.

        ## Example
        ```yaml
        old_message: "This is never shown"
        ```

        ## Instead
        Delete the key from every language file, or use it.
        """),
    _rule("E602", "placeholder-mismatch", """
        ## What it does
        Reports a translation whose `{placeholders}` differ from those of the same key in the
        module's first language (or from the keyword arguments passed by `log`).

        ## Why it matters
        A missing placeholder hides information; an extra one fails to format.

        ## Example
        ```yaml
        # en.yaml
        alarm: "{who} hears an alarm"
        # pl.yaml
        alarm: "{kto} słyszy alarm"
        ```

        ## Instead
        Keep placeholder names identical in every language; translate only the text.
        ```yaml
        alarm: "{who} słyszy alarm"
        ```
        """),
    _rule("E603", "bad-placeholder", """
        ## What it does
        Reports a message template field other than a plain `{name}` or a choice of texts (below):
        an attribute (`{who.x}`), an index (`{who[0]}`), a conversion or a format spec
        (`{who:>9}`), a choice whose texts but the last lack their `keys=`, or an unclosed brace.

        ## Why it matters
        Templates are filled with `{name}` substitution and choices only (a choice picks the text
        whose comma-separated keys name the value, else the last: `{n|1=point|points}`);
        anything else would be shown as written, and in a format engine it could reach Python
        objects or make a line of a gigabyte.

        ## Example
        ```yaml
        messages:
          hit: "{who.__class__} takes {n:>999999999} damage"
        ```

        ## Instead
        ```yaml
        messages:
          hit: "{who} takes {n} {n|1=point|points} of damage"
        ```
        Write `{{` and `}}` for a literal brace.
        """),
    _rule("W604", "missing-prompt", """
        ## What it does
        Warns about a parameter of an action (`action walk(who, to in exits(who))`) with no
        prompt message in the English catalog: the message keyed `action.parameter`
        (`walk.to`), the question a player is asked when choosing it.

        ## Why it matters
        Without it the terminal and the web page ask with the action's and the parameter's
        names alone ("walk: choose to"), which reads badly in every language.

        ## Example
        ```
        action walk(who, to in exits(who)) cost 1:
            move(who, to)
        ```

        ## Instead
        ```yaml
        # i18n/en.yaml
        messages:
          walk.to: "Walk to which room?"
        ```
        Add the same key to each language the module ships (W600 says which lack it).
        """),
    # ---- E7xx layering ----
    _rule("E700", "missing-required-module", """
        ## What it does
        Reports a module in `requires:` that cannot be found.

        ## Why it matters
        The module builds on components and procedures it cannot load.

        ## Example
        ```yaml
        requires: [bsae]
        ```

        ## Instead
        ```yaml
        requires: [base]
        ```
        """),
    _rule("E701", "module-cycle", """
        ## What it does
        Reports modules that require each other in a cycle.

        ## Why it matters
        There is no order in which to load them.

        ## Example
        ```yaml
        # a/module.yaml
        requires: [b]
        # b/module.yaml
        requires: [a]
        ```

        ## Instead
        Move what both need into a third module that both require.
        """),
    _rule("E702", "conflicting-replacements", """
        ## What it does
        Reports two modules loaded together that both replace (or remove) the same component,
        procedure or phase step, when neither requires the other.

        ## Why it matters
        The result would depend on the load order, which modders do not control.

        ## Example
        ```
        # expansion_a/rules.nem and expansion_b/rules.nem
        replace proc noise_roll(who):
            pass
        ```

        ## Instead
        Make one module require the other, or declare them in `conflicts:`.
        """),
    _rule("E703", "engine-version-out-of-range", """
        ## What it does
        Reports a module whose `engine:` range excludes the running engine's version (or is
        not a valid version range).

        ## Why it matters
        The module was written for another engine and may use features it lacks.

        ## Example
        ```yaml
        engine: ">=2,<3"
        ```

        ## Instead
        Test the module with this engine and widen the range, or upgrade the engine.
        """),
    _rule("E704", "conflicting-modules", """
        ## What it does
        Reports two loaded modules of which one lists the other in `conflicts:`.

        ## Why it matters
        The module's author declared that they cannot be combined.

        ## Example
        ```yaml
        # coop/module.yaml
        conflicts: [traitor]
        ```

        ## Instead
        Load only one of the two.
        """),
    _rule("E705", "bad-requires-path", """
        ## What it does
        Reports a `requires:` entry that is neither a module id nor a folder path relative to the
        requiring module: an absolute path, or a path that is not a module folder.

        ## Why it matters
        A module must load the same from any working directory and on any machine; an absolute path
        reads whatever the machine has there.

        ## Example
        ```yaml
        requires: [/home/me/mods/base]
        ```

        ## Instead
        ```yaml
        requires: [base]          # a module id
        requires: [../my_base]    # a folder next to this module
        ```
        Absolute paths load only with `load_ruleset(..., absolute_requires=True)`.
        """),
    # ---- W8xx bounds ----
    _rule("W800", "unbounded-loop", """
        ## What it does
        Warns about a `while` loop: only the engine's step budget bounds it.

        ## Why it matters
        A loop whose condition never becomes false stops the game with a budget error.

        ## Example
        ```
        while deck_size(deck) > 0:
            draw(p)
        ```

        ## Instead
        Iterate over a finite list or repeat a fixed number of times.
        ```
        repeat size(deck):
            draw(p)
        ```
        """),
    _rule("E801", "file-too-large", """
        ## What it does
        Reports a module file larger than the limit (4,000,000 bytes); its size is checked before
        it is read.

        ## Why it matters
        A huge file would take the loader's memory and time; no real module file comes near.

        ## Example
        ```
        rulesets/mymod/cards.yaml:1:1: E801 file too large (9,000,000 bytes; limit 4,000,000)
        ```

        ## Instead
        Split the file into several files.
        """),
    _rule("E802", "yaml-alias-expansion", """
        ## What it does
        Reports a YAML file whose anchors and aliases (`&a`, `*a`) expand to more than 1,000,000
        nodes or 20,000,000 characters of keys and scalars (an alias bomb), or that nests deeper
        than the limit.

        ## Why it matters
        Each alias repeats its anchor's content; a few lines can expand to billions of nodes and hang
        every tool that reads the module.

        ## Example
        ```yaml
        a: &a [x, x, x, x, x, x, x, x, x]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
        # ... nine levels: 387 million nodes
        ```

        ## Instead
        Write the data out, or use few aliases.
        """),
    _rule("E803", "too-many-components", """
        ## What it does
        Reports a component `count` above 10,000, or a module whose components make more than
        100,000 entities in all. The entities are counted as the component files are read: at the
        component that passes the limit, reading stops (no later component or file is parsed).

        ## Why it matters
        Every copy is an entity in every game state: a count of 100,000,000 exhausts memory at the
        first game.

        ## Example
        ```yaml
        - {id: coin, kind: token, count: 100000000, zone: bank}
        ```

        ## Instead
        Model a large quantity as a counter or a prop, not as that many entities.
        """),
    _rule("E804", "value-too-large", """
        ## What it does
        Reports a literal beyond the limits a script's values live in: an integer beyond
        ±(2**63 - 1), a string longer than 100,000 characters; also a message template with more
        than 100 fields.

        ## Why it matters
        Values are copied into every save and view; at run time the same limits stop a script that
        grows an integer or a list without bound (a rules error, R100).

        ## Example
        ```
        let n = 99999999999999999999999999
        ```

        ## Instead
        Keep numbers game-sized.
        """),
    _rule("E805", "nesting-too-deep", """
        ## What it does
        Reports a script nested deeper than 64 levels (expressions inside expressions, blocks inside
        blocks, a run of signs like `- - - 1`).

        ## Why it matters
        Deep nesting cannot be compiled safely and no rule needs it.

        ## Example
        ```
        let n = - - - - - - - - - - - - - - - - - - - - - - - - - - 1   # x300
        ```

        ## Instead
        Split the expression with `let` or a function.
        """),
    _rule("E806", "bad-player-range", """
        ## What it does
        Reports `players:` whose `min` is below 1, whose `max` is below `min`, or whose `max` is
        above 64.

        ## Why it matters
        A game of zero players cannot take a turn (it failed later with a division by zero).

        ## Example
        ```yaml
        players: {min: 0, max: 4}
        ```

        ## Instead
        ```yaml
        players: {min: 1, max: 4}
        ```
        """),
    # ---- E9xx the linter itself ----
    _rule("E807", "counter-out-of-bounds", """
        ## What it does
        Reports a script setting a counter to a literal number outside the `min`..`max` its
        YAML declares.

        ## Why it matters
        Setting a counter beyond its bounds fails the game when the line runs (or, with
        `clamp: true`, silently stores another number).

        ## Example
        ```
        counters:
          time: {min: 0, max: 15, start: 0}
        ```
        ```
        time = 20
        ```

        ## Instead
        ```
        time = 15
        ```
        """),
    _rule("E999", "internal-error", """
        ## What it does
        Reports a crash inside the linter or the loader.

        ## Why it matters
        It is a bug of nemesis-rules, not of your module; the files were not fully checked.
        `nemesis-lint` exits with status 2.

        ## Example
        ```
        rulesets:1:1: E999 internal error: RecursionError: maximum recursion depth exceeded
        ```

        ## Instead
        Report it with the file that triggers it. Set `NEMESIS_LINT_TRACEBACK=1` to see
        the Python traceback.
        """),
)

BY_CODE: dict[str, LintCode] = {c.code: c for c in CODES}
BY_NAME: dict[str, LintCode] = {c.name: c for c in CODES}

INTERNAL_ERROR = BY_CODE["E999"]
UNREADABLE_FILE = BY_CODE["E104"]
FATAL_CODES = frozenset({INTERNAL_ERROR.code, UNREADABLE_FILE.code})


def lookup(code_or_name: str) -> LintCode | None:
    """The lint code with this code (any case) or name, or None."""
    key = code_or_name.strip()
    return BY_CODE.get(key.upper()) or BY_NAME.get(key.lower())


def suggest(code_or_name: str) -> str:
    """A did-you-mean hint for an unknown code or name."""
    return did_you_mean(code_or_name, [*BY_CODE, *BY_NAME])


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise RuntimeError(f"lint code registry: {message}")


def _check_registry() -> None:
    """Fail at import time when an entry breaks the registry's conventions."""
    _require(len(BY_CODE) == len(CODES), "duplicate code")
    _require(len(BY_NAME) == len(CODES), "duplicate name")
    for c in CODES:
        _require(bool(re.fullmatch(r"[EW][1-9]\d\d", c.code)), f"bad code {c.code}")
        _require(bool(re.fullmatch(r"[a-z]+(-[a-z0-9]+)*", c.name)), f"bad name {c.name}")
        _require(not c.name.startswith(("no-", "disallow")), f"{c.name} must name the fault")
        missing = [s for s in SECTIONS if not section(c.doc, s)]
        _require(not missing, f"{c.code} lacks the doc sections {missing}")


_check_registry()

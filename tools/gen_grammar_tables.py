"""Write grammar/nemesis.tables, the grammar's LALR tables that ship with the package, so a
process with no cache folder loads its parser instead of building it (`--check`: fail if the
file is stale: another grammar, other parser options or another version of lark).

The tables are keyed by the grammar's text, the options and lark's version (nemesis_rules/dsl/
parse.py `tables_key`); the parser builds its own when they do not match, so a stale file is
slower, never wrong. The bytes differ from run to run (set order), the tables' meaning does not."""

from __future__ import annotations

import sys

from nemesis_rules.dsl.parse import shipped_tables, shipped_tables_problem
from nemesis_rules.paths import grammar_file, grammar_tables_file


def main(argv: list[str]) -> int:
    grammar = grammar_file().read_text(encoding="utf-8")
    target = grammar_tables_file()
    if "--check" in argv:
        problem = shipped_tables_problem(grammar, target)
        if problem:
            print(f"{target} is stale ({problem}): run python tools/gen_grammar_tables.py", file=sys.stderr)
            return 1
        return 0
    target.write_bytes(shipped_tables(grammar))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Write each module's card-coverage table into its README (see nemesis_rules/coverage.py).

Usage:
    python tools/coverage_report.py                 # every module under rulesets/ with a coverage.toml
    python tools/coverage_report.py base            # one module (an id under rulesets/ or a folder)
    python tools/coverage_report.py --check         # exit 1 if a README's table is stale or the
                                                    # coverage.toml disagrees with the components
    python tools/coverage_report.py --print base    # print the table instead of writing it
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from nemesis_rules.coverage import (  # noqa: E402
    COVERAGE_FILE,
    END,
    START,
    CoverageError,
    render,
    report,
    splice,
)
from nemesis_rules.paths import rulesets_dir  # noqa: E402


def module_dir(module: str) -> Path:
    path = Path(module)
    if path.is_dir():
        return path
    return rulesets_dir() / module


def default_modules() -> list[str]:
    return sorted(p.parent.name for p in rulesets_dir().glob(f"*/{COVERAGE_FILE}"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help="module ids or folders (default: all with a coverage.toml)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is stale or has problems")
    parser.add_argument("--print", dest="show", action="store_true", help="print the tables, write nothing")
    args = parser.parse_args(argv)
    status = 0
    for module in args.modules or default_modules():
        readme = module_dir(module) / "README.md"
        try:
            rep = report(module if Path(module).is_dir() else module)
            table = render(rep)
            if args.show:
                print(table)
                continue
            old = readme.read_text(encoding="utf-8") if readme.is_file() else ""
            # a module without a README gets one holding just the table, to be written around
            base = old or f"# {rep.module}\n\n## Coverage\n\n{START}\n{END}\n"
            new = splice(base, table)
        except CoverageError as err:
            print(f"{module}: {err}", file=sys.stderr)
            status = 1
            continue
        for problem in rep.problems:
            print(f"{module}: {problem}", file=sys.stderr)
            status = 1
        if args.check:
            if new != old:
                print(f"{readme} is stale: run python tools/coverage_report.py {module}", file=sys.stderr)
                status = 1
        elif new != old:
            readme.write_text(new, encoding="utf-8")
            print(f"wrote {readme}")
    return status


if __name__ == "__main__":
    sys.exit(main())

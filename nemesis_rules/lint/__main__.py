"""`python -m nemesis_rules.lint`: the same as the `nemesis-lint` command."""

from nemesis_rules.lint.cli import main

raise SystemExit(main())

"""`python -m nemesis_rules.cli` runs the `nemesis` command."""

import sys

from nemesis_rules.cli.main import main

sys.exit(main())

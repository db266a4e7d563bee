"""Engine benchmarks: the same code as `nemesis bench` (see nemesis_rules/cli/bench.py).

    python tools/bench.py [RULESET ...] [--players N] [--games G] [--runs R]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a source checkout without installing
    sys.path.insert(0, str(ROOT))

from nemesis_rules.cli.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))

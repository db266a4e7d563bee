import sys

from nemesis_rules.lsp import main

sys.exit(main())

"""The language server for the rules language (`nemesis-lsp`); needs the `lsp` extra."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from nemesis_rules.lsp import server
    except ImportError as error:
        sys.stderr.write(f"nemesis-lsp: {error.name or error} is not installed; "
                         "install the editor support with: pip install 'nemesis-rules[lsp]'\n")
        return 2
    return server.main()

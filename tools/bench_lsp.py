"""How fast the language server answers: diagnostics after a change to a base file.

    python tools/bench_lsp.py [FILE] [--changes N]

Starts `nemesis-lsp` over stdio with pygls's client (as an editor does), opens FILE (default
rulesets/nemesis_core/rules/combat.nem), then sends N changes, alternately adding a misspelt call and
removing it, and times each change until its diagnostics arrive. The first open (reading all of
the module and what it requires) is shown apart. The target: a median within 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parents[1]
TARGET_MS = 300


async def bench(path: Path, changes: int) -> None:
    client = LanguageClient("bench", "0")
    arrived: asyncio.Queue = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def _published(params: lsp.PublishDiagnosticsParams) -> None:
        arrived.put_nowait((time.perf_counter(), params.diagnostics))

    await client.start_io(sys.executable, "-m", "nemesis_rules.lsp", cwd=str(ROOT))
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    uri, text = from_fs_path(str(path.resolve())), path.read_text(encoding="utf-8")
    start = time.perf_counter()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "nemesis", 1, text)))
    done, found = await arrived.get()
    print(f"{path}: first check (whole module read and parsed) {1000 * (done - start):.0f} ms, "
          f"{len(found)} finding(s)")
    times = []
    for i in range(changes):
        broken = i % 2 == 0
        new = text + ("\nproc bench_probe():\n    rol(1)\n" if broken else "")
        start = time.perf_counter()
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=i + 2, uri=uri),
            [lsp.TextDocumentContentChangeWholeDocument(text=new)]))
        done, found = await arrived.get()
        assert any(d.code == "E301" for d in found) == broken, "the change was not seen"
        times.append(1000 * (done - start))
    median = statistics.median(times)
    print(f"after a change: median {median:.0f} ms, min {min(times):.0f} ms, max {max(times):.0f} ms "
          f"over {changes} changes (target {TARGET_MS} ms: {'met' if median <= TARGET_MS else 'NOT met'})")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=ROOT / "rulesets" / "nemesis_core" / "rules" / "combat.nem")
    parser.add_argument("--changes", type=int, default=10)
    args = parser.parse_args(argv)
    asyncio.run(bench(args.file, args.changes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

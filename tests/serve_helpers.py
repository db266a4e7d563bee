"""Starting `nemesis serve` on the loopback for tests, and talking to it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.conftest import TOY

ADDRESS = re.compile(r"http://127\.0\.0\.1:(\d+)/")


@contextmanager
def running_server(data: Path, *allowed: Path):
    """`nemesis serve` on 127.0.0.1 and a free port, in its own process; yields the port."""
    args = [sys.executable, "-m", "nemesis_rules.cli", "serve", "--host", "127.0.0.1", "--port", "0",
            "--data", str(data), *(a for p in (TOY, *allowed) for a in ("--allow-module", str(p)))]
    with tempfile.TemporaryFile("w+") as errors:  # a file, not a pipe: a full pipe would block it
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            line = proc.stdout.readline()
            found = ADDRESS.search(line)
            if not found:
                proc.wait(timeout=20)
                errors.seek(0)
                raise AssertionError(f"no address in {line!r}; stderr: {errors.read()}")
            yield int(found.group(1))
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def connect(stack: ExitStack, port: int, close_timeout: float = 10):
    """A client connection, closed when `stack` closes; the server's welcome already read."""
    from websockets.sync.client import connect as ws_connect
    ws = stack.enter_context(ws_connect(f"ws://127.0.0.1:{port}/ws", open_timeout=20, close_timeout=close_timeout))
    assert receive(ws)["type"] == "welcome"
    return ws


def receive(ws, timeout: float = 20) -> dict:
    return json.loads(ws.recv(timeout=timeout))


def ask(ws, message: dict) -> dict:
    ws.send(json.dumps(message))
    return receive(ws)

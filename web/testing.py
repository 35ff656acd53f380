"""Driving a real server from tests and benchmarks: a subprocess on loopback.

``ServerProcess`` runs ``python -m web`` on a free local port with its own
database, waits until it answers, and can be stopped gently or killed (the
restart test kills it in the middle of a hand). ``signup`` returns the
session cookie of a new account.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m web`` on 127.0.0.1; use as a context manager or call start/stop."""

    def __init__(self, db_path: str | Path, port: int | None = None, *args: str) -> None:
        self.db_url = f"sqlite:///{Path(db_path).resolve()}"
        self.port = port or free_port()
        self.args = args
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 20.0) -> ServerProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "web", "--port", str(self.port), "--db", self.db_url,
             "--log-level", "warning", "--tick", "0.2", *self.args],
            cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with code {self.proc.returncode}")
            try:
                urllib.request.urlopen(self.url + "/static/index.html", timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not answer on port {self.port} in {timeout} s")

    def stop(self, kill: bool = False) -> None:
        """Stop the server; ``kill`` ends it abruptly (SIGKILL), as a crash would."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def memory(self) -> dict[str, int]:
        """Resident memory of the server now and at its peak, in KiB (Linux)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return {k: int(fields[k].split()[0]) for k in ("VmRSS", "VmHWM")}

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def post(base_url: str, path: str, body: dict, cookie: str | None = None) -> tuple[dict, str]:
    """POST JSON; the answer and the session cookie it set (if any)."""
    req = urllib.request.Request(base_url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json",
                                          **({"Cookie": cookie} if cookie else {})})
    with urllib.request.urlopen(req, timeout=30) as res:
        set_cookie = res.headers.get("Set-Cookie", "")
        return json.loads(res.read()), set_cookie.split(";", 1)[0]


def get(base_url: str, path: str, cookie: str) -> dict:
    req = urllib.request.Request(base_url + path, headers={"Cookie": cookie})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def signup(base_url: str, name: str, password: str = "password123") -> str:
    """Make an account; its session cookie ("cardrl_session=...")."""
    return post(base_url, "/api/signup", {"name": name, "password": password})[1]

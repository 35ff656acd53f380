"""Driving a real server from tests and benchmarks: a subprocess on loopback.

``ServerProcess`` runs ``python -m cardrl.web`` on a free local port with its own
database, waits until it answers, and can be stopped gently or killed (the
restart test kills it in the middle of a hand). ``signup`` returns the
session cookie of a new account. ``PostgresCluster`` starts a throwaway
PostgreSQL server (Debian's ``postgresql`` package) in a temporary folder,
listening on loopback only, so the storage tests run on PostgreSQL as well
as SQLite; ``postgres_url()`` gives each test a fresh database on it.
"""

from __future__ import annotations

import atexit
import glob
import itertools
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

POSTGRES_ENV = "CARDRL_TEST_POSTGRES"  # a server URL to use instead of a throwaway cluster


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``python -m cardrl.web`` on 127.0.0.1; use as a context manager or call start/stop."""

    def __init__(self, db: str | Path, port: int | None = None, *args: str) -> None:
        """``db``: a database URL, or the path of a SQLite file."""
        self.db_url = db if isinstance(db, str) and "://" in db \
            else f"sqlite:///{Path(db).resolve()}"
        self.port = port or free_port()
        self.args = args
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 20.0, **popen) -> ServerProcess:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cardrl.web", "--port", str(self.port), "--db", self.db_url,
             "--log-level", "warning", "--tick", "0.2", *self.args],
            env={**os.environ, "PYTHONUNBUFFERED": "1"}, **popen)
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


# ---------------------------------------------------------------- PostgreSQL
def _postgres_bin(tool: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}")) or \
        ([shutil.which(tool)] if shutil.which(tool) else [])
    if not found:
        raise RuntimeError(f"PostgreSQL's {tool} is missing: install Debian's postgresql "
                           "package (`make test` does)")
    return found[-1]


class PostgresCluster:
    """A throwaway PostgreSQL server: a temporary folder, loopback only, trust auth.

    initdb refuses to run as root, so under root the cluster belongs to the
    ``postgres`` system user the Debian package creates (``runuser``).
    """

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="cardrl-pg-"))
        self.data = self.dir / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        self.user = "postgres" if self._as else pwd.getpwuid(os.geteuid()).pw_name
        self.started = False

    def _run(self, *cmd: str) -> None:
        done = subprocess.run([*self._as, *cmd], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{' '.join(cmd[:2])} failed: {done.stderr or done.stdout}")

    def start(self) -> PostgresCluster:
        self._run(_postgres_bin("initdb"), "-D", str(self.data), "-U", self.user,
                  "--auth=trust", "--no-sync", "-E", "UTF8")
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   f"-c unix_socket_directories={self.dir} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off "
                   "-c max_connections=300")  # the load benchmark's servers and lanes
        self._run(_postgres_bin("pg_ctl"), "-D", str(self.data), "-o", options, "-w",
                  "-t", "60", "-l", str(self.dir / "log"), "start")
        self.started = True
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.started:
            self.started = False
            subprocess.run([*self._as, _postgres_bin("pg_ctl"), "-D", str(self.data), "-m",
                            "immediate", "-w", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


_CLUSTER: list[PostgresCluster] = []
_NAMES = itertools.count()


def postgres_server() -> str:
    """The URL of a PostgreSQL server for tests: ``$CARDRL_TEST_POSTGRES``, else a
    throwaway cluster started once per process (stopped when the process exits)."""
    if os.environ.get(POSTGRES_ENV):
        return os.environ[POSTGRES_ENV]
    if not _CLUSTER:
        cluster = PostgresCluster()
        atexit.register(cluster.stop)
        _CLUSTER.append(cluster.start())
    return _CLUSTER[0].url()


def postgres_url() -> str:
    """A new, empty database on the test server; its URL."""
    import psycopg

    server = postgres_server()
    name = f"cardrl_test_{os.getpid()}_{next(_NAMES)}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    head, _, _ = server.rpartition("/")
    return f"{head}/{name}"

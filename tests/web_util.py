"""What the web tests share: a settable clock and a connection whose messages the test
reads back (the lobby tests), and the browser the browser tests drive."""

from __future__ import annotations

import json

from cardrl.web.hub import Conn

T0 = 1_000_000.0  # the tests' "now" at the start
CHROMIUM = "/usr/bin/chromium"  # Debian's, which `make test` installs
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


class Clock:
    """The lobby's clock: the test moves ``now`` by hand."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class Person(Conn):
    """A connection whose messages the test reads back."""

    def __init__(self, user_id: int, name: str) -> None:
        super().__init__(user_id, name, None)

    def messages(self) -> list[dict]:
        out = []
        while not self.queue.empty():
            text = self.queue.get_nowait()
            if text is not None:
                out.append(json.loads(text))
        return out

"""Password hashing with the standard library's scrypt (memory-hard, salted).

Stored form: ``scrypt$n$r$p$salt$hash`` (salt and hash base64), so the cost
can be raised later and old hashes still verify.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os

N, R, P = 2**14, 8, 1  # ~16 MiB and tens of milliseconds per hash
_DKLEN = 32


def hash_password(password: str, n: int = N) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=n, r=R, p=P, dklen=_DKLEN,
                            maxmem=256 * n * R)
    b64 = base64.b64encode
    return f"scrypt${n}${R}${P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """True when ``password`` matches ``stored``; constant-time compare."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        n, r, p = int(n), int(r), int(p)
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    want = base64.b64decode(digest)
    got = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=n, r=r, p=p,
                         dklen=len(want), maxmem=256 * n * r)
    return hmac.compare_digest(got, want)

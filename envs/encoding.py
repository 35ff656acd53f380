"""What every observation encoder shares: block layouts and observers' index tables.

An encoder lays its vector out as named blocks, ``LAYOUT = ((name, size), ...)``;
``offsets`` places them and ``describe`` names the feature at an index. An
incremental observer keeps one row per seat in an ``(n, size)`` buffer and
flips a feature in every row at once; ``in_every_row`` computes where.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Layout = Sequence[tuple[str, int]]


def offsets(layout: Layout) -> tuple[dict[str, int], int]:
    """``({block name: first index}, vector size)`` of ``layout``'s blocks, in order."""
    out: dict[str, int] = {}
    o = 0
    for name, size in layout:
        out[name] = o
        o += size
    return out, o


def describe(layout: Layout, offsets: dict[str, int], index: int,
             label: Callable[[str, int, int], str] | None = None) -> str:
    """Which feature ``index`` holds: 'name[i]', or ``label(name, size, i)`` when given."""
    for name, size in layout:
        off = offsets[name]
        if off <= index < off + size:
            return label(name, size, index - off) if label else f"{name}[{index - off}]"
    total = sum(size for _, size in layout)
    raise IndexError(f"observation index {index} out of range 0..{total - 1}")


def in_every_row(row_size: int, n: int, offset: int, seat: int = 0,
                 stride: int = 0) -> tuple[int, ...]:
    """Flat indices, one per row of an ``(n, row_size)`` buffer (row ``me`` belongs to seat
    ``me``), of ``offset + rel * stride`` where ``rel`` is ``seat`` relative to that row."""
    return tuple(me * row_size + offset + ((seat - me) % n) * stride for me in range(n))

"""Counted nouns for messages: ``1 system``, ``2 systems``, never ``1 systems``.

Shared by every stage (like :mod:`evalreport.errors`), so it imports nothing of evalreport.
"""
from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None, *, thousands: bool = True) -> str:
    """``n`` and ``noun`` in the number ``n`` asks for: ``counted(1, "system")`` is ``"1 system"``,
    ``counted(2, "system")`` ``"2 systems"``, ``counted(3, "entry", "entries")`` ``"3 entries"``.
    ``plural`` defaults to ``noun + "s"``; ``thousands``: ``1,000`` rather than ``1000``."""
    number = f"{n:,}" if thousands else str(n)
    return f"{number} {noun if n == 1 else plural or noun + 's'}"

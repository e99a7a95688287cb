"""How deeply a JSON Lines file nests its arrays and objects, read before any parser sees it.

pyarrow's JSON reader recurses once per level of nesting and ends the process with a segmentation
fault somewhere past 10,000 levels (a line such as ``{"label": [[[[...]]]]}``), and Python's ``json``
raises ``RecursionError`` near 1,000. A submission is data: a file that nests more than
:data:`JSON_DEPTH_LIMIT` levels on any line goes to the line-by-line reader, which names the line.

The scan keeps only the bytes ``[ ] { }`` and the line breaks (``bytes.translate``), then counts the
depth within each line; brackets inside JSON strings count too, so the scan can only overstate the
depth (such a file is read line by line, correctly, a little more slowly).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

#: Deeper than this on one line, a JSON Lines file is read line by line, never by pyarrow. Records that
#: evalreport reads nest two levels (an object holding a list of labels).
JSON_DEPTH_LIMIT = 500

_CHUNK = 1 << 24
_DROP = bytes(b for b in range(256) if b not in b"[]{}\n")
_STEP = np.zeros(256, np.int64)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1


def max_line_depth(path: str | Path, *, chunk: int = _CHUNK) -> int:
    """The largest bracket depth reached within one line of the file ``path`` (an upper bound of the
    JSON nesting depth; brackets in strings count)."""
    top, carry = 0, 0            # carry: the depth at the end of the previous chunk, inside an unfinished line
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            kept = np.frombuffer(block.translate(None, _DROP), np.uint8)
            if not len(kept):
                continue
            newline = kept == ord("\n")
            depth = np.cumsum(_STEP[kept]) + carry
            # the depth at the last line break before each position, subtracted: each line counts from 0
            at_break = np.where(newline, np.arange(len(kept)), -1)
            last = np.maximum.accumulate(at_break)
            base = np.where(last >= 0, depth[np.maximum(last, 0)], 0)
            within = depth - base
            top = max(top, int(within.max()))
            carry = int(within[-1])
    return top

"""Aligning the ids of run files to the gold ids: one hash index of the gold ids, probed by every run.

:class:`IdIndex` is the fast path of :func:`evalreport.inputs.readers.read_runs`. pyarrow's
``index_in`` builds a hash table of the gold ids anew for every run (20 runs of 1e6 ids: 20 tables);
here the table is built once and every run is probed with vectorised numpy gathers.

How it stays exact: each id's bytes are read as little-endian 64-bit words straight from the Arrow
buffers (at most :data:`MAX_WORDS` words, i.e. ids up to 64 bytes), hashed by multiply-xorshift
mixing, and looked up in a multi-level direct-address table (a slot shared by several gold ids
sends its ids to the next level, with other bits of the hash; the few left after the last level
are found by binary search). The hash only *proposes* a gold position: every proposal is then
checked word for word and by length against the gold id, so a hash collision can cost time, never
a wrong position. Whatever the fast path cannot settle - an id absent from the gold file, an id
longer than the longest gold id or than 64 bytes, equal hashes among the gold ids (a duplicate id,
or a collision) - makes it answer ``None``, and the caller takes the exact path, which names the
file, line and id in its message. So the messages are the same either way, and a built index
proves that the gold ids are distinct (distinct hashes imply distinct ids).
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["IdIndex", "MAX_WORDS"]

#: Ids up to this many 8-byte words (64 bytes) take the fast path; longer ones the exact one.
MAX_WORDS = 8
_CHUNK = 2 ** 18           # ids hashed and probed at a time: temporaries stay small and in cache
_LEVELS = 6
# odd 64-bit constants (splitmix64's and golden-ratio multipliers); one slot multiplier per level
_C1, _C2, _C3 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_LEVEL_MULT = [np.uint64(m) for m in (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                                      0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53)]
_S29, _S31, _S32 = np.uint64(29), np.uint64(31), np.uint64(32)


def _lengths(arr: pa.Array) -> np.ndarray:
    """Byte length of every string of ``arr`` (a view of its offsets, differenced)."""
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    otype = np.dtype(np.int64 if wide else np.int32)
    offsets = np.frombuffer(arr.buffers()[1], dtype=otype, count=len(arr) + 1, offset=arr.offset * otype.itemsize)
    return np.diff(offsets)


def _words(arr: pa.Array, n_words: int) -> np.ndarray | None:
    """The ids as an (n, n_words) little-endian uint64 matrix (NUL-padded bytes, no copy); None if an id is longer."""
    width = 8 * n_words
    padded = pc.ascii_rpad(arr, width=width, padding="\0")
    if len(padded) and not (_lengths(padded) == width).all():
        return None
    data = padded.buffers()[2]
    if data is None:
        return np.zeros((0, n_words), dtype=np.uint64)
    start = int(np.frombuffer(padded.buffers()[1], dtype=np.int64 if pa.types.is_large_string(padded.type)
                              else np.int32, count=1, offset=padded.offset * (8 if pa.types.is_large_string(padded.type)
                                                                               else 4))[0])
    raw = np.frombuffer(data, dtype=np.uint8, count=len(padded) * width, offset=start)
    if raw.ctypes.data % 8:          # Arrow buffers are 64-byte aligned; a slice may not be
        raw = raw.copy()
    return raw.view("<u8").reshape(len(padded), n_words)


def _hash(lengths: np.ndarray, words: np.ndarray) -> np.ndarray:
    h = lengths.astype(np.uint64) * _C1
    for w in range(words.shape[1]):
        h ^= words[:, w]
        h *= _C2
        h ^= h >> _S31
    h ^= h >> _S32
    h *= _C3
    h ^= h >> _S29
    return h


def _slots(h: np.ndarray, level: int, bits: int) -> np.ndarray:
    out = np.multiply(h, _LEVEL_MULT[level])
    np.right_shift(out, np.uint64(64 - bits), out=out)       # in place: < 2 ** bits, so a valid intp
    return out.view(np.intp) if np.dtype(np.intp).itemsize == 8 else out.astype(np.intp)


class IdIndex:
    """The gold ids' positions, found from any run's ids by hash and verified byte for byte.

    Build with :meth:`build` (``None`` when the fast path does not apply); :meth:`positions` maps a
    run's ids to gold positions, or answers ``None`` when some id is not verified to be a gold id."""

    def __init__(self, lengths, words, levels, rest_hashes, rest_items, has_nul: bool):
        self._lengths = lengths            # (N,) byte lengths of the gold ids
        self._words = words                # (N, W) their padded words
        self._rows = words.view(f"V{8 * words.shape[1]}").reshape(-1)   # one item per id: one gather
        self._has_nul = has_nul            # a gold id holds a NUL byte: lengths must be compared too
        self._levels = levels              # [(bits, table)]: table[slot] = gold position, -1 empty, -2 shared
        self._rest_hashes = rest_hashes    # sorted hashes of the gold ids left after the last level
        self._rest_items = rest_items

    @classmethod
    def build(cls, gold_ids: pa.Array) -> IdIndex | None:
        """The index of ``gold_ids`` (strings, no nulls), or None: ids longer than 64 bytes, or two
        equal hashes (a duplicate id or a collision: the exact path decides which)."""
        gold_ids = _contiguous(gold_ids)
        n = len(gold_ids)
        if n == 0:
            return None
        lengths = _lengths(gold_ids)
        longest = int(lengths.max())
        if longest > 8 * MAX_WORDS:
            return None
        words = _words(gold_ids, max(1, -(-longest // 8)))
        if words is None:
            return None
        lengths = lengths.astype(np.int8 if longest < 128 else np.int16)
        hashes = _hash(lengths, words)
        pos_type = np.int32 if n < 2 ** 31 else np.int64
        items = np.arange(n, dtype=pos_type)
        levels = []
        for level in range(_LEVELS):
            if items.size <= 64:
                break
            bits = max(6, int(np.ceil(np.log2(items.size))) + (level > 0))   # 1 to 2 slots per id, then 2 to 4
            slot = _slots(hashes, level, bits)
            table = np.full(1 << bits, -1, dtype=pos_type)
            table[slot] = items                                    # the last id of a slot wins ...
            table[slot[table[slot] != items]] = -2                 # ... unless the slot is shared
            alone = table[slot] >= 0
            del slot
            levels.append((bits, table))
            items, hashes = items[~alone], hashes[~alone]
        order = np.argsort(hashes, kind="stable")
        hashes, items = hashes[order], items[order]
        if hashes.size > 1 and (hashes[1:] == hashes[:-1]).any():
            return None
        return cls(lengths, words, levels, hashes, items, _has_nul(gold_ids))

    def positions(self, ids: pa.Array) -> np.ndarray | None:
        """Gold position (int64) of every id of ``ids``, or None if some id is not verified to be a gold id."""
        n, n_words = len(ids), self._words.shape[1]
        out = np.empty(n, dtype=np.int64)
        # window by window: a column read in blocks (CSV, TSV) is never copied whole (at 1e7 ids, a
        # contiguous copy of the run's ids would be the peak of the memory of `score`)
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            part = _contiguous(ids.slice(lo, hi - lo))
            lengths = _lengths(part)
            if int(lengths.max()) > 8 * n_words:
                return None
            # NUL padding is unambiguous when no id holds a NUL byte: equal words are then equal ids
            check_lengths = self._has_nul or _has_nul(part)
            words = _words(part, n_words)
            if words is None:
                return None
            found = self._lookup(_hash(lengths, words))
            if found is None or not self._same(found, lengths, words, check_lengths):
                return None
            out[lo:hi] = found
        return out

    def _lookup(self, h: np.ndarray) -> np.ndarray | None:
        found = None
        pending = np.arange(h.size)        # every id of the chunk is still pending
        for level, (bits, table) in enumerate(self._levels):
            got = table[_slots(h, level, bits)]
            if (got == -1).any():          # an empty slot: no gold id has this hash
                return None
            if found is None:
                found = got.astype(np.int64)
                pending = np.flatnonzero(got == -2)
                h = h[pending]
            else:
                found[pending] = got
                keep = np.flatnonzero(got == -2)
                pending, h = pending[keep], h[keep]
            if not pending.size:
                return found
        if found is None:
            found, pending = np.empty(h.size, dtype=np.int64), np.arange(h.size)
        at = np.searchsorted(self._rest_hashes, h)
        if (at >= self._rest_hashes.size).any() or (self._rest_hashes[at] != h).any():
            return None
        found[pending] = self._rest_items[at]
        return found

    def _same(self, pos: np.ndarray, lengths: np.ndarray, words: np.ndarray, check_lengths: bool) -> bool:
        """Whether the gold ids at ``pos`` equal the run's ids (given as lengths and padded words)."""
        if check_lengths and not np.array_equal(self._lengths[pos], lengths):
            return False
        gold = self._rows[pos].view(np.uint64).reshape(words.shape)
        return bool(np.array_equal(gold, words))


def _has_nul(arr: pa.Array) -> bool:
    data = arr.buffers()[2]
    if data is None or not data.size:
        return False
    return int(np.frombuffer(data, dtype=np.uint8).min()) == 0      # (a reduction: no temporary array)


def _contiguous(arr) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    return arr

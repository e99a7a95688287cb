"""Polylines thinned to what a reader can see: the Ramer-Douglas-Peucker simplification (Douglas &
Peucker 1973) of many curves at once, with a cap of points per curve, and the staircase a
precision-recall curve is drawn as.

A drawn curve of 4,000 items has up to 4,000 points, most of which move the line by a fraction of
a pixel. :func:`simplify` keeps each curve's first and last point and then, as Douglas & Peucker
do, the point farthest from the chord of the points kept on either side of it, until every left-out
point lies within ``tolerance`` of the kept polyline (Euclidean distance to the segment, in the
axes' units). Every curve is refined at once, one round per level of the recursion: a round is a
few numpy passes over the points whose segment is not yet close enough, and a segment that is
never looks at again, so the work is bounded by the points times the rounds (at most the cap).
With a cap, a round that would pass it keeps the farthest points first.

Presentation only: the exact curves stay in the tables (``roc_curve.csv``, ``pr_curve.csv``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["simplify", "segment_distance", "staircase"]


def segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Euclidean distance of each point of ``p`` (n, 2) to the segment from ``a`` to ``b`` (n, 2 each).

    Parameters
    ----------
    p, a, b : ndarray
        Points and the ends of their segments, row by row.

    Returns
    -------
    ndarray
        (n,) distances; a segment of length 0 is its point.
    """
    abx, aby = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
    apx, apy = p[:, 0] - a[:, 0], p[:, 1] - a[:, 1]
    length2 = abx * abx + aby * aby
    t = np.clip((apx * abx + apy * aby) / np.where(length2 > 0, length2, 1.0), 0.0, 1.0)
    return np.hypot(apx - t * abx, apy - t * aby)


def simplify(xy: np.ndarray, starts: np.ndarray, tolerance: float, cap: int | None = None) -> np.ndarray:
    """Which points of many polylines to keep so that every point left out lies within ``tolerance``
    of the polyline of its curve's kept points (Ramer-Douglas-Peucker, every curve at once).

    Parameters
    ----------
    xy : ndarray
        (n, 2) finite coordinates, the curves one after another, each in drawing order.
    starts : ndarray
        The index of each curve's first point, increasing, the first 0.
    tolerance : float
        The farthest a left-out point may lie from the kept polyline (>= 0).
    cap : int, optional
        Most points kept per curve (at least 2); a curve that reaches it keeps its farthest points
        and may then depart by more than ``tolerance``.

    Returns
    -------
    ndarray
        (n,) bool: the points kept, each curve's first and last among them.
    """
    n = len(xy)
    keep = np.zeros(n, dtype=bool)
    if n == 0:
        return keep
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.r_[starts[1:], n] - 1
    keep[starts] = keep[ends] = True
    curve_of = np.repeat(np.arange(len(starts)), ends - starts + 1)
    room = np.full(len(starts), np.iinfo(np.int64).max if cap is None else max(int(cap), 2) - 2, dtype=np.int64)
    room[starts == ends] += 1                    # a curve of one point has kept one
    active = np.flatnonzero(~keep)               # the points whose segment may still be too far
    while len(active):
        kept = np.flatnonzero(keep)
        where = np.searchsorted(kept, active)    # the kept point after each active one
        left, right = kept[where - 1], kept[where]
        d = segment_distance(xy[active], xy[left], xy[right])
        # the farthest point of each segment (active points of one segment are contiguous)
        first = np.r_[0, np.flatnonzero(left[1:] != left[:-1]) + 1]
        far = np.maximum.reduceat(d, first)
        seg = np.repeat(np.arange(len(first)), np.diff(np.r_[first, len(active)]))
        open_ = far > tolerance
        hits = np.flatnonzero(open_[seg] & (d == far[seg]))
        best = hits[np.r_[True, seg[hits[1:]] != seg[hits[:-1]]]] if len(hits) else hits
        chosen, curves = active[best], curve_of[active[best]]
        wanted = np.bincount(curves, minlength=len(starts))
        if (wanted <= room).all():
            accepted = np.arange(len(best))
        else:   # the cap: per curve, the farthest of the chosen points up to the room it has left
            order = np.lexsort((-d[best], curves))
            rank = np.arange(len(order)) - np.searchsorted(curves[order], curves[order])
            accepted = order[rank < room[curves[order]]]
        if not len(accepted):
            break
        keep[chosen[accepted]] = True
        room -= np.bincount(curves[accepted], minlength=len(starts))
        # the points of segments that were close enough, or of full curves, are settled
        active = active[open_[seg] & ~keep[active] & (room[curve_of[active]] > 0)]
    return keep


def staircase(x: np.ndarray, y: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The vertices of step curves drawn as straight lines: between two points of a curve, first
    the vertical to the next point's y, then the horizontal to its x (each interval of x carries the
    y of its right end, the steps that average precision sums).

    Parameters
    ----------
    x, y : ndarray
        The points of the curves, one after another.
    starts : ndarray
        The index of each curve's first point, increasing, the first 0.

    Returns
    -------
    (ndarray, ndarray, ndarray)
        The x and y of the vertices, and for each vertex the index of the point it belongs to (a
        corner belongs to the point it leads to).
    """
    n = len(x)
    first = np.zeros(n, dtype=bool)
    first[np.asarray(starts, dtype=np.int64)] = True
    prev = np.r_[0, np.arange(n - 1)]
    corner = ~first & (x != x[prev]) & (y != y[prev])
    owner = np.repeat(np.arange(n), 1 + corner)
    is_corner = np.zeros(len(owner), dtype=bool)
    is_corner[(np.cumsum(1 + corner) - 2)[corner]] = True    # the corner comes before its point
    vx = np.where(is_corner, x[prev][owner], x[owner])
    return vx, y[owner], owner

"""The multi-label findings' sentence on items an example-based measure left out (0/0 items), read
from ``example_skips.csv`` (:func:`evalreport.analyses.multilabel_skips.example_skips`): how many
items each system's value skipped or substituted, and which treatment of such items in
scikit-learn gives the same value, in plain words (left out, counted as 0, counted as 1). Every number comes from the table; nothing is assumed about the policy.
"""
from __future__ import annotations

import pandas as pd

from evalreport.escape import markdown as escape

__all__ = ["skips_sentence"]

#: Systems named per measure (the most items first); the rest are counted.
MAX_SYSTEMS = 2


def _n(x: float) -> str:
    return "undefined" if pd.isna(x) else f"{x:.3f}"


#: scikit-learn's ``zero_division`` settings, as a reader says them.
_WORDS = {"nan": "left out", "0": "counted as 0", "1": "counted as 1"}


def _equals(x) -> list[str]:
    return [z for z in x.split(", ") if z] if isinstance(x, str) else []


def skips_sentence(skips: pd.DataFrame, *, label, order=()) -> str:
    """One findings sentence (Markdown), or "" when no example-based measure met a 0/0 item.

    ``label``: measure id -> its label; ``order``: systems in leaderboard order. Per measure the
    systems with the most such items are named (ties in leaderboard order) and the leader too.
    """
    if skips is None or skips.empty:
        return ""
    rows = skips[skips["zero_division_items"] > 0]
    if rows.empty:
        return ""
    rank = {s: i for i, s in enumerate(order)}
    leader = order[0] if len(order) else None
    policy = str(rows["policy"].iloc[0])
    common = set.intersection(*(set(_equals(e)) for e in rows["equals"]))
    parts = []
    for measure, g in rows.groupby("measure", sort=False):
        g = g.assign(_o=g["system"].map(lambda s: rank.get(s, len(rank)))).sort_values(
            ["zero_division_items", "_o"], ascending=[False, True], kind="stable")
        shown = g.head(MAX_SYSTEMS)
        if leader is not None and leader in set(g["system"]) and leader not in set(shown["system"]):
            shown = pd.concat([shown, g[g["system"] == leader]])
        named = []
        for r in shown.itertuples(index=False):
            others = [f"{_n(getattr(r, f'zero_division_{zd}'))} if counted as {zd}"
                      for zd in ("0", "1") if zd not in _equals(r.equals)]
            named.append(f"{escape(str(r.system))} {int(r.zero_division_items):,} of {int(r.items):,} ({_n(r.value)}"
                         + (f"; {', '.join(others)}" if others else "") + ")")
        more = f" and {len(g) - len(shown)} more systems" if len(g) > len(shown) else ""
        parts.append(f"{escape(label(measure))}: {', '.join(named)}{more}")
    sk = (f"; every such value equals scikit-learn's with those items {_WORDS[sorted(common)[0]]}"
          if common else "")
    if "nan" in common and "example_jaccard" in set(rows["measure"]):
        sk += " (its Jaccard score can only count them as 0 or 1)"
    if policy == "nan":
        head = ("Example-based measures leave out the items where they are 0/0 (policy `nan`" + sk + "; "
                "scikit-learn by default counts such items as 0). Items left out, with the value and, where it "
                "differs, the value if they were counted as 0 or 1")
    else:
        head = (f"Example-based measures count the items where they are 0/0 as the policy `{escape(policy)}` says"
                + sk + ". Items so counted, with the value and, where it differs, the value if they were counted "
                "as 0 or 1")
    return head + " - " + "; ".join(parts) + ". Every system is in example_skips.csv."

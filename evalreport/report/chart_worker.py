"""Draw charts' static images in a process of their own: ``python -m evalreport.report.chart_worker``.

vl-convert holds the GIL while it converts (0.1-0.7 s a chart): drawn in a thread of the report's
process, every image stalls the thread that runs the notebooks (papermill's loop cannot take
the kernel's reply and send the next cell), so the kernel waits for the drawing. In a process
of its own the drawing uses the second core and stalls nobody
(:class:`evalreport.report.kernel.NotebookRunner`).

Protocol, one JSON object per line: the request ``{"spec": SPEC}`` on standard input; the reply
on standard output ``{"mime": MIME, "data": IMAGE, "width": W, "height": H}`` (what
:func:`~evalreport.report.display.chart_image_output` returns: SVG text, or PNG as base64) or
``{"error": MESSAGE}`` (the
text of vl-convert's exception). Anything else the drawing prints goes to standard error.
"""
from __future__ import annotations

import json
import os
import sys


def main() -> int:
    from evalreport.report.display import chart_image_output

    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())       # stray prints must not break a reply
    for line in sys.stdin.buffer:
        try:
            mime, image, width, height = chart_image_output(json.loads(line)["spec"])
            reply = {"mime": mime, "data": image, "width": width, "height": height}
        except Exception as exc:   # vl-convert's errors are plain exceptions (ValueError...)
            reply = {"error": str(exc)}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

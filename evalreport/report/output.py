"""What every rendered report must satisfy, whichever engine made it.

:class:`RenderError` is the one error of rendering. :func:`check_offline` refuses an HTML page
that a browser would complete from the network: ``report.html`` is one self-contained file
that must look the same offline, years later.

What counts as a *load* (refused when it points at ``http://``, ``https://`` or ``//``):
``<script src>``, ``<link href>`` (except purely navigational ``rel`` values such as
``canonical`` or ``license``, which a browser never fetches), ``src`` of ``img``, ``source``,
``iframe``, ``embed``, ``video``, ``audio``, ``track`` and ``input``, ``<video poster>``,
``<object data>``, ``background`` attributes, ``href``/``xlink:href`` of every element but
``<a>``/``<area>`` (SVG ``image``, ``use``, ``feImage``, ``script``), a ``<meta http-equiv=refresh>``
target, every ``srcset`` candidate, and in ``<style>`` elements and ``style`` attributes every
CSS ``url(...)``, ``image-set("...")`` and ``@import``.
The same elements pointing at a relative path (``report_files/libs/...``) are refused too:
``report.html`` is one file, and Quarto links such files when it skipped ``_quarto.yml``
(``embed-resources``), then they are gone with its temporary folder. ``data:`` URIs and
fragments (``#id``) are inside the file.
What is not a load: ``<a href>`` (a link the reader may follow, e.g. to a paper or a DOI),
``<form action>``, and text inside scripts (JSON specs and the Vega bundle mention URLs as
data; a script cannot be judged without running it).
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

from evalreport.errors import EvalReportError

__all__ = ["RenderError", "remote_loads", "check_offline"]


class RenderError(EvalReportError, RuntimeError):
    """A notebook could not be executed or a report could not be rendered."""


_REMOTE = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
_INSIDE = re.compile(r"^\s*(?:$|#|data:|blob:|about:|javascript:)", re.IGNORECASE)
_SRC_TAGS = frozenset({"script", "img", "source", "iframe", "embed", "video", "audio", "track", "input"})
# rel values of <link> that a browser does not fetch
_NAVIGATIONAL_REL = frozenset({"canonical", "alternate", "author", "license", "help", "search", "bookmark",
                               "next", "prev", "external", "me", "privacy-policy", "terms-of-service"})
_CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
_CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?(['"]?)([^'")\s;]+)""", re.IGNORECASE)
# image-set("a.png" 1x, "b.png" 2x): quoted strings inside image-set(...) are URLs too
_CSS_IMAGE_SET = re.compile(r"""image-set\(([^)]*)\)""", re.IGNORECASE)
_CSS_STRING = re.compile(r"""(['"])(.*?)\1""", re.DOTALL)
# srcset candidates are separated by a comma followed by white space (a data: URI holds bare commas)
_SRCSET_SPLIT = re.compile(r",\s+")
_META_URL = re.compile(r"""url\s*=\s*['"]?([^'";]+)""", re.IGNORECASE)


def _css_loads(css: str) -> list[str]:
    found = [m.group(2).strip() for m in _CSS_URL.finditer(css)]
    found += [m.group(2).strip() for m in _CSS_IMPORT.finditer(css)]
    for group in _CSS_IMAGE_SET.finditer(css):
        found += [m.group(2).strip() for m in _CSS_STRING.finditer(group.group(1))]
    return [u for u in found if _REMOTE.match(u)]


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.loads: list[str] = []
        self.local: list[str] = []
        self._in_style = False

    def _add(self, tag: str, attr: str, value: str | None) -> None:
        if value and _REMOTE.match(value):
            self.loads.append(f"<{tag} {attr}={value.strip()}>")
        elif value and not _INSIDE.match(value):
            self.local.append(f"<{tag} {attr}={value.strip()}>")

    def handle_starttag(self, tag, attrs):
        a = {k.lower(): (v or "") for k, v in attrs}
        if tag in _SRC_TAGS:
            self._add(tag, "src", a.get("src"))
        if tag == "link":
            rel = set(a.get("rel", "").lower().split())
            if not rel or not rel <= _NAVIGATIONAL_REL:
                self._add(tag, "href", a.get("href"))
        if tag == "video":
            self._add(tag, "poster", a.get("poster"))
        if tag == "object":
            self._add(tag, "data", a.get("data"))
        if tag not in ("a", "area", "link"):   # SVG image, use, feImage, script ... fetch their href
            for attr in ("href", "xlink:href"):
                self._add(tag, attr, a.get(attr))
        if a.get("background"):
            self._add(tag, "background", a["background"])
        if tag == "meta" and a.get("http-equiv", "").lower() == "refresh":
            target = _META_URL.search(a.get("content", ""))
            if target:
                self._add(tag, "http-equiv=refresh url", target.group(1))
        for candidate in _SRCSET_SPLIT.split((a.get("srcset") or "").strip()):
            self._add(tag, "srcset", candidate.strip().split()[0] if candidate.strip() else "")
        if a.get("style"):
            self.loads += [f"<{tag} style=url({u})>" for u in _css_loads(a["style"])]
        if tag == "style":
            self._in_style = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "style":
            self._in_style = False

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.loads += [f"<style> url({u})" for u in _css_loads(data)]


def _parse(html: str) -> _Loads:
    parser = _Loads()
    parser.feed(html)
    parser.close()
    return parser


def remote_loads(html: str) -> list[str]:
    """Every resource in ``html`` that a browser would fetch from the network, as short descriptions."""
    return _parse(html).loads


def _listed(items: list[str]) -> str:
    return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def check_offline(html: str, name: str = "report.html") -> None:
    """A :class:`RenderError` naming the resources if ``html`` would load anything from the
    network or from files beside it."""
    found = _parse(html)
    if found.loads:
        raise RenderError(f"{name} would load {len(found.loads)} resource(s) from the network "
                          f"({_listed(found.loads)}); a report must work offline, so it was not written")
    if found.local:
        raise RenderError(f"{name} would load {len(found.local)} file(s) from beside it ({_listed(found.local)}); "
                          "a report must be one self-contained file, so it was not written")

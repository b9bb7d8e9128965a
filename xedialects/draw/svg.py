"""A small SVG writer for the plan pictures (`xedialects.draw`): rectangles, text, lines and
groups as plain SVG text, the canvas grows to what was drawn; plus the colour palettes (light
fills under dark text, so labels keep their contrast)."""
from __future__ import annotations

import colorsys
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
INK = "#1a1a1a"
MUTED = "#555555"
EDGE = "#333333"

# 16 light, distinct colours: one per work-item of a subgroup (ColorBrewer Set3 + Paired lights)
LANE_COLOURS = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                "#e5c494", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a", "#fb9a99", "#cab2d6")


def subgroup_colour(i: int, n: int) -> str:
    """A light colour for subgroup i of n (golden-angle hues: neighbours differ)."""
    h = (i * 0.381966) % 1.0
    r, g, b = colorsys.hls_to_rgb(h, 0.82, 0.65)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def ramp(t: float) -> str:
    """Light to dark blue for t in [0, 1] (dispatch order)."""
    lo, hi = (222, 235, 247), (33, 102, 172)
    return "#%02x%02x%02x" % tuple(round(a + (b - a) * t) for a, b in zip(lo, hi))


def text_on(fill: str) -> str:
    """Dark or white text, whichever reads better on `fill`."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _num(v) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") if isinstance(v, float) else str(v)


class Svg:
    """Collects elements; `render()` returns the document sized to its contents plus a margin."""

    def __init__(self, title: str, margin: int = 16):
        self.title = title
        self.parts: list[str] = []
        self.w = 0.0
        self.h = 0.0
        self.margin = margin

    def _grow(self, x, y):
        self.w = max(self.w, x)
        self.h = max(self.h, y)

    def rect(self, x, y, w, h, fill="none", stroke=EDGE, width=1.0, cls=None, tip=None, dash=None, rx=0):
        self._grow(x + w, y + h)
        attrs = (f'x="{_num(x)}" y="{_num(y)}" width="{_num(w)}" height="{_num(h)}" fill="{fill}" '
                 f'stroke="{stroke}" stroke-width="{_num(width)}"')
        if rx:
            attrs += f' rx="{rx}"'
        if dash:
            attrs += f' stroke-dasharray="{dash}"'
        if cls:
            attrs += f' class="{cls}"'
        if tip:
            self.parts.append(f"<rect {attrs}><title>{escape(tip)}</title></rect>")
        else:
            self.parts.append(f"<rect {attrs}/>")

    def text(self, x, y, s, size=13, anchor="start", weight=None, fill=INK, cls=None, italic=False):
        est = len(str(s)) * size * 0.6
        left = x - (est if anchor == "end" else est / 2 if anchor == "middle" else 0)
        self._grow(left + est, y + size * 0.3)
        attrs = f'x="{_num(x)}" y="{_num(y)}" font-size="{size}" fill="{fill}"'
        if anchor != "start":
            attrs += f' text-anchor="{anchor}"'
        if weight:
            attrs += f' font-weight="{weight}"'
        if italic:
            attrs += ' font-style="italic"'
        if cls:
            attrs += f' class="{cls}"'
        self.parts.append(f"<text {attrs}>{escape(str(s))}</text>")

    def line(self, x1, y1, x2, y2, stroke=EDGE, width=1.0, dash=None):
        self._grow(max(x1, x2), max(y1, y2))
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<line x1="{_num(x1)}" y1="{_num(y1)}" x2="{_num(x2)}" y2="{_num(y2)}" '
                          f'stroke="{stroke}" stroke-width="{_num(width)}"{extra}/>')

    def open_group(self, cls: str, label: str | None = None):
        extra = f" data-label={quoteattr(label)}" if label else ""
        self.parts.append(f'<g class="{cls}"{extra}>')

    def close_group(self):
        self.parts.append("</g>")

    def paragraph(self, x, y, lines, size=12, fill=INK, wrap=150, indent="  ") -> float:
        """Text lines wrapped at `wrap` characters (continuations indented); returns the next y."""
        for raw in lines:
            first = True
            words, cur = str(raw).split(" "), ""
            for wd in words:
                if cur and len(cur) + 1 + len(wd) > wrap:
                    self.text(x, y, cur if first else indent + cur, size=size, fill=fill)
                    y += size * 1.35
                    first, cur = False, wd
                else:
                    cur = f"{cur} {wd}" if cur else wd
            self.text(x, y, cur if first else indent + cur, size=size, fill=fill)
            y += size * 1.35
        return y

    def render(self) -> str:
        m = self.margin
        W, H = int(self.w + m + 0.999), int(self.h + m + 0.999)
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
                f'font-family="{FONT}">\n<title>{escape(self.title)}</title>\n'
                f'<rect x="0" y="0" width="{W}" height="{H}" fill="#ffffff" stroke="none" class="background"/>\n')
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + head + "\n".join(self.parts) + "\n</svg>\n"

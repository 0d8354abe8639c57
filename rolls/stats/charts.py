"""Small SVG charts drawn on the server: no charting script on the page.

Each chart is an ``<svg>`` scaled to its box (a 320-unit ``viewBox``, so its text stays about
12 px tall on a 360 px phone) and ``aria-hidden``: the page puts a table with the same numbers
beside it, and that table is what a screen reader reads. Colours are classes of app.css
(the page's Content-Security-Policy allows no inline style).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH = 320
LABEL_WIDTH = 78  # the row labels on the left ("10 dice")
BAR_X = LABEL_WIDTH + 4
BAR_WIDTH = 190
ROW = 26
BAR_HEIGHT = 14
# A label wider than its column ("The GM's rolls (no sheet)", "-2 (negative dice)") would run
# off the chart's left edge: then every label goes on a line of its own above its bar. Widths
# are guessed from the length, at a generous 0.66 em a character (the fonts a phone may pick
# differ), and a label too long for the whole width is cut with an ellipsis: the table beside
# the chart holds it in full.
CHAR_WIDTH = 12 * 0.66
STACKED_BAR_X = 4
STACKED_LABEL = 14  # the label's line above the bar
MAX_LABEL_CHARS = int((WIDTH - 2 * STACKED_BAR_X) / CHAR_WIDTH)


@dataclass(frozen=True)
class Bar:
    """One row of a bar chart: ``value`` and ``marker`` are shares (0-1) of the scale."""

    label: str
    value: float
    text: str
    marker: float | None = None  # what fair dice would give: a tick across the bar


def _svg(height: int, title: str, body: list[str]) -> SafeString:
    # Safe: every text in it went through escape() or is a number.
    return mark_safe(
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" preserveAspectRatio="xMinYMin meet" '
        f'aria-hidden="true" focusable="false"><title>{escape(title)}</title>{"".join(body)}</svg>'
    )


def _share(value: float) -> float:
    return min(1.0, max(0.0, value))


def _fits(label: str, width: float) -> bool:
    return len(label) * CHAR_WIDTH <= width


def _cut(label: str) -> str:
    return label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1].rstrip() + "…"


def bars(title: str, rows: Sequence[Bar], *, centre: float | None = None) -> SafeString:
    """Horizontal bars, one per row, each with its value printed after it and, when given,
    a tick where fair dice would put it. ``centre``: a dashed line across every row (the
    50th percentile of a luck chart; across each bar alone when the labels stand above the
    bars). Labels stand left of their bars when each fits there, else on a line above each
    bar."""
    stacked = not all(_fits(row.label, LABEL_WIDTH - 4) for row in rows)
    bar_x = STACKED_BAR_X if stacked else BAR_X
    bar_width = BAR_WIDTH + (BAR_X - STACKED_BAR_X if stacked else 0)
    row_height = ROW + (STACKED_LABEL if stacked else 0)
    height = row_height * len(rows) + 8
    body: list[str] = []
    centre_x = round(bar_x + bar_width * _share(centre), 1) if centre is not None else None
    for i, row in enumerate(rows):
        top = 4 + row_height * i + (row_height - BAR_HEIGHT) // 2 + (STACKED_LABEL // 2 if stacked else 0)
        middle = top + BAR_HEIGHT / 2
        width = round(bar_width * _share(row.value), 1)
        body.append(
            f'<rect class="chart-track" x="{bar_x}" y="{top}" width="{bar_width}" height="{BAR_HEIGHT}" rx="3"/>'
        )
        if stacked:
            body.append(
                f'<text class="chart-label" x="{bar_x}" y="{top - 4}">{escape(_cut(row.label))}</text>'
            )
        else:
            body.append(
                f'<text class="chart-label" x="{LABEL_WIDTH}" y="{middle}" text-anchor="end" '
                f'dominant-baseline="central">{escape(row.label)}</text>'
            )
        body.append(
            f'<rect class="chart-bar" x="{bar_x}" y="{top}" width="{width}" height="{BAR_HEIGHT}" rx="3"/>'
        )
        if stacked and centre_x is not None:
            # Across this bar only: a line the whole chart down would cross the labels that
            # stand over the bars (issue 44).
            body.append(
                f'<line class="chart-centre" x1="{centre_x}" x2="{centre_x}" '
                f'y1="{top - 1}" y2="{top + BAR_HEIGHT + 2}"/>'
            )
        if row.marker is not None:
            x = round(bar_x + bar_width * _share(row.marker), 1)
            body.append(
                f'<line class="chart-marker" x1="{x}" x2="{x}" y1="{top - 4}" y2="{top + BAR_HEIGHT + 4}"/>'
            )
        body.append(
            f'<text class="chart-value" x="{bar_x + bar_width + 6}" y="{middle}" '
            f'dominant-baseline="central">{escape(row.text)}</text>'
        )
    if centre_x is not None and not stacked:
        body.append(f'<line class="chart-centre" x1="{centre_x}" x2="{centre_x}" y1="0" y2="{height}"/>')
    return _svg(height, title, body)


def columns(title: str, labels: Sequence[str], counts: Sequence[int], expected: float) -> SafeString:
    """Vertical columns with their counts above them and a dashed line at ``expected`` (what
    fair dice give on average): the face counts."""
    height = 170
    base = height - 24
    top = 22
    most = max([*counts, expected, 1])
    step = (WIDTH - 20) / len(counts)
    body: list[str] = []
    for i, (label, count) in enumerate(zip(labels, counts, strict=True)):
        x = round(10 + step * i + step * 0.15, 1)
        width = round(step * 0.7, 1)
        h = round((base - top) * count / most, 1)
        centre = round(x + width / 2, 1)
        body.append(f'<rect class="chart-bar" x="{x}" y="{base - h}" width="{width}" height="{h}" rx="3"/>')
        body.append(
            f'<text class="chart-value" x="{centre}" y="{base - h - 5}" text-anchor="middle">{count}</text>'
        )
        body.append(
            f'<text class="chart-label" x="{centre}" y="{base + 17}" text-anchor="middle">{escape(label)}</text>'
        )
    y = round(base - (base - top) * expected / most, 1)
    body.append(f'<line class="chart-centre" x1="6" x2="{WIDTH - 6}" y1="{y}" y2="{y}"/>')
    return _svg(height, title, body)

"""The SVG charts of the statistics (rolls/stats/charts.py): the dashed 50% line of a luck chart
never crosses a label drawn above its bar (issue 44)."""

from __future__ import annotations

import re

from rolls.stats import charts

LINE = re.compile(r'<line class="chart-centre" x1="[\d.]+" x2="[\d.]+" y1="([\d.-]+)" y2="([\d.-]+)"/>')
LABEL = re.compile(r'<text class="chart-label" x="[\d.]+" y="([\d.-]+)"')
FONT = 12  # app.css: .chart-label is 12px; its baseline is its y


def test_the_dashed_centre_line_spares_the_labels_above_the_bars() -> None:
    rows = [
        charts.Bar("-2 (negative dice)", 0.3, "30%"),
        charts.Bar("The GM's rolls (no sheet)", 0.7, "70%"),
        charts.Bar("3 dice", 0.5, "50%"),
    ]
    svg = str(charts.bars("Luck", rows, centre=0.5))
    lines = [(float(a), float(b)) for a, b in LINE.findall(svg)]
    labels = [float(y) for y in LABEL.findall(svg)]
    assert len(labels) == 3 and lines  # stacked: each label above its bar
    for top, bottom in lines:
        for baseline in labels:
            # The text spans from about a font's height above its baseline to a little below.
            assert bottom <= baseline - FONT or top >= baseline + 3, (top, bottom, baseline)


def test_beside_short_labels_the_centre_line_runs_the_whole_chart() -> None:
    svg = str(
        charts.bars("Luck", [charts.Bar("3 dice", 0.5, "50%"), charts.Bar("4 dice", 0.2, "20%")], centre=0.5)
    )
    assert len(LINE.findall(svg)) == 1

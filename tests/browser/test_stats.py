"""The statistics on a phone at 360x740: opened from the history, a chart with its table beside
it, and a value read from that table (the accessible source of the chart)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from playwright.sync_api import expect

import rolls.log.randomness
from rolls import demo
from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone, join_with_character, open_table, roll
from tests.dice import ScriptedDice


@pytest.mark.browser
def test_a_phone_opens_the_statistics_from_the_history_and_reads_a_chart(
    browsers: Browsers, monkeypatch: pytest.MonkeyPatch, shot: Shot
) -> None:
    # Every die shows a six: each roll of the evening is a success.
    monkeypatch.setattr(rolls.log.randomness, "RNG", ScriptedDice(then=6))
    gm = browsers.gm()
    link = open_table(gm)
    ada = join_with_character(browsers.phone(), link, "Alice", "Ada")
    phone = ada.page
    for _ in range(3):
        roll(phone)

    phone.get_by_role("link", name="Whole history").click()
    phone.get_by_role("link", name="Statistics", exact=True).click()
    expect(phone).to_have_url(re.compile(r"/stats/$"))
    expect(phone.get_by_role("heading", level=1)).to_contain_text("Statistics")
    # The chart is drawn for the eye; its table says the same to a screen reader.
    expect(phone.locator("svg.chart").first).to_have_attribute("aria-hidden", "true")
    faces = phone.locator("#faces-table")
    expect(faces.get_by_role("row", name=re.compile(r"^6 "))).to_contain_text("100%")
    pools = phone.locator("#pools-table tbody tr")
    expect(pools.first).to_contain_text("100%")
    expect(phone.locator("[data-verdict]")).to_contain_text("too few rolls to tell")
    assert_fits_phone(phone)
    shot(phone, "phone-statistics")

    # The session's recap, from the session's line of the history.
    phone.go_back()
    phone.locator(".session-links").get_by_role("link", name="recap").first.click()
    expect(phone.get_by_role("heading", level=1)).to_contain_text("the recap")
    expect(phone.locator("#who-table")).to_contain_text("Ada")
    assert_fits_phone(phone)
    shot(phone, "phone-recap")

    # The GM's big screen: each chart beside its table.
    gm.set_viewport_size({"width": 1920, "height": 1080})
    gm.goto(re.sub(r"/sessions/\d+/recap/$", "/stats/", phone.url))
    expect(gm.locator("#faces-table")).to_be_visible()
    shot(gm, "big-screen-statistics")
    gm.goto(phone.url)
    shot(gm, "big-screen-recap")


# Each <text> of every chart, with its box and the box of its <svg>, in the page's pixels.
CHART_LABELS = """() => [...document.querySelectorAll("svg.chart")].flatMap((svg, index) => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll("text")].map(text => {
        const r = text.getBoundingClientRect();
        return {chart: index, text: text.textContent, left: r.left - box.left, right: box.right - r.right,
                top: r.top - box.top, bottom: box.bottom - r.bottom};
    });
})"""


@pytest.mark.browser
@pytest.mark.parametrize("system", ["doubles", "sets"])
def test_a_played_campaigns_statistics_fit_a_phone_and_every_chart_label_is_inside_its_chart(
    browsers: Browsers, shot: Shot, system: str
) -> None:
    # A campaign as the demo plays it: long names, negative dice (doubles), many pools.
    # Played on a thread of its own: its writes announce entries through async_to_sync, which
    # cannot run on this thread, where Playwright's event loop is.
    plan = demo.Plan(system=system, rolls=140, sessions=3, characters=5, seed=7)
    with ThreadPoolExecutor(1) as pool:
        played = pool.submit(demo.create, plan).result()
    path = f"/c/{played.campaign.pk}/stats/"
    phone = browsers.phone()
    phone.goto(path)
    phone.get_by_label("Username").fill(played.gm.user.username)
    phone.get_by_label("Password").fill(played.gm.password)
    phone.get_by_role("button", name="Log in").click()
    expect(phone).to_have_url(re.compile(re.escape(path) + "$"))
    expect(phone.locator("svg.chart").first).to_be_visible()

    width = phone.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width[0] == width[1] == 360, width
    assert_fits_phone(phone)
    labels = phone.evaluate(CHART_LABELS)
    assert labels
    outside = [each for each in labels if min(each["left"], each["right"], each["top"], each["bottom"]) < 0]
    assert outside == [], outside
    shot(phone, f"phone-statistics-{system}-played")
    phone.locator("svg.chart").first.scroll_into_view_if_needed()
    shot(phone, f"phone-statistics-{system}-played-chart", full_page=False)

    # A character's statistics and a session's, with their own charts, fit as well.
    campaign = played.campaign.pk
    session = played.campaign.sessions.first().pk  # type: ignore[attr-defined]
    for other in (
        f"/c/{campaign}/stats/characters/{played.characters[0].pk}/",
        f"/c/{campaign}/sessions/{session}/recap/",
    ):
        phone.goto(other)
        assert phone.evaluate("() => document.documentElement.scrollWidth") == 360, other
        outside = [
            e for e in phone.evaluate(CHART_LABELS) if min(e["left"], e["right"], e["top"], e["bottom"]) < 0
        ]
        assert outside == [], (other, outside)

    phone.set_viewport_size({"width": 1920, "height": 1080})
    phone.reload()
    labels = phone.evaluate(CHART_LABELS)
    assert [
        each for each in labels if min(each["left"], each["right"], each["top"], each["bottom"]) < 0
    ] == []
    shot(phone, f"big-screen-statistics-{system}-played")


# The dashed 50% line of a luck chart and every label of that chart, in the page's pixels.
CENTRE_CROSSINGS = """() => [...document.querySelectorAll("svg.chart")].flatMap(svg => {
    const labels = [...svg.querySelectorAll("text.chart-label")].map(t => t.getBoundingClientRect());
    return [...svg.querySelectorAll("line.chart-centre")].flatMap(line => {
        const l = line.getBoundingClientRect();
        return labels.filter(r => l.left <= r.right && r.left <= l.right && l.top < r.bottom - 1 && r.top + 1 < l.bottom)
            .map(r => ({line: [l.left, l.top, l.bottom], label: [r.left, r.top, r.right, r.bottom]}));
    });
})"""


@pytest.mark.browser
@pytest.mark.parametrize("system", ["sixes", "kinds", "doubles", "sets", "stars"])
def test_the_statistics_page_never_scrolls_sideways_on_a_phone_and_its_centre_line_spares_the_labels(
    browsers: Browsers, shot: Shot, system: str
) -> None:
    """Issue 44: the statistics page was reported 393 px wide at 360, and its chart's dashed
    50% line crossed the labels drawn above their bars. A campaign of each system, played."""
    plan = demo.Plan(system=system, rolls=60, sessions=2, characters=4, seed=11)
    with ThreadPoolExecutor(1) as pool:
        played = pool.submit(demo.create, plan).result()
    path = f"/c/{played.campaign.pk}/stats/"
    phone = browsers.phone()
    phone.goto(path)
    phone.get_by_label("Username").fill(played.gm.user.username)
    phone.get_by_label("Password").fill(played.gm.password)
    phone.get_by_role("button", name="Log in").click()
    expect(phone).to_have_url(re.compile(re.escape(path) + "$"))
    expect(phone.locator("svg.chart").first).to_be_visible()

    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 360
    assert phone.evaluate(CENTRE_CROSSINGS) == []
    shot(phone, f"phone-statistics-{system}-every-system")

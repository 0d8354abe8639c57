"""The GM's Discord panel on the console, in Chromium: a URL that is not Discord's is refused
next to its field, a saved one is shown masked, the test button answers, and a webhook Discord
turned off shows the GM why. Its picture is README's (docs/img/discord.png)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from rolls.discord import webhooks
from tabletop.models import DiscordWebhook
from tests.browser.conftest import DOCS_SHOTS, SHOTS, Browsers
from tests.browser.flows import assert_fits_phone, in_thread, open_table

TOKEN = "k" * 34 + "Q_-9" * 8 + "z" * 2
TABLE_URL = f"https://discord.com/api/webhooks/111111111111111111/{TOKEN}"
GM_URL = f"https://discord.com/api/webhooks/222222222222222222/{TOKEN[::-1]}"


@pytest.mark.browser
def test_the_gm_connects_the_tables_discord_channels(browsers: Browsers) -> None:
    gm = browsers.gm()
    open_table(gm)
    panel = gm.locator("#discord-tools")
    panel.locator("summary").click()
    table = panel.locator("#discord-table")
    table.get_by_label("Webhook URL").fill("http://discord.com/api/webhooks/1/2")
    table.get_by_role("button", name="Save").click()
    expect(gm.locator("#discord-error-table")).to_contain_text("starts with https://")
    gm.locator("#discord-table").get_by_label("Webhook URL").fill(TABLE_URL)
    gm.locator("#discord-table").get_by_role("button", name="Save").click()
    expect(gm.locator("#discord-tools")).to_contain_text("Saved: the rolls from now on are posted there.")
    expect(gm.locator("#discord-table .discord-url")).to_have_text(
        "https://discord.com/api/webhooks/111111111111111111/••••••••"
    )
    assert TOKEN not in gm.content()
    gm.locator("#discord-gm").get_by_label("Webhook URL").fill(GM_URL)
    gm.locator("#discord-gm").get_by_role("button", name="Save").click()
    expect(gm.locator("#discord-gm .discord-url")).to_be_visible()
    gm.locator("#discord-table").get_by_role("button", name="Send a test message").click()
    expect(gm.locator("#discord-tools")).to_contain_text("A test message is on its way")

    # Discord answered 404 for the GM's webhook: the console says why it stopped.
    def gone() -> None:
        hook = DiscordWebhook.objects.get(audience="gm")
        webhooks.turn_off(
            hook,
            "Turned off on 2026-12-07 21:40: Discord answered that this webhook no longer exists (404). Make a new one in the channel's settings and paste it here.",
        )

    in_thread(gone)
    gm.reload()
    gm.locator("#discord-tools summary").click()
    expect(gm.locator("#discord-gm .discord-note")).to_contain_text("no longer exists (404)")
    picture = (DOCS_SHOTS if os.environ.get("TABLETOP_DOCS_SHOTS") == "1" else SHOTS) / "discord.png"
    Path(picture).parent.mkdir(parents=True, exist_ok=True)
    gm.set_viewport_size({"width": 1280, "height": 1500})
    gm.locator("#discord-tools").screenshot(path=str(picture), animations="disabled")

    phone = browsers.phone()
    phone.context.add_cookies(gm.context.cookies())
    phone.goto(gm.url)
    phone.locator("#discord-tools summary").click()
    assert_fits_phone(phone)

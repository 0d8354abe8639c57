"""The feed for other tools from the GM's console: a key made and shown once, a tool following
the table's stream with it while the GM rolls, and the key revoked, which ends the stream."""

from __future__ import annotations

import json
import os
import queue
import re
import threading
import urllib.request

import pytest
from playwright.sync_api import Dialog, expect

from tests.browser.conftest import DOCS_SHOTS, SHOTS, Browsers
from tests.browser.flows import gm_roll, open_table
from tests.browser.test_a11y import Audit


def follow(url: str, key: str, into: queue.Queue[str]) -> None:
    """A tool's stream: each event's data, then "end" when the server closes it."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith(("data:", "event:")):
                    into.put(line)
    finally:
        into.put("end")


@pytest.mark.browser
def test_the_gm_makes_a_key_a_tool_follows_the_table_with_it_and_the_gm_revokes_it(
    browsers: Browsers, live_url: str
) -> None:
    gm = browsers.gm()
    open_table(gm)
    panel = gm.locator("#feed-tools")
    panel.locator("summary").click()
    panel.get_by_label("Name of the new key").fill("Foundry bridge")
    panel.get_by_role("button", name="Make a key").click()
    secret = gm.locator("#feed-secret")
    expect(secret).to_have_text(re.compile(r"^ttf_[\w-]{40,}$"))
    key = secret.inner_text()
    address = gm.locator("#feed-url").inner_text()
    assert address.endswith("/events") and "/api/feed/" in address
    expect(panel.get_by_text("never used")).to_be_visible()
    audit = Audit()
    audit.check(gm, "console with a new key")
    audit.assert_clean()
    # The panel alone: to docs/img/ with TABLETOP_DOCS_SHOTS=1 (docs/feed.md shows it).
    shots = DOCS_SHOTS if os.environ.get("TABLETOP_DOCS_SHOTS") == "1" else SHOTS
    shots.mkdir(parents=True, exist_ok=True)
    panel.screenshot(path=str(shots / "feed-keys.png"), animations="disabled")

    # The tool reaches the server as the GM's browser does (the address may name the LAN's).
    events: queue.Queue[str] = queue.Queue()
    stream_url = live_url + "/api/feed/" + address.split("/api/feed/")[1]
    tool = threading.Thread(target=follow, args=(stream_url, key, events), daemon=True)
    tool.start()
    gm.wait_for_timeout(300)  # the stream is open: it starts with the next entry
    gm_roll(gm, "The warden", "guards the stair")
    data = json.loads(events.get(timeout=10).removeprefix("data: "))
    assert data["kind"] == "roll" and data["roll"]["who"]["character"] == "The warden"
    assert data["roll"]["what"]["intent"] == "guards the stair"

    gm.reload()  # the list says it was used
    panel = gm.locator("#feed-tools")
    panel.locator("summary").click()
    expect(panel.get_by_text(re.compile("last used"))).to_be_visible()
    # Revoking asks first: the dialog names the key; dismissed, the key still works.
    asked: list[str] = []

    def answer(dialog: Dialog, accept: bool) -> None:
        asked.append(dialog.message)
        if accept:
            dialog.accept()
        else:
            dialog.dismiss()

    gm.once("dialog", lambda dialog: answer(dialog, accept=False))
    panel.get_by_role("button", name="Revoke").click()
    expect(panel.get_by_role("button", name="Revoke")).to_be_visible()
    assert panel.locator(".feed-key.revoked").count() == 0
    gm.once("dialog", lambda dialog: answer(dialog, accept=True))
    panel.get_by_role("button", name="Revoke").click()
    expect(panel.locator(".feed-key.revoked")).to_be_visible()
    assert len(asked) == 2 and asked[0].startswith("Revoke the key “Foundry bridge”?"), asked
    assert gm.locator("#feed-secret").count() == 0  # never shown again
    assert events.get(timeout=10) == "event: revoked"
    while (line := events.get(timeout=10)) != "end":
        assert not line.startswith('data: {"version":1,"seq'), line
    tool.join(timeout=10)

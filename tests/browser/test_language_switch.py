"""The language switch of the pages outside a table, in a browser: a plain form below the page
that works without JavaScript and fits a phone (issue 45, "a switch")."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Browsers, Shot
from tests.browser.flows import assert_fits_phone

pytestmark = pytest.mark.browser


def test_a_phone_without_script_switches_the_sign_in_page_to_german(browsers: Browsers, shot: Shot) -> None:
    phone = browsers.phone_without_script()
    phone.goto(f"{browsers.base_url}/login/")
    expect(phone.locator("html")).to_have_attribute("lang", "en")
    switch = phone.locator("form.language-switch")
    switch.get_by_label("Language").select_option("de")
    switch.get_by_role("button").click()
    phone.wait_for_load_state()
    expect(phone.locator("html")).to_have_attribute("lang", "de")
    assert phone.url.endswith("/login/")  # back where the switch was used
    expect(phone.locator("form.language-switch select")).to_have_value("de")
    assert_fits_phone(phone)
    shot(phone, "language-switch-360")

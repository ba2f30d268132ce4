"""The game's page under a bank clock, in the system's headless Chromium: a time
bank column beside the scores, as served and as the page redraws it when a move
comes in (its script's words match the server's)."""

from __future__ import annotations

import os

import pytest

from tests.browser import chromium, serve, wait

BANK = {"kind": "bank", "initial_seconds": 3600, "increment_seconds": 300, "max_seconds": 7200}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module", params=[375, 1280])
def browser(request, tmp_path_factory):
    for driver in chromium(tmp_path_factory, width=max(request.param, 500), height=900):
        if request.param < 500:  # a window is at least 500 px wide: a phone's width is emulated
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": request.param, "height": 800, "deviceScaleFactor": 1, "mobile": True})
        yield driver


def _cells(driver) -> list[list[str]]:
    # read at once in the page (a redraw between two element reads would leave them stale)
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#players tr'))"
        ".map(function (tr) { return Array.from(tr.cells).map(function (td) { return td.textContent; }); });")


def test_the_page_shows_each_seats_bank(site, browser, tmp_path):
    from selenium.webdriver.common.by import By

    url, client, _ = site
    made = client.post("/v1/games", json={"game": "king-of-danger", "players": ["Ann", "Bob"],
                                          "options": {"clock": BANK, "seed": 7}}).json
    browser.get(f"{url}/games/{made['id']}")
    head = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#players-head th")]
    assert head == ["seat", "player", "score", "time bank", ""]
    assert [row[3] for row in _cells(browser)] == ["1h", "1h"]
    seat = client.get(f"/v1/games/{made['id']}").json["to_act"][0]
    token = made["seats"][seat]["token"]
    legal = client.get(f"/v1/games/{made['id']}/legal", headers={"Authorization": f"Bearer {token}"}).json
    r = client.post(f"/v1/games/{made['id']}/moves", json={"move": legal["moves"][0]},
                    headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201
    # followed live: the mover's bank grows by the increment (less the moment it took)
    wait(browser, lambda d: _cells(d)[seat][3] not in ("1h", ""))
    assert _cells(browser)[seat][3].startswith("1h 4m")
    assert browser.execute_script("return document.querySelectorAll('#players-head th').length") == 5
    shots = os.environ.get("REFEREE_SCREENSHOTS")
    if shots:
        width = browser.execute_script("return window.innerWidth")
        browser.save_screenshot(os.path.join(shots, f"bank-{width}.png"))

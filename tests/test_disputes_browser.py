"""A seat's votes and disputes from the game page (a real browser): a seat proposes
a draw, the other answers yes from its own page and the game ends; a seat sends a
dispute and every page lists it."""

from __future__ import annotations

import pytest

from tests import browser as kit
from tests.helpers import Game


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from kit.serve(tmp_path_factory, poll=0.02)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from kit.chromium(tmp_path_factory, width=375, height=900)


def shown(driver, element_id: str) -> bool:
    return driver.execute_script(f"var e = document.getElementById('{element_id}'); return !!e && !e.hidden")


def test_a_draw_proposed_and_carried_from_the_seats_pages(site, browser):
    url, client, _ = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 31})
    browser.get(f"{url}/games/{g.id}#token={g.tokens[0]}")
    kit.wait(browser, lambda d: shown(d, "seat-disputes"))
    browser.find_element("id", "sd-proposal").send_keys("a draw")
    browser.find_element("css selector", "#sd-propose button").click()
    kit.wait(browser, lambda d: g.get("/view", 1).json["vote"] is not None)
    browser.get(f"{url}/games/{g.id}#token={g.tokens[1]}")
    kit.wait(browser, lambda d: shown(d, "sd-vote"))
    assert "a proposal of draw" in browser.find_element("id", "sd-vote-words").text
    browser.find_element("id", "sd-yes").click()
    kit.wait(browser, lambda d: g.summary()["status"] == "finished")
    assert g.summary()["result"]["winners"] == [0, 1]


def test_a_dispute_sent_from_a_seats_page_is_listed_on_every_page(site, browser):
    url, client, _ = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 32})
    browser.get(f"{url}/games/{g.id}#token={g.tokens[1]}")
    kit.wait(browser, lambda d: shown(d, "seat-disputes"))
    browser.find_element("id", "sd-text").send_keys("Ann saw my cards")
    browser.find_element("id", "sd-seq").send_keys("2")
    browser.find_element("css selector", "#sd-dispute button").click()
    kit.wait(browser, lambda d: g.get("/view").json["disputes"])
    assert g.get("/view").json["disputes"][0]["text"] == "Ann saw my cards"
    assert g.get("/view").json["disputes"][0]["seq"] == 2
    browser.get(f"{url}/games/{g.id}")  # a spectator's page
    kit.wait(browser, lambda d: "Ann saw my cards" in d.find_element("id", "disputes").text)
    assert not shown(browser, "seat-disputes")  # no token: nothing to propose or dispute

"""Taking and refusing seats from the pages, in a real browser at a phone's width: the
lobby's and the open game's Join button (the player token from the address's
fragment, or asked for and put there), an invited player's Accept and Decline, each
seat shown by its player's name, and the token never in an address the browser asks
for."""

from __future__ import annotations

import json
import re

import pytest

from tests import browser as kit
from tests.test_me_page import Addresses, no_sideways_scroll

GAME = "king-of-danger"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for url, client, app in kit.serve(tmp_path_factory, poll=0.02):
        app.wsgi_app = app.extensions["addresses"] = Addresses(app.wsgi_app)
        yield url, client, app


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    for driver in kit.chromium(tmp_path_factory):
        driver.set_window_size(375, 800)
        yield driver


@pytest.fixture
def browser(chromium):
    chromium.get("about:blank")
    return chromium


def register(client, name: str) -> dict:
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.json
    return r.json


def open_game(client, creator: dict, seats: list) -> str:
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": creator["id"]}, *seats]},
                    headers={"Authorization": f"Bearer {creator['token']}"})
    assert r.status_code == 201 and r.json["status"] == "open", r.json
    return r.json["id"]


def contributions(client, game_id: str, player: dict) -> list:
    first = client.get(f"/v1/games/{game_id}/events?limit=1", headers={"Authorization": f"Bearer {player['token']}"})
    return first.json["events"][0]["payload"]["contributions"]


def buttons(driver, game_id: str) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.seat-actions[data-game=\"' + arguments[0] + '\"] button'))"
        ".map(b => b.innerText.trim())", game_id)


def said(driver) -> str:
    return driver.execute_script("return Array.from(document.querySelectorAll('.seat-alert, .seat-status'))"
                                 ".map(p => p.innerText.trim()).join(' | ')")


def test_a_stranger_joins_from_the_lobby_and_the_invited_player_accepts_on_the_games_page(site, browser):
    url, client, app = site
    ann, bob, cat = register(client, "Ann"), register(client, "Bob"), register(client, "Cat")
    gid = open_game(client, ann, [{"invite_player": bob["id"]}, {"open": True}])
    browser.get(f"{url}/#token={cat['token']}")
    kit.wait(browser, lambda d: buttons(d, gid) == ["Join"])
    row = browser.find_element("css selector", f'.seat-actions[data-game="{gid}"]').find_element("xpath", "..")
    assert "Ann, Bob (invited, not yet accepted), an open seat" in row.text
    assert no_sideways_scroll(browser)
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button').send_keys("\n")
    kit.wait(browser, lambda d: "You hold seat 2" in said(d))
    assert [s.get("player") for s in client.get(f"/v1/games/{gid}").json["seats"]][2] == cat["id"]
    # Bob, invited, opens the game's page: Accept and Decline, his seat by his name
    browser.get(f"{url}/games/{gid}#token={bob['token']}")
    kit.wait(browser, lambda d: buttons(d, gid) == ["Accept", "Decline"])
    assert "Waiting for Bob to accept" in browser.find_element("tag name", "main").text
    assert "player " not in browser.find_element("css selector", "table.players").text
    assert no_sideways_scroll(browser)
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button.join').click()
    kit.wait(browser, lambda d: d.find_elements("css selector", f'.seat-actions[data-game="{gid}"] a'))
    link = browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] a')
    assert link.get_attribute("href") == f"{url}/games/{gid}#token={bob['token']}"
    assert client.get(f"/v1/games/{gid}").json["status"] in ("active", "settling")
    seen = app.extensions["addresses"].seen
    assert not [s for s in seen if bob["token"] in s or cat["token"] in s]
    # each join from the page brought 32 random bytes of the browser's own (Ann, created
    # by the API without entropy, none): docs/log-format.md, "The seed"
    assert contributions(client, gid, bob)[0] is None
    assert all(re.fullmatch(r"[0-9a-f]{64}", c) for c in contributions(client, gid, bob)[1:])
    assert len(set(contributions(client, gid, bob))) == 3


def test_an_invited_player_declines_from_the_lobby(site, browser):
    url, client, _ = site
    ann, dan = register(client, "Ann"), register(client, "Dan")
    gid = open_game(client, ann, [{"invite_player": dan["id"]}])
    browser.get(f"{url}/#token={dan['token']}")
    kit.wait(browser, lambda d: buttons(d, gid) == ["Accept", "Decline"])
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button.decline').click()
    browser.switch_to.alert.accept()  # declining cancels the game for everyone: asked first
    kit.wait(browser, lambda d: "it is cancelled" in said(d))
    assert client.get(f"/v1/games/{gid}").json["status"] == "cancelled"


def test_without_a_token_the_page_asks_for_one_and_puts_it_in_the_fragment(site, browser):
    url, client, _ = site
    ann, eve = register(client, "Ann"), register(client, "Eve")
    gid = open_game(client, ann, [{"open": True}])
    browser.get(f"{url}/games/{gid}")
    kit.wait(browser, lambda d: buttons(d, gid) == ["Join"])
    form = browser.find_element("css selector", ".token-form")
    assert form.is_displayed()
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button').click()
    kit.wait(browser, lambda d: "player token first" in said(d))
    assert browser.switch_to.active_element.get_attribute("id") == "player-token"
    browser.switch_to.active_element.send_keys(eve["token"] + "\n")
    kit.wait(browser, lambda d: "Playing as Eve" in said(d) and buttons(d, gid) == ["Join"])
    assert browser.current_url.endswith("#token=" + eve["token"])
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button').send_keys("\n")
    kit.wait(browser, lambda d: "the game has started" in said(d))
    assert client.get(f"/v1/games/{gid}").json["players"] == ["Ann", "Eve"]
    browser.get(f"{url}/games/{open_game(client, ann, [{'open': True}])}#token=not.a-token")
    kit.wait(browser, lambda d: "not a player's token" in said(d))


def test_the_entropy_a_player_types_is_their_contribution(site, browser):
    """Typed into the page's field, the player's own entropy is what the first event
    records for their seat; a game dealt from a given seed gets none from the page."""
    url, client, _ = site
    ann, fay = register(client, "Ann"), register(client, "Fay")
    gid = open_game(client, ann, [{"open": True}])
    browser.get(f"{url}/games/{gid}#token={fay['token']}")
    kit.wait(browser, lambda d: buttons(d, gid) == ["Join"])
    browser.find_element("id", "seat-entropy").send_keys("Fay's own: 7 ✓")
    browser.find_element("css selector", f'.seat-actions[data-game="{gid}"] button').send_keys("\n")
    kit.wait(browser, lambda d: "the game has started" in said(d))
    assert contributions(client, gid, fay) == [None, "Fay's own: 7 ✓"]
    r = client.post("/v1/games", json={"game": GAME, "players": [{"player": ann["id"]}, {"open": True}],
                                       "options": {"seed": "private"}},
                    headers={"Authorization": f"Bearer {ann['token']}"})
    browser.get(f"{url}/games/{r.json['id']}#token={fay['token']}")
    kit.wait(browser, lambda d: buttons(d, r.json["id"]) == ["Join"])
    browser.find_element("css selector", f'.seat-actions[data-game="{r.json["id"]}"] button').send_keys("\n")
    kit.wait(browser, lambda d: "the game has started" in said(d))


def test_the_invitations_page_adds_the_browsers_own_entropy(site, browser):
    """The link of an invitation's message: its page's Accept posts 32 random bytes of
    the browser's own when the player types none."""
    from referee.players import invitation_mail as mailing
    from referee.players.store import players_of

    url, client, app = site
    service = app.extensions["referee"]
    ann = register(client, "Ann")
    gid = open_game(client, ann, [{"invite": "gus@players.example"}])
    record = json.loads(players_of(service).open_get(gid))
    code = mailing.code_for(service, gid, 1, mailing.kept_for(record["seats"][1]))
    browser.get(f"{url}/games/{gid}/invitation?seat=1&code={code}")
    browser.find_element("css selector", "input[name=name]").send_keys("Gus")
    browser.find_element("css selector", "button[value=accept]").click()
    kit.wait(browser, lambda d: "Your player token" in d.find_element("tag name", "main").text)
    token = browser.find_element("id", "token").text
    (mine,) = contributions(client, gid, {"token": token})[1:]
    assert re.fullmatch(r"[0-9a-f]{64}", mine)

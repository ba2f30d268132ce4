"""The player's own page, /me, in a real browser: the games waiting on the player
listed first, each linking to the game page with the player's token, one move
played from there, and the game no longer waiting; no token, or a bad one, said
in words; the token never in any address the page asks for."""

from __future__ import annotations

import os
import re

import pytest

from tests import browser as kit
from tests.test_playing_browser import move_texts, panel_version, repo_root


class Addresses:
    """WSGI middleware keeping every address the browser asked for (path and query)."""

    def __init__(self, app):
        self.app, self.seen = app, []

    def __call__(self, environ, start_response):
        self.seen.append(environ.get("PATH_INFO", "") + "?" + environ.get("QUERY_STRING", ""))
        return self.app(environ, start_response)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for url, client, app in kit.serve(tmp_path_factory, poll=0.02):
        app.wsgi_app = app.extensions["addresses"] = Addresses(app.wsgi_app)
        yield url, client, app


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    for driver in kit.chromium(tmp_path_factory):
        driver.set_window_size(375, 800)  # a phone's width: the page must fit it
        yield driver


@pytest.fixture
def browser(chromium):
    chromium.get("about:blank")  # each test starts from a fresh page, not a fragment change
    return chromium


def register(client, name: str) -> dict:
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.json
    return r.json


def texts(driver, list_id: str) -> list[str]:
    # read in one script: a new token in the fragment reloads the page under our feet
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(li => li.innerText.trim())",
        f"#{list_id} li")


def alert(driver) -> str:
    return driver.execute_script("var a = document.querySelector('#me [role=alert]');"
                                 " return a ? a.innerText.trim() : ''")


def no_sideways_scroll(driver) -> bool:
    wide = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth]")
    assert wide[1] <= 375, wide  # the window really is a phone's width
    return wide[0] <= wide[1] and wide[2] <= wide[1]


def test_a_game_waiting_is_played_from_the_players_page(site, browser):
    url, client, app = site
    ann, bob = register(client, "Ann"), register(client, "Bob")
    r = client.post("/v1/games", json={"game": "king-of-danger",
                                       "players": [{"player": ann["id"]}, {"invite_player": bob["id"]}]},
                    headers={"Authorization": f"Bearer {ann['token']}"})
    assert r.status_code == 201, r.json
    gid = r.json["id"]
    r = client.post(f"/v1/games/{gid}/join", json={}, headers={"Authorization": f"Bearer {bob['token']}"})
    assert r.status_code == 201, r.json
    summary = client.get(f"/v1/games/{gid}").json
    seat = summary["to_act"][0]
    mover, other = (ann, bob) if seat == 0 else (bob, ann)

    browser.get(f"{url}/me#token={mover['token']}")
    kit.wait(browser, lambda d: any(gid in t for t in texts(d, "waiting")))
    assert alert(browser) == ""
    link = browser.find_element("css selector", "#waiting a")
    assert link.get_attribute("href") == f"{url}/games/{gid}#token={mover['token']}"
    assert no_sideways_scroll(browser)
    if os.environ.get("REFEREE_SCREENSHOTS"):
        out = repo_root() / "docs" / "screenshots"
        out.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(out / "me.png"))
    # the other player sees it among their games, not waiting on them
    browser.get(f"{url}/me#token={other['token']}")
    kit.wait(browser, lambda d: any(gid in t for t in texts(d, "current")))
    assert texts(browser, "waiting") == ["No game is waiting on you."]
    assert texts(browser, "leagues") == ["You are in no league."]

    # follow the link, with the keyboard's Enter, and play the first legal move
    browser.get(f"{url}/me#token={mover['token']}")
    kit.wait(browser, lambda d: d.find_elements("css selector", "#waiting a"))
    browser.find_element("css selector", "#waiting a").send_keys("\n")
    kit.wait(browser, lambda d: panel_version(d) == client.get(f"/v1/games/{gid}").json["version"])
    v = client.get(f"/v1/games/{gid}").json["version"]
    assert move_texts(browser)
    browser.find_element("css selector", "#moves button.move").click()
    browser.find_element("id", "play-button").click()
    kit.wait(browser, lambda d: client.get(f"/v1/games/{gid}").json["version"] > v)
    after = client.get(f"/v1/games/{gid}").json
    assert seat not in after["to_act"]

    browser.get(f"{url}/me#token={mover['token']}")
    kit.wait(browser, lambda d: any(gid in t for t in texts(d, "current")))
    assert texts(browser, "waiting") == ["No game is waiting on you."]
    # the token went only in headers: never in an address the browser asked for
    seen = app.extensions["addresses"].seen
    assert any(s.startswith("/v1/players/me") for s in seen)
    assert not [s for s in seen if mover["token"] in s or other["token"] in s]


def test_no_token_or_a_bad_one_is_said_in_words(site, browser):
    url, _, _ = site
    browser.get(f"{url}/me")
    kit.wait(browser, lambda d: "No player token" in alert(d))
    assert "/me#token=" in alert(browser)
    assert not browser.find_element("id", "me-lists").is_displayed()
    browser.get(f"{url}/me#token=not-a-token")
    kit.wait(browser, lambda d: "not a player's token" in alert(d))
    assert not browser.find_element("id", "me-lists").is_displayed()
    assert no_sideways_scroll(browser)


def test_an_invitation_is_joined_from_the_page(site, browser):
    """An open game keeping a seat for the player's confirmed address is listed with
    Accept and Decline buttons; Accept (Enter) takes the seat, and the page lists the
    game among the player's games, the invitation gone."""
    from referee.players.store import players_of

    url, client, app = site
    ann, cat = register(client, "Ann"), register(client, "Cat")
    # the address confirmed as its code coming back would (tests/test_open_games.py)
    players_of(app.extensions["referee"]).update(
        cat["id"], {"email": "cat@example.org", "email_confirmed": True}, None)
    r = client.post("/v1/games", json={"game": "king-of-danger",
                                       "players": [{"player": ann["id"]}, {"invite": "cat@example.org"}]},
                    headers={"Authorization": f"Bearer {ann['token']}"})
    assert r.status_code == 201, r.json
    gid = r.json["id"]
    browser.get(f"{url}/me#token={cat['token']}")
    kit.wait(browser, lambda d: any(gid in t for t in texts(d, "invitations")))
    assert texts(browser, "current") == ["No other game in play."]
    assert [b.text for b in browser.find_elements("css selector", "#invitations button")] == ["Accept", "Decline"]
    browser.find_element("css selector", "#invitations button").send_keys("\n")
    kit.wait(browser, lambda d: any(gid in t for t in texts(d, "waiting") + texts(d, "current")))
    assert texts(browser, "invitations") == ["No open game is keeping a seat for you."]
    assert alert(browser) == ""
    game = client.get(f"/v1/games/{gid}").json
    assert game["status"] in ("active", "settling")
    assert no_sideways_scroll(browser)
    # the Accept brought 32 random bytes of the browser's own (docs/log-format.md, "The seed")
    first = client.get(f"/v1/games/{gid}/events?limit=1", headers={"Authorization": f"Bearer {cat['token']}"})
    assert re.fullmatch(r"[0-9a-f]{64}", first.json["events"][0]["payload"]["contributions"][1])


def test_more_of_the_players_games_come_a_page_at_a_time(site, browser):
    """More current games than a page: the page lists the first page's games, and its
    More button (Enter) adds the next page's, then hides itself on the last."""
    from referee.players import current

    url, client, app = site
    dee = register(client, "Dee")
    made = []
    for k in range(current.PAGE + 2):  # Dee leads none of them: none waits on her
        r = client.post("/v1/games", json={"game": "king-of-danger", "players": [{"player": dee["id"]}, f"O{k}"]},
                        headers={"Authorization": f"Bearer {dee['token']}"})
        assert r.status_code == 201, r.json
        made.append(r.json["id"])
    browser.get(f"{url}/me#token={dee['token']}")
    kit.wait(browser, lambda d: len(texts(d, "current")) == current.PAGE)
    more = browser.find_element("id", "more-games")
    assert more.is_displayed() and texts(browser, "waiting") == ["No game is waiting on you."]
    more.send_keys("\n")
    kit.wait(browser, lambda d: len(texts(d, "current")) == current.PAGE + 2)
    assert [next(g for g in made if g in t) for t in texts(browser, "current")] == made
    assert not browser.find_element("id", "more-games").is_displayed()
    assert alert(browser) == "" and no_sideways_scroll(browser)


def test_a_league_invitation_is_accepted_and_the_organiser_starts_it_from_the_page(site, browser):
    """A league inviting the player is listed with Accept and Decline; Accept (Enter)
    joins it. The organiser's own page shows the waiting league with a Start button,
    which starts it with those who joined."""
    url, client, app = site
    org, bob = register(client, "Org"), register(client, "Bob")
    made = client.post("/v1/leagues", json={"name": "Spring", "game": "king-of-danger", "options": {"target": 1},
                                            "format": "round-robin", "players": [org["id"], bob["id"]]},
                       headers={"Authorization": f"Bearer {org['token']}"})
    assert made.status_code == 201, made.json
    lid = made.json["id"]
    browser.get(f"{url}/me#token={bob['token']}")
    kit.wait(browser, lambda d: any("Spring" in t for t in texts(d, "league-invitations")))
    assert [b.text for b in browser.find_elements("css selector", "#league-invitations button")] == \
        ["Accept", "Decline"]
    assert no_sideways_scroll(browser)
    shots = os.environ.get("REFEREE_SCREENSHOTS")
    if shots:
        browser.save_screenshot(os.path.join(shots, "me-league-invitation-375.png"))
    browser.find_element("css selector", "#league-invitations button").send_keys("\n")
    kit.wait(browser, lambda d: texts(d, "league-invitations") == ["No league is inviting you."])
    assert alert(browser) == ""
    assert [p["player"] for p in client.get(f"/v1/leagues/{lid}").json["players"]] == [org["id"], bob["id"]]
    browser.get("about:blank")
    browser.get(f"{url}/me#token={org['token']}")
    kit.wait(browser, lambda d: browser.find_elements("css selector", "#leagues button.start"))
    browser.execute_script("window.confirm = function () { return true; };")
    browser.find_element("css selector", "#leagues button.start").send_keys("\n")
    kit.wait(browser, lambda d: client.get(f"/v1/leagues/{lid}").json["rounds"])
    got = client.get(f"/v1/leagues/{lid}").json
    assert {p for g in got["rounds"][0]["games"] for p in g["seats"]} == {org["id"], bob["id"]}
    seen = app.extensions["addresses"].seen
    assert not any(org["token"] in a or bob["token"] in a for a in seen)  # tokens never in an address


def test_a_vacation_is_booked_and_cancelled_from_the_page(site, browser, tmp_path):
    """The page's Vacation form books one (the days left and the booking shown), a
    refusal is said in words, and Cancel gives the days back; it fits a phone's
    width (and a desktop's: a screenshot of each, under REFEREE_SCREENSHOTS)."""
    from datetime import UTC, datetime, timedelta

    url, client, app = site
    eve = register(client, "Eve")
    today = datetime.now(UTC).date()
    first, last = today + timedelta(days=10), today + timedelta(days=12)
    browser.get(f"{url}/me#token={eve['token']}")
    kit.wait(browser, lambda d: "vacation days left" in d.find_element("id", "vacation-left").text)
    assert browser.find_element("id", "vacation-left").text == "21 vacation days left this year."
    assert texts(browser, "vacations") == ["No vacation booked."]

    def book(a, b):
        for field, day in (("vacation-from", a), ("vacation-to", b)):
            browser.execute_script("arguments[0].value = arguments[1]", browser.find_element("id", field),
                                   day.isoformat())
        browser.find_element("id", "vacation-book").send_keys("\n")

    book(first, last)
    kit.wait(browser, lambda d: texts(d, "vacations") == [f"Away from {first} to {last}"])
    days = 21 - sum(1 for k in range(3) if (first + timedelta(days=k)).year == today.year)
    assert browser.find_element("id", "vacation-left").text == f"{days} vacation days left this year."
    assert client.get("/v1/players/me", headers={"Authorization": f"Bearer {eve['token']}"}).json["vacations"] == [
        {"from": first.isoformat(), "to": last.isoformat()}]
    assert alert(browser) == "" and no_sideways_scroll(browser)
    shots = repo_root() / "docs" / "screenshots" if os.environ.get("REFEREE_SCREENSHOTS") else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    browser.execute_script("document.getElementById('vacation-title').scrollIntoView()")
    browser.save_screenshot(str(shots / "me-vacation-375.png"))
    # a refusal in words: the same days again overlap
    book(first, last)
    kit.wait(browser, lambda d: "overlaps" in alert(d))
    # Cancel (confirmed) gives the days back
    browser.execute_script("window.confirm = function () { return true; }")
    browser.find_element("id", "vacation-cancel").send_keys("\n")
    kit.wait(browser, lambda d: texts(d, "vacations") == ["No vacation booked."])
    assert browser.find_element("id", "vacation-left").text == "21 vacation days left this year."
    assert not browser.find_element("id", "vacation-cancel").is_displayed()
    book(first, last)
    kit.wait(browser, lambda d: texts(d, "vacations") == [f"Away from {first} to {last}"])
    browser.set_window_size(1280, 900)
    try:
        browser.execute_script("document.getElementById('vacation-title').scrollIntoView()")
        browser.save_screenshot(str(shots / "me-vacation-1280.png"))
    finally:
        browser.set_window_size(375, 800)

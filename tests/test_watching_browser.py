"""The watching pages in a real browser: the system's headless Chromium via Selenium.

Skipped (with the reason) only when no Chromium or chromedriver is installed, and
then failed instead under CI (tests/browser.py). Set REFEREE_SCREENSHOTS=1 to
write each game's page to docs/screenshots/.
"""

from __future__ import annotations

import os
import random
import re

import pytest

from tests import browser as kit
from tests.conftest import repo_root
from tests.helpers import Game
from tests.playertools import new_game, register

GAMES = [("castle-danger", 2, {"variant": "hidden-danger"}), ("king-of-danger", 3, {}),
         ("king-of-the-castle", 3, {}), ("kings-keys", 3, {})]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A real HTTP server (werkzeug, threaded) on a free port, over SQLite."""
    for url, client, _app in kit.serve(tmp_path_factory):
        yield url, client


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from kit.chromium(tmp_path_factory)


_wait = kit.wait


def _screenshot(driver, name: str) -> None:
    """docs/screenshots/NAME.png, when REFEREE_SCREENSHOTS is set."""
    if os.environ.get("REFEREE_SCREENSHOTS"):
        out = repo_root() / "docs" / "screenshots"
        out.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(out / f"{name}.png"))


def _position(driver) -> str:
    return driver.find_element("id", "position").text


def _play(g: Game, rnd: random.Random, n: int) -> None:
    for _ in range(n):
        s = g.summary()
        if s["status"] != "active":
            return
        seat = rnd.choice(s["to_act"])
        legal = [m for m in g.legal(seat) if m["type"] != "resign"]
        assert g.post(seat, {"move": rnd.choice(legal)}).status_code == 201


@pytest.mark.parametrize("game,players,options", GAMES)
def test_a_game_page_steps_through_positions_and_follows_live(site, browser, game, players, options):
    from selenium.webdriver.common.keys import Keys

    url, client = site
    g = Game(client, game, ["Ann", "Bob", "Cy"][:players], options)  # names, as in the screenshots
    _play(g, random.Random(7), 8)
    v = g.summary()["version"]
    browser.get(f"{url}/games/{g.id}")
    _wait(browser, lambda d: d.find_elements("css selector", "#picture svg"))
    _wait(browser, lambda d: _position(d) == f"{v} / {v}")
    assert len(browser.find_elements("css selector", "#log li")) == v
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_LEFT)
    _wait(browser, lambda d: _position(d) == f"{v - 1} / {v}" and f"at={v - 1}" in d.current_url)
    browser.find_element("id", "first").click()
    _wait(browser, lambda d: _position(d) == f"1 / {v}" and d.current_url.endswith("?at=1"))
    # the address keeps the position: opening it again shows that position
    browser.get(f"{url}/games/{g.id}?at=2")
    _wait(browser, lambda d: _position(d) == f"2 / {v}")
    browser.find_element("id", "last").click()
    _wait(browser, lambda d: _position(d) == f"{v} / {v}")
    _screenshot(browser, game)
    # a move made elsewhere shows up by itself
    _play(g, random.Random(8), 1)
    now = g.summary()["version"]  # the move, and any referee step it brought
    assert now > v
    _wait(browser, lambda d: _position(d) == f"{now} / {now}")
    _wait(browser, lambda d: len(d.find_elements("css selector", "#log li")) == now)


@pytest.mark.parametrize("game,players", [("king-of-danger", 3), ("kings-keys", 3),
                                          ("king-of-the-castle", 3)])
def test_a_seat_view_shows_its_own_cards_and_no_one_elses(site, browser, game, players):
    url, client = site
    g = Game(client, game, players)
    _play(g, random.Random(2), 3)
    hands = [g.get("/view", s).json["view"]["hand"] for s in range(players)]
    browser.get(f"{url}/games/{g.id}#token={g.tokens[0]}")
    _wait(browser, lambda d: "seat 0" in d.find_element("id", "seen-as").text)
    # whose view, by the player's name
    assert browser.find_element("id", "seen-as").text == f"{g.summary()['players'][0]}'s view (seat 0)"
    dom = browser.execute_script("return document.documentElement.outerHTML")
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('#picture .hand-card text')).map(t => t.textContent)")
    assert sorted(shown) == sorted(hands[0])
    mine = set(hands[0])
    # What a spectator can read is no secret: a card taken from King's Keys' open
    # field into a hand was seen by everyone there.
    public = " ".join(g.get(path, None, **params).get_data(as_text=True)
                      for path, params in (("/view", {}), ("/events", {"limit": 1000}), ("/log", {})))
    for other in hands[1:]:
        for card in set(other) - mine:
            if game == "king-of-the-castle":
                continue  # event card names repeat across the deck and the discard pile
            named = re.compile(rf"(?<![\w-]){re.escape(card)}(?![\w-])")
            if not named.search(public):
                assert not named.search(dom), card
    # the token stays in the fragment: never in the address's path or query
    assert g.tokens[0] not in browser.execute_script("return location.pathname + location.search")


def test_the_page_without_javascript_is_the_spectators_text(site, tmp_path):
    url, client = site
    g = Game(client, "kings-keys", 3)
    html = client.get(f"/games/{g.id}").get_data(as_text=True)
    assert '<pre id="text">' in html
    from markupsafe import escape

    assert str(escape(g.get("/view").json["text"].splitlines()[0])) in html
    # the controls appear only when the script runs
    assert '<div class="controls" hidden>' in html


def test_a_game_page_fits_a_phone_width(site, browser):
    url, client = site
    g = Game(client, "castle-danger", 2)
    browser.set_window_size(390, 844)
    try:
        browser.get(f"{url}/games/{g.id}")
        _wait(browser, lambda d: d.find_elements("css selector", "#picture svg"))
        wide = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        assert wide[0] <= wide[1], wide  # no sideways scrolling
        # the picture keeps its size (its text readable) and scrolls sideways in its box,
        # which fits the screen (tests/test_phone_width.py measures the text)
        box = browser.execute_script("return document.querySelector('#picture').getBoundingClientRect().right")
        assert box <= wide[1]
    finally:
        browser.set_window_size(900, 1100)


def test_a_page_follows_by_long_poll_and_keeps_a_chosen_position(site, browser):
    """The page waits on `events?wait=25`; a move made over the API shows within
    seconds, without reload; looking at an earlier position, it stays there and
    tells of the news."""
    import time

    url, client = site
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"])
    rnd = random.Random(11)
    _play(g, rnd, 2)
    v = g.summary()["version"]
    browser.get(f"{url}/games/{g.id}")
    assert browser.find_element("id", "heading").text == "King of Danger: Ann, Bob, Cy"
    assert g.id not in browser.find_element("id", "heading").text
    _wait(browser, lambda d: _position(d) == f"{v} / {v}")
    time.sleep(1.5)  # the page's long poll is held meanwhile
    _play(g, rnd, 1)
    moved = time.monotonic()
    now = g.summary()["version"]
    _wait(browser, lambda d: _position(d) == f"{now} / {now}", timeout=5)
    assert time.monotonic() - moved < 3, "the page took too long to show the move"
    # it learnt of the move from the long poll it had open: asked after event v, held until the move
    polls = browser.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('/events?'))"
        ".map(e => [e.name, e.duration])")
    assert polls and all("wait=25" in name for name, _ in polls), polls
    held = [ms for name, ms in polls if name.endswith(f"after={v}")]
    assert held and held[0] >= 900, polls
    _wait(browser, lambda d: len(d.find_elements("css selector", "#log li")) == now)
    # no reload: the page's own script state survives
    browser.execute_script("window.sameDocument = 1")
    # step back; a new move leaves the position shown, and says there is news
    browser.find_element("id", "prev").click()
    _wait(browser, lambda d: _position(d) == f"{now - 1} / {now}")
    news = browser.find_element("id", "news")
    assert not news.is_displayed()
    _play(g, rnd, 1)
    later = g.summary()["version"]
    _wait(browser, lambda d: _position(d) == f"{now - 1} / {later}", timeout=5)
    assert f"at={now - 1}" in browser.current_url
    _wait(browser, lambda d: d.find_element("id", "news").is_displayed())
    assert f"{later - now} new event" in news.text
    _wait(browser, lambda d: len(d.find_elements("css selector", "#log li")) == later)
    news.click()
    _wait(browser, lambda d: _position(d) == f"{later} / {later}")
    assert not browser.find_element("id", "news").is_displayed()
    assert browser.execute_script("return window.sameDocument") == 1


def test_a_seat_page_follows_with_its_token_in_a_header(site, browser):
    """The seat's long poll carries its token as a header (the server sees the
    seat's own events) and its hand is redrawn when the game moves on."""
    url, client = site
    g = Game(client, "kings-keys", ["Ann", "Bob", "Cy"])
    rnd = random.Random(5)
    browser.get(f"{url}/games/{g.id}#token={g.tokens[0]}")
    _wait(browser, lambda d: "seat 0" in d.find_element("id", "seen-as").text)
    v = g.summary()["version"]
    _wait(browser, lambda d: _position(d) == f"{v} / {v}")
    for _ in range(3):
        _play(g, rnd, 1)
    now = g.summary()["version"]
    _wait(browser, lambda d: _position(d) == f"{now} / {now}", timeout=8)
    hand = g.get("/view", 0).json["view"]["hand"]
    _wait(browser, lambda d: sorted(d.execute_script(
        "return Array.from(document.querySelectorAll('#picture .hand-card text')).map(t => t.textContent)"))
        == sorted(hand))
    assert g.tokens[0] not in browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).join(' ')")


def test_a_player_page_stops_following_when_the_seat_goes_to_another_player(site, browser):
    """The player's token then holds no seat of the game: refused for good (403
    `not-your-seat`, as a seat's own token given away is 401), so the page says
    so and stops asking, rather than asking again every few seconds."""
    url, client = site
    ann, bob, cy = (register(client, name=n) for n in ("Ann", "Bob", "Cy"))
    di = register(client, name="Di", bot="basic")  # an admin may hand a seat to a bot player only
    game = new_game(client, [{"player": p["id"]} for p in (ann, bob, cy)])
    browser.get(f"{url}/games/{game['id']}#token={ann['token']}")
    _wait(browser, lambda d: "seat 0" in d.find_element("id", "seen-as").text)
    r = client.post(f"/v1/games/{game['id']}/seats/0/replace", json={"player": di["id"]},
                    headers={"Authorization": f"Bearer {game['admin_token']}"})
    assert r.status_code == 201, r.json
    _wait(browser, lambda d: d.find_element("id", "seen-as").text == "stopped following: 403")


def test_a_page_still_follows_when_the_server_holds_no_more_long_polls(site, browser):
    """Past the server's bound each long poll is answered at once with
    Retry-After: the page then asks again after that pause (never in a tight
    loop) and still shows a move within a few seconds."""
    from referee import follow

    url, client = site
    app = client.application
    kept = app.extensions["referee-waiters"]
    app.extensions["referee-waiters"] = follow.Waiters(places=0)
    try:
        g = Game(client, "castle-danger", ["Ann", "Bob"])
        v = g.summary()["version"]
        browser.get(f"{url}/games/{g.id}")
        _wait(browser, lambda d: _position(d) == f"{v} / {v}")
        import time

        time.sleep(3)
        asked = browser.execute_script(
            "return performance.getEntriesByType('resource').filter(e => e.name.includes('/events?')).length")
        assert 1 <= asked <= 3, asked  # one every 2 seconds, not a flood
        _play(g, random.Random(4), 1)
        now = g.summary()["version"]
        _wait(browser, lambda d: _position(d) == f"{now} / {now}", timeout=6)
    finally:
        app.extensions["referee-waiters"] = kept


FIT = """
const out = [];
for (const seat of document.querySelectorAll('g.seat')) {
  const frame = seat.querySelector('rect').getBoundingClientRect();
  for (const el of seat.querySelectorAll('text, rect, circle, path')) {
    const b = el.getBoundingClientRect();
    if (b.left < frame.left - 0.5 || b.top < frame.top - 0.5 || b.right > frame.right + 0.5
        || b.bottom > frame.bottom + 0.5) {
      out.push(seat.dataset.seat + ': ' + el.tagName + ' ' + (el.textContent || '') + ' '
               + [b.left - frame.left, b.top - frame.top, b.right - frame.left, b.bottom - frame.top]
                 .map(Math.round).join(','));
    }
  }
}
const svg = document.querySelector('svg').getBoundingClientRect();
for (const el of document.querySelectorAll('text')) {
  const b = el.getBoundingClientRect();
  if (b.left < svg.left - 0.5 || b.right > svg.right + 0.5) { out.push('picture: ' + el.textContent); }
}
return out;
"""


@pytest.mark.parametrize("game,players,options", [
    ("king-of-danger", 5, {"target": 8}), ("castle-danger", 2, {"turn_limit": 3}),
    ("king-of-the-castle", 8, {}), ("kings-keys", 4, {})])
def test_pictures_fit_their_boxes_as_chromium_draws_them(site, browser, game, players, options):
    """Each seat box holds everything drawn in it, measured as the browser lays
    the text out, at the game's largest number of players with long names,
    while the game runs and once it is over."""
    from tests.test_pictures import LONG

    url, client = site
    g = Game(client, game, LONG[:players], {**options, "seed": "fit"})
    rnd = random.Random(game)
    for moves in (6, 10000):
        if moves > 6:
            g.play_random(rnd)
        else:
            _play(g, rnd, moves)
        for who in (None, 0):
            path = f"/v1/games/{g.id}/board.svg"
            if who is None:
                browser.get(url + path)
            else:  # a seat's picture needs its token: draw it from the page's own fetch
                browser.get(f"{url}/games/{g.id}#token={g.tokens[who]}")
                _wait(browser, lambda d: "seat 0" in d.find_element("id", "seen-as").text)
            _wait(browser, lambda d: d.find_elements("css selector", "svg g.seat"))
            assert browser.execute_script(FIT) == [], (moves, who)


def test_a_page_following_a_game_to_its_end_shows_the_result_first(site, browser):
    url, client = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "to-the-end", "target": 4})
    browser.get(f"{url}/games/{g.id}")
    _wait(browser, lambda d: d.find_elements("css selector", "#picture svg"))
    assert not browser.find_element("id", "result").is_displayed()
    g.play_random(random.Random(3))
    result = g.summary()["result"]
    winner = ["Ann", "Bob"][result["winners"][0]]
    _wait(browser, lambda d: d.find_element("id", "result").is_displayed(), timeout=20)
    box = browser.find_element("id", "result")
    assert box.find_element("tag name", "strong").text == f"Game over: {winner} wins"
    assert box.find_element("tag name", "span").text == result["reason"]
    _wait(browser, lambda d: d.find_elements("css selector", "#picture svg g.seat.winner"))
    marked = browser.find_elements("css selector", "#players tr.winner td")
    assert [c.text for c in marked][1:] == [winner, str(result["scores"][result["winners"][0]]), "winner"]
    # the script writes what the server writes on the page
    server = client.get(f"/games/{g.id}").get_data(as_text=True)
    shown = browser.execute_script("return document.getElementById('result').outerHTML")
    assert shown.replace(' hidden=""', "") in server.replace("&#39;", "'")
    _screenshot(browser, "finished")


def test_two_player_king_of_danger_pages_show_both_tables_and_the_list_names_games(site, browser):
    url, client = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": "two-tables"})
    _play(g, random.Random(5), 5)
    view = g.get("/view").json["view"]
    browser.get(f"{url}/games/{g.id}")
    _wait(browser, lambda d: d.find_elements("css selector", "#picture svg g.seat"))
    for seat in (0, 1):
        shown = browser.execute_script(
            "return Array.from(document.querySelectorAll('#picture g.seat[data-seat=\"' + arguments[0]"
            " + '\"] .table-card .card text')).map(t => t.textContent)", seat)
        assert shown == [c for c in view["face_up"][seat] if c]
    _screenshot(browser, "king-of-danger-two-players")
    browser.get(url + "/")
    row = browser.find_element("css selector", f'a[href="/games/{g.id}"]').find_element("xpath", "../..")
    cells = [c.text for c in row.find_elements("tag name", "td")]
    assert cells[0].splitlines() == ["King of Danger: Ann, Bob", g.id]
    assert cells[2:] == ["active", ["Ann", "Bob"][g.summary()["to_act"][0]], "5"]
    _screenshot(browser, "games")

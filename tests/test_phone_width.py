"""What a player's phone shows, measured in Chromium at 375 pixels: no page
scrolls sideways (the league's page with its rating picture; a seat's game page,
whose picture scrolls in its own box), every handle on a seat's picture and every
button of its moves is a tap target of 44 pixels or more, and the picture's text
is drawn at a size one can read."""

from __future__ import annotations

import time

import pytest

from referee.games.king_of_the_castle.cards import CATALOGUE
from tests import browser as kit
from tests.helpers import Game
from tests.leaguetools import new_league

PHONE = 375
TAP = 44  # pixels: the least a finger can take
READABLE = 11  # pixels: the least a picture's text is drawn at


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from kit.serve(tmp_path_factory, poll=0.02)


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    for driver in kit.chromium(tmp_path_factory):
        driver.set_window_size(PHONE, 900)
        yield driver


def sideways(driver) -> list:
    return driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth]")


def test_the_league_page_fits_a_phone(site, phone):
    url, client, app = site
    ps = [client.post("/v1/players", json={"name": n, "bot": "random"}).json
          for n in ("Ann", "Bob", "Cyrille-Alexandra", "Dee", "Eve", "Fay")]
    league = new_league(client, ps, name="Friday league", game="king-of-danger", options={"target": 1},
                        format="round-robin")
    from referee.players.results import rate_game
    from referee.players.store import players_of

    service = app.extensions["referee"]
    deadline = time.time() + 60
    while client.get(f"/v1/leagues/{league['id']}").json["status"] != "finished":
        assert time.time() < deadline
        time.sleep(0.1)
    for rnd in client.get(f"/v1/leagues/{league['id']}").json["rounds"]:
        for g in rnd["games"]:  # as the rating job does once a game ends
            rate_game(service.store, players_of(service), g["game"])
    phone.get(f"{url}/leagues/{league['id']}")
    kit.wait(phone, lambda d: d.execute_script(
        "var i = document.querySelector('.rating-picture'); return i && i.complete && i.naturalWidth > 0"))
    wide = sideways(phone)
    assert wide[1] <= PHONE and wide[0] <= wide[1] and wide[2] <= wide[1], wide
    assert phone.execute_script(
        "return document.querySelector('.rating-picture').getBoundingClientRect().right") <= PHONE


@pytest.mark.parametrize("game,players,options", [
    ("king-of-danger", 2, {"seed": 7}), ("king-of-danger", 4, {"seed": 7}),
    ("castle-danger", 2, {"variant": "hidden-danger"}),
    ("king-of-the-castle", 3, {}), ("kings-keys", 3, {}),
])
def test_a_seat_s_taps_and_text_on_a_phone(site, phone, game, players, options):
    url, client, _ = site
    g = Game(client, game, players, options)
    seat = g.summary()["to_act"][0]
    phone.get("about:blank")
    phone.get(f"{url}/games/{g.id}#token={g.tokens[seat]}")
    kit.wait(phone, lambda d: d.execute_script(
        "var p = document.getElementById('play'); return p && !p.hidden && p.dataset.version == arguments[0]",
        g.summary()["version"]))
    kit.wait(phone, lambda d: d.execute_script("return document.querySelectorAll('#picture .pickable').length > 0"))
    wide = sideways(phone)
    assert wide[1] <= PHONE and wide[0] <= wide[1] and wide[2] <= wide[1], wide
    got = phone.execute_script("""
      function box(e) { var r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; }
      var picks = Array.from(document.querySelectorAll('#picture .pickable')).map(e => [e.getAttribute('data-pick') || e.getAttribute('data-square'), box(e)]);
      var buttons = Array.from(document.querySelectorAll('#play button')).filter(b => b.offsetParent).map(b => [b.textContent.trim().slice(0, 20), box(b)]);
      var texts = Array.from(document.querySelectorAll('#picture svg text')).filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim().slice(0, 20), parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a]);
      var pic = document.getElementById('picture').getBoundingClientRect();
      return {picks: picks, buttons: buttons, texts: texts, right: pic.right};""")
    assert got["right"] <= PHONE  # the picture's box fits; the picture scrolls inside it
    small = [(k, wh) for k, wh in got["picks"] if min(wh) < TAP]
    assert got["picks"] and not small, small
    small = [(t, wh) for t, wh in got["buttons"] if min(wh) < TAP]
    assert not small, small
    tiny = [(t, round(px, 1)) for t, px in got["texts"] if px < READABLE]
    assert not tiny, tiny


@pytest.mark.parametrize("game,players,options", [
    ("king-of-danger", 4, {"seed": 7}), ("castle-danger", 2, {}), ("king-of-the-castle", 3, {}),
    ("kings-keys", 3, {}),
])
def test_a_spectators_picture_is_readable_on_a_phone(site, phone, game, players, options):
    """An onlooker's picture is not shrunk to the phone's width (its text was 6 px):
    it keeps its size and scrolls sideways in its box, the page itself not."""
    url, client, _ = site
    g = Game(client, game, players, options)
    phone.get("about:blank")
    phone.get(f"{url}/games/{g.id}")
    kit.wait(phone, lambda d: d.execute_script("return !!document.querySelector('#picture svg text')"))
    wide = sideways(phone)
    assert wide[1] <= PHONE and wide[0] <= wide[1] and wide[2] <= wide[1], wide
    texts = phone.execute_script("""
      return Array.from(document.querySelectorAll('#picture svg text')).filter(t => t.textContent.trim())
        .map(t => [t.textContent.trim().slice(0, 20), parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a]);""")
    tiny = [(t, round(px, 1)) for t, px in texts if px < READABLE]
    assert texts and not tiny, tiny


def boxes(driver, css: str) -> list:
    """[keys, [width, height]] of the picture's elements that `css` selects."""
    return driver.execute_script("""
      return Array.from(document.querySelectorAll(arguments[0])).map(function (e) {
        var r = e.getBoundingClientRect();
        return [e.getAttribute('data-pick'), [Math.round(r.width), Math.round(r.height)]]; });""", css)


def test_a_castle_s_posts_and_stacks_are_taps_on_a_phone(site, phone):
    """King of the Castle's later steps: a killing card chosen first, then a
    castle, then its men's posts (Lord, Seneschal, Master at Arms) are offered on
    the picture; each one offered, and every post and attribute's stack drawn, is
    a tap target of 44 pixels or more."""
    url, client, _ = site
    front = ["plague"] * 3 + ["unlucky-fall"] * 3 + ["financial-scandal"] * 3 + ["marauding-barbarians"] * 3
    deck = list(CATALOGUE)
    for card in front:
        deck.remove(card)
    g = Game(client, "king-of-the-castle", 3, {"event_deck": front + deck, "seed": 1})
    seat = g.summary()["to_act"][0]
    phone.get("about:blank")
    phone.get(f"{url}/games/{g.id}#token={g.tokens[seat]}")
    kit.wait(phone, lambda d: d.execute_script(
        "var p = document.getElementById('play'); return p && !p.hidden && p.dataset.version == arguments[0]",
        g.summary()["version"]))
    kit.wait(phone, lambda d: d.execute_script("return document.querySelectorAll('#picture .pickable').length > 0"))
    drawn = boxes(phone, "#picture [data-pick^='post:'], #picture [data-pick^='attr:']")
    assert len([k for k, _ in drawn if k.startswith("post:")]) >= 9 and len(drawn) >= 18, drawn
    small = [(k, wh) for k, wh in drawn if min(wh) < TAP]
    assert not small, small
    offered = []  # every handle offered after the first step, each step of each card
    for card in [k for k, _ in boxes(phone, "#picture .hand-card.pickable")]:
        phone.execute_script("""
          var e = document.querySelector('#picture .hand-card[data-pick="' + arguments[0] + '"]');
          e.dispatchEvent(new MouseEvent('click', {bubbles: true}));""", card)
        for step in range(1, 6):
            kit.wait(phone, lambda d, step=step: d.execute_script(
                "return document.getElementById('play').dataset.picked") == str(step))
            now = boxes(phone, "#picture .next")
            if not now:
                break
            offered += now
            phone.execute_script("document.querySelector('#picture .next').dispatchEvent("
                                 "new MouseEvent('click', {bubbles: true}))")
        phone.find_element("id", "play-clear").click()
        kit.wait(phone, lambda d: d.execute_script("return document.getElementById('play').dataset.picked") == "0")
    posts = [k for k, _ in offered if k.startswith("post:")]
    assert posts and any(k.startswith("castle:") for k, _ in offered), offered
    small = [(k, wh) for k, wh in offered if min(wh) < TAP]
    assert not small, small


def test_a_second_seat_s_hand_is_in_sight_on_a_phone(site, phone):
    """A two-player King of Danger: the second seat's box, its table and its hand
    lie right of the first's, beyond a phone's width; its picture's box opens
    scrolled to them, the hand's every card whole in sight."""
    url, client, _ = site
    g = Game(client, "king-of-danger", 2, {"seed": 7})
    seat = 1
    phone.get("about:blank")
    phone.get(f"{url}/games/{g.id}#token={g.tokens[seat]}")
    kit.wait(phone, lambda d: d.execute_script(
        "var p = document.getElementById('play'); return p && !p.hidden && p.dataset.version == arguments[0]",
        g.summary()["version"]))
    kit.wait(phone, lambda d: d.execute_script("return document.getElementById('picture').scrollLeft > 0"))
    got = phone.execute_script("""
      var box = document.getElementById('picture').getBoundingClientRect();
      var own = Array.from(document.querySelectorAll('#picture .hand-card')).map(e => e.getBoundingClientRect());
      var table = Array.from(document.querySelectorAll('#picture .seat[data-seat="1"] .table-card'))
        .map(e => e.getBoundingClientRect());
      var out = r => r.left < box.left || r.right > box.right;
      return {hand: own.length, table: table.length, out: own.concat(table).filter(out).length};""")
    assert got["hand"] == 5 and got["table"] == 4 and got["out"] == 0, got

"""The seat's game page under stress, in a real browser: a stale page's move
refused in words and the page catching up, a lost answer sent again and played
once, a token taken away, play with the keyboard alone, a 375-pixel screen, and
the Content-Security-Policy that refuses inline script on every page.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import browser as kit
from tests.helpers import Game
from tests.test_playing_browser import build, move_texts, open_tab, panel_version, play, press_play

WEB = Path(__file__).resolve().parent.parent / "referee" / "web"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from kit.serve(tmp_path_factory, poll=0.02)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from kit.chromium(tmp_path_factory)


@pytest.fixture
def wire(site):
    w = site[2].extensions["test-wire"]
    w.posts.clear()
    w.lose = 0
    return w


def alert(driver) -> str:
    return driver.find_element("css selector", "#play [role=alert]").text


def close(driver) -> None:
    driver.close()
    driver.switch_to.window(driver.window_handles[0])


def test_a_stale_page_is_refused_in_words_and_catches_up(site, browser, wire):
    """The page does not hear of a move made elsewhere (its long poll is blocked):
    its move goes with the version it was built at, is refused, the refusal is
    said in words in role=alert, and the page shows the new position and moves.
    A token taken away is refused in words too. The log holds no page move."""
    url, client, _ = site
    g = Game(client, "castle-danger", ["Ann", "Bob"])
    browser.switch_to.new_window("tab")
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events?*"]})
    try:
        browser.get(f"{url}/games/{g.id}#token={g.tokens[0]}")
        v = g.summary()["version"]
        kit.wait(browser, lambda d: panel_version(d) == v)
        assert g.post(0, {"text": "add B"}).status_code == 201  # the seat, from another device
        assert "add Z" in move_texts(browser)  # the page has not heard of it
        build(browser, "add Z", ["supply:0:Z"])
        browser.find_element("id", "play-button").click()
        kit.wait(browser, lambda d: "moved on" in alert(d))
        assert "was not played" in alert(browser)
        kit.wait(browser, lambda d: panel_version(d) == v + 1)  # caught up
        kit.wait(browser, lambda d: d.find_element("id", "position").text == f"{v + 1} / {v + 1}")
        assert not any(t.startswith("add ") for t in move_texts(browser))  # one add a turn
        assert g.summary()["version"] == v + 1
        assert [s for _, s in wire.from_pages()] == ["409 CONFLICT"]
        # the caught-up page plays on
        play(browser, g, "end")
        assert g.summary()["to_act"] == [1]
        # the seat given to someone else: the page's token is refused, in words
        w = g.summary()["version"]
        kit.wait(browser, lambda d: panel_version(d) == w)
        r = client.post(f"/v1/games/{g.id}/seats/0/replace", json={"name": "Cleo"},
                        headers={"Authorization": f"Bearer {g.admin}"})
        assert r.status_code == 201, r.json
        build(browser, "resign", [])
        press_play(browser, "resign")
        kit.wait(browser, lambda d: "not accepted any more" in alert(d))
        assert g.summary()["status"] == "active"
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        close(browser)


def test_a_lost_answer_is_sent_again_and_played_once(site, browser, wire):
    """The referee applies the move but its answer is lost on the way back (a
    proxy's 502): the page sends the same move with the same Idempotency-Key,
    gets the first answer, and the move is in the log once."""
    url, client, _ = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 4})
    seat = g.summary()["to_act"][0]
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[seat]}")
    v = g.summary()["version"]
    kit.wait(browser, lambda d: panel_version(d) == v)
    text = next(t for t in move_texts(browser) if t != "resign")
    wire.lose = 1
    play(browser, g, text)
    kit.wait(browser, lambda d: "Played:" in d.find_element("id", "play-status").text)
    posts = wire.from_pages()
    assert [s for _, s in posts] == ["201 CREATED (answer lost)", "201 CREATED"], posts
    assert posts[0][0] == posts[1][0]  # the same key
    events = g.get("/events", None, after=v).json["events"]
    assert [e["type"] for e in events if e["actor"] == seat] == ["card-played"], events
    assert alert(browser) == ""
    close(browser)


@pytest.mark.parametrize("game,players,options", [
    ("king-of-danger", 2, {"seed": 5}), ("castle-danger", 2, {"variant": "hidden-danger"}),
    ("king-of-the-castle", 3, {}), ("kings-keys", 3, {"wild_cards": True, "seed": 2}),
])
def test_the_list_names_every_legal_move_by_its_notation(site, browser, game, players, options):
    """What clients may rely on: every move of /legal, in its order, is a visible
    button whose accessible name holds the move's text; the confirm control is
    named Play; refusals have a role=alert element; the seat's view is drawn."""
    url, client, _ = site
    g = Game(client, game, players, options)
    seat = g.summary()["to_act"][0]
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[seat]}")
    legal = g.get("/legal", seat).json
    kit.wait(browser, lambda d: panel_version(d) == legal["version"])
    buttons = browser.find_elements("css selector", "#moves button")
    assert len(buttons) == len(legal["text"])
    for b, text in zip(buttons, legal["text"], strict=True):
        assert b.is_displayed() and b.tag_name == "button"
        assert b.accessible_name.startswith(text + " "), (b.accessible_name, text)
    play_button = browser.find_element("id", "play-button")
    assert play_button.accessible_name == "Play" and play_button.tag_name == "button"
    assert browser.find_elements("css selector", "#play [role=alert]")
    hand = g.get("/view", seat).json["view"].get("hand")
    if hand is not None:  # the seat's own cards on the picture, each a handle
        shown = browser.execute_script(
            "return Array.from(document.querySelectorAll('#picture .hand-card')).map(e => e.dataset.pick)")
        assert sorted(shown) == sorted(f"card:{c}" for c in hand)
    close(browser)


def focused(driver) -> dict:
    return driver.execute_script(
        "var e = document.activeElement, c = e.querySelector && e.querySelector('code');"
        "return {id: e.id, cls: e.getAttribute('class') || '', square: e.getAttribute('data-square'),"
        " code: c ? c.textContent : null}")


def keys(driver, *sent) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(*sent).perform()


def tab_to(driver, want, backwards=False, most=120) -> dict:
    from selenium.webdriver.common.keys import Keys

    for _ in range(most):
        keys(driver, *((Keys.SHIFT, Keys.TAB, Keys.SHIFT) if backwards else (Keys.TAB,)))
        now = focused(driver)
        if want(now):
            return now
    raise AssertionError(f"Tab never reached it; focus on {focused(driver)}")


def test_moves_with_the_keyboard_alone(site, browser, wire):
    """Tab to a move in the list, Enter chooses it and puts the focus on Play,
    Enter plays it; then a piece moved on the picture: Tab to its square, Enter,
    Tab to where it goes, Enter, and Enter on Play."""
    from selenium.webdriver.common.keys import Keys

    url, client, _ = site
    g = Game(client, "castle-danger", ["Ann", "Bob"])
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[0]}")
    v = g.summary()["version"]
    kit.wait(browser, lambda d: panel_version(d) == v)
    first = tab_to(browser, lambda f: "move" in f["cls"].split())
    keys(browser, Keys.ENTER)
    assert focused(browser)["id"] == "play-button"
    assert f"({first['code']})" in browser.find_element("id", "chosen").text
    keys(browser, Keys.ENTER)
    kit.wait(browser, lambda d: g.summary()["version"] > v and panel_version(d) == g.summary()["version"])
    walk = next(t for t in move_texts(browser) if re.fullmatch(r"[a-g]\d-[a-g]\d", t))
    a, b = walk.split("-")
    tab_to(browser, lambda f: f["square"] == a, backwards=True)  # the picture is above the list
    keys(browser, Keys.ENTER)

    def order(sq):  # the squares' order on seat 0's picture: rank 9 first, files a to g
        return (-int(sq[1:]), sq[0])

    tab_to(browser, lambda f: f["square"] == b, backwards=order(b) < order(a))
    w = g.summary()["version"]
    keys(browser, Keys.ENTER)
    kit.wait(browser, lambda d: focused(d)["id"] == "play-button")
    assert f"({walk})" in browser.find_element("id", "chosen").text
    keys(browser, Keys.ENTER)
    kit.wait(browser, lambda d: g.summary()["version"] > w)
    assert [s for _, s in wire.from_pages()] == ["201 CREATED"] * 2
    close(browser)


def test_a_resignation_is_asked_for_again_and_enter_alone_never_resigns(site, browser, wire):
    """Resign stands apart from the moves, smaller; choosing it leaves the focus on
    it (not on Play), Play asks once more and puts the focus on Clear, so Enter
    pressed again and again plays on; "Yes, resign" ends the game."""
    from selenium.webdriver.common.keys import Keys

    url, client, _ = site
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 7})
    seat = g.summary()["to_act"][0]
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[seat]}")
    try:
        v = g.summary()["version"]
        kit.wait(browser, lambda d: panel_version(d) == v)
        box = browser.execute_script(
            "var r = document.querySelector('#moves button.resign'), m = document.querySelector('#moves button.move:not(.resign)');"
            "var a = r.getBoundingClientRect(), b = m.getBoundingClientRect();"
            "return {top: a.top, bottom_moves: Math.max.apply(null, Array.from(document.querySelectorAll("
            "'#moves button.move:not(.resign)')).map(e => e.getBoundingClientRect().bottom)),"
            " left: a.left, list_left: document.getElementById('moves').getBoundingClientRect().left,"
            " size: parseFloat(getComputedStyle(r).fontSize), move_size: parseFloat(getComputedStyle(m).fontSize),"
            " height: a.height}")
        assert box["top"] > box["bottom_moves"] and box["left"] == box["list_left"], box  # a line of its own
        assert box["size"] < box["move_size"] and box["height"] >= 44, box
        tab_to(browser, lambda f: "resign" in f["cls"].split())
        keys(browser, Keys.ENTER)
        assert "(resign)" in browser.find_element("id", "chosen").text
        assert "resign" in focused(browser)["cls"].split()  # not Play
        assert browser.find_element("id", "play-button").text == "Resign…"
        browser.find_element("id", "play-button").click()
        kit.wait(browser, lambda d: d.find_element("id", "play-button").text == "Yes, resign")
        assert focused(browser)["id"] == "play-clear" and "you lose it" in browser.find_element("id", "chosen").text
        keys(browser, Keys.ENTER)  # on Clear: plays on
        kit.wait(browser, lambda d: d.find_element("id", "play-button").text == "Play")
        keys(browser, Keys.ENTER)
        assert g.summary()["status"] == "active" and g.summary()["version"] == v and wire.from_pages() == []
        build(browser, "resign", [])
        press_play(browser, "resign")
        kit.wait(browser, lambda d: g.summary()["status"] == "finished" and wire.from_pages())
        assert [s for _, s in wire.from_pages()] == ["201 CREATED"]
    finally:
        close(browser)


@pytest.mark.parametrize("game,players,options,keys_", [
    ("castle-danger", 2, {"variant": "hidden-danger"}, ["supply:0:C"]),
    ("king-of-the-castle", 3, {"squires": "choose"}, ["squire:Q"]),  # 2,600 moves; letters to pick
])
def test_a_seat_page_fits_375_pixels(site, browser, game, players, options, keys_):
    url, client, _ = site
    g = Game(client, game, players, options)
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[0]}")
    browser.set_window_size(375, 800)
    try:
        v = g.summary()["version"]
        kit.wait(browser, lambda d: panel_version(d) == v)
        from tests.test_playing_browser import pick

        for n, key in enumerate(keys_, 1):
            pick(browser, key, n)
        wide = browser.execute_script(
            "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollWidth]")
        assert wide[1] <= 375 and wide[0] <= wide[1] and wide[2] <= wide[1], wide
        # the picture keeps its own size and scrolls sideways in its box (tests/test_phone_width.py)
        assert browser.execute_script(
            "return Array.from(document.querySelectorAll('#play button, #picture'))"
            ".every(e => e.getBoundingClientRect().right <= window.innerWidth)")
    finally:
        browser.set_window_size(900, 1100)
        close(browser)


# ---- Content-Security-Policy ------------------------------------------------------

def test_every_page_carries_a_policy_refusing_inline_script(site):
    url, client, _ = site
    g = Game(client, "kings-keys", 3)
    for path in ("/", f"/games/{g.id}", "/docs", "/games/nope", "/no-such-page",
                 "/web/static/play.js", f"/v1/games/{g.id}/board.svg"):
        r = client.get(path)
        policy = r.headers.get("Content-Security-Policy", "")
        script = re.search(r"script-src ([^;]*)", policy)
        assert script and script.group(1).split() == ["'self'"], (path, policy)
        assert "default-src 'self'" in policy and "object-src 'none'" in policy, (path, policy)
    assert "Content-Security-Policy" not in client.get(f"/v1/games/{g.id}").headers  # JSON: no page


def test_no_template_holds_inline_script_or_handlers():
    found = []
    for f in sorted((WEB / "templates").rglob("*")):
        if f.is_file():
            text = f.read_text()
            found += [(f.name, m) for m in re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", text)]
            found += [(f.name, m) for m in re.findall(r"\son[a-z]+\s*=", text)]
    assert not found, found


def test_the_browser_refuses_inline_script_and_the_pages_break_no_rule(site, browser):
    """Script written into the page (as an injected name would be) does not run,
    nor does an inline handler; the page itself, the docs page and a seat's page
    at play cause no violation."""
    url, client, _ = site
    g = Game(client, "king-of-danger", 3)
    open_tab(browser, f"{url}/games/{g.id}#token={g.tokens[1]}")
    kit.wait(browser, lambda d: panel_version(d) == g.summary()["version"])
    browser.get_log("browser")  # what came before
    ran = browser.execute_script("""
        window.violations = [];
        document.addEventListener('securitypolicyviolation', e => window.violations.push(e.violatedDirective));
        var s = document.createElement('script');
        s.textContent = 'window.inlineRan = 1';
        document.body.appendChild(s);
        var b = document.createElement('button');
        b.setAttribute('onclick', 'window.handlerRan = 1');
        document.body.appendChild(b);
        b.click();
        return [window.inlineRan || 0, window.handlerRan || 0];""")
    assert ran == [0, 0]
    kit.wait(browser, lambda d: len(d.execute_script("return window.violations")) >= 2)
    assert all(v.startswith("script-src") for v in browser.execute_script("return window.violations"))
    # the browser's log tells of such refusals (so its silence below means none)
    assert any("Content Security Policy" in e["message"] for e in browser.get_log("browser"))
    browser.get(f"{url}/docs")
    kit.wait(browser, lambda d: d.find_elements("css selector", ".opblock"), timeout=20)
    browser.get(f"{url}/games/{g.id}#token={g.tokens[1]}")
    kit.wait(browser, lambda d: panel_version(d) == g.summary()["version"])
    play(browser, g, next(t for t in move_texts(browser) if t != "resign"), [])
    broken = [e["message"] for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
    assert not broken, broken
    names = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(n.startswith(url + "/") for n in names), names
    close(browser)


# ---- the browser tests do not skip under CI -------------------------------------------

def test_a_browser_test_that_cannot_start_skips_here_and_fails_under_ci(tmp_path_factory, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium-driver"):
        next(kit.chromium(tmp_path_factory, driver_path="/nowhere/chromedriver"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot start under CI"):
        next(kit.chromium(tmp_path_factory, driver_path="/nowhere/chromedriver"))
    # a browser and a driver both there that still cannot start one (whether or not
    # this machine has a chromedriver): a driver that exits at once, a folder as
    # the browser
    driver = tmp_path_factory.mktemp("driver") / "chromedriver"
    driver.write_text("#!/bin/sh\nexit 1\n")
    driver.chmod(0o755)
    with pytest.raises(pytest.fail.Exception, match="did not start"):
        next(kit.chromium(tmp_path_factory, binary=str(tmp_path_factory.mktemp("x")),
                          driver_path=str(driver)))

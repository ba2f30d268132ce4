"""Playing from the game page in a real browser (the system's headless Chromium).

Every move of these games is made on the seats' pages, one tab per seat, each
holding its token in the address's fragment: picked on the picture (a card, a
square, a castle, a man, a field pile) or from the list of legal moves, shown in
words, confirmed with Play. The test reads the API only to know which tab is to
act and to check the outcome. Games are kept short: King of Danger to a target
of 1 (one hand), Castle Danger with a turn limit of 1, King of the Castle from
an event deck stacked with killing cards, and King's Keys (which nothing
shortens: nine hands of 27 turns) one whole hand, then a resignation made on the
page. Fails instead of skipping under CI when Chromium cannot start
(tests/browser.py). REFEREE_SCREENSHOTS=1 writes a seat's page of each game to
docs/screenshots/play-<game>.png.
"""

from __future__ import annotations

import os
import re

import pytest

from referee.games.king_of_the_castle.cards import CATALOGUE
from tests import browser as kit
from tests.conftest import repo_root
from tests.helpers import Game


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    # Long polls read the version every 20 ms, not 200: a game played through the
    # pages waits for the next seat's page to hear of every move.
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


# ---- driving a seat's page ------------------------------------------------------

def open_tab(driver, url: str) -> str:
    driver.switch_to.new_window("tab")
    driver.get(url)
    return driver.current_window_handle


def panel_version(driver):
    return driver.execute_script(
        "var p = document.getElementById('play'); return p.hidden ? null : parseInt(p.dataset.version, 10)")


def move_texts(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#moves button.move'))"
        ".filter(b => !b.parentNode.hidden).map(b => b.querySelector('code').textContent)")


def move_button(driver, text: str):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#moves button.move'))"
        ".find(b => !b.parentNode.hidden && b.querySelector('code').textContent === arguments[0])", text)


def handle(driver, key: str):
    """The picture's element for a key, or the button offering it beside the picture."""
    kind, _, value = key.partition(":")
    css = (f'#picture [data-square="{value}"]' if kind == "square"
           else f'#picture [data-pick~="{key}"], #parts button[data-pick="{key}"]')
    found = driver.find_elements("css selector", css)
    assert found, f"nothing on the page to pick {key}"
    return found[0]


def chosen(driver) -> str:
    return driver.find_element("id", "chosen").text


def pick(driver, key: str, n: int) -> None:
    """Click the key's element; it is the n-th key picked (from 1)."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(5):
        try:
            handle(driver, key).click()
            break
        except StaleElementReferenceException:
            continue  # the picture was drawn again (the game followed live) meanwhile
    kit.wait(driver, lambda d: d.execute_script("return document.getElementById('play').dataset.picked") == str(n))


def build(driver, text: str, keys: list[str]) -> None:
    """Build the move `text`: click its keys on the picture, then (if the picture
    left a choice) its button in the list, which shows only the moves that fit."""
    for n, key in enumerate(keys, 1):
        pick(driver, key, n)
    if f"({text})" not in chosen(driver):
        button = move_button(driver, text)
        assert button is not None, (text, move_texts(driver))
        button.click()
    kit.wait(driver, lambda d: f"({text})" in chosen(d))


def press_play(driver, text: str) -> None:
    """Press Play for the move built; a resignation is asked for once more
    ("Resign…", then "Yes, resign")."""
    driver.find_element("id", "play-button").click()
    if text == "resign":
        kit.wait(driver, lambda d: d.find_element("id", "play-button").text == "Yes, resign")
        driver.find_element("id", "play-button").click()


def play(driver, g: Game, text: str, keys=(), version=None) -> None:
    """Make one move on the current tab's page and wait until the referee has it."""
    v = g.summary()["version"] if version is None else version
    build(driver, text, list(keys))
    press_play(driver, text)
    kit.wait(driver, lambda d: g.summary()["version"] > v)


def play_through(driver, g: Game, tabs: dict, plan, most: int, shoot: str | None = None) -> list[str]:
    """Play the game to its end on the seats' pages; `plan(texts, seat, step)` says
    which move (its text) and which picture keys build it. Returns the moves."""
    made: list[str] = []
    while True:
        s = g.summary()
        if s["status"] != "active":
            break
        assert len(made) < most, f"the game did not end in {most} moves"
        seat, version = s["to_act"][0], s["version"]
        driver.switch_to.window(tabs[seat])
        kit.wait(driver, lambda d: panel_version(d) == version)  # noqa: B023 - waited for at once
        text, keys = plan(move_texts(driver), seat, len(made))
        if shoot and len(keys) >= 2 and os.environ.get("REFEREE_SCREENSHOTS"):
            screenshot(driver, shoot, text, keys)
            shoot = None
        play(driver, g, text, keys, s["version"])
        made.append(text)
    return made


def screenshot(driver, game: str, text: str, keys) -> None:
    """The seat's page with a move half built: its first key picked on the picture."""
    driver.set_window_size(900, 1500)
    try:
        handle(driver, keys[0]).click()
        driver.execute_script("window.scrollTo(0, 0)")
        out = repo_root() / "docs" / "screenshots"
        out.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(out / f"play-{game}.png"))
        driver.find_element("id", "play-clear").click()
    finally:
        driver.set_window_size(900, 1100)


def seat_tabs(driver, url: str, g: Game) -> dict:
    return {seat: open_tab(driver, f"{url}/games/{g.id}#token={token}")
            for seat, token in enumerate(g.tokens)}


def close_tabs(driver, tabs) -> None:
    for h in tabs:
        driver.switch_to.window(h)
        driver.close()
    driver.switch_to.window(driver.window_handles[0])


def finished_everywhere(driver, url: str, g: Game, tabs: dict, wire, made: list[str]) -> None:
    """The game is over, every seat's page says so, the pages sent each move once
    (201 each, one key each) and fetched nothing from another site; the log audits."""
    assert g.summary()["status"] == "finished"
    for h in tabs.values():
        driver.switch_to.window(h)
        kit.wait(driver, lambda d: "The game is over" in d.find_element("id", "play-status").text)
        names = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        assert all(n.startswith(url + "/") for n in names), [n for n in names if not n.startswith(url)]
    posts = wire.from_pages()
    assert [s for _, s in posts] == ["201 CREATED"] * len(made), posts
    assert len({k for k, _ in posts}) == len(made)
    report = g.client.post("/v1/audit", data=g.export(), content_type="application/jsonl").json
    assert report["valid"], report


# ---- the four games, whole ----------------------------------------------------------

def test_king_of_danger_whole_through_the_pages(site, browser, wire):
    """A hand to target 1: cards clicked on the picture or chosen in the list; a
    Wizard's suit picked beside the picture. A spectator's page follows it all."""
    url, client, _ = site
    g = Game(client, "king-of-danger", ["Ann", "Bob", "Cy"], {"target": 1, "seed": 0})
    tabs = seat_tabs(browser, url, g)
    watcher = open_tab(browser, f"{url}/games/{g.id}")
    browser.execute_script("window.sameDocument = 1")
    suits = []

    def plan(texts, seat, step):
        named = [t for t in texts if len(t.split()) == 3]  # play Z5 walls: a Wizard naming the suit
        text = named[0] if named else next(t for t in texts if t != "resign")
        card = text.split()[1]
        if named:
            suits.append(text)
            return text, [f"card:{card}", f"suit:{text.split()[2]}"]
        return text, [f"card:{card}"] if step % 2 == 0 else []

    made = play_through(browser, g, tabs, plan, 30, shoot="king-of-danger")
    assert len(made) == 24 and suits, (made, suits)
    finished_everywhere(browser, url, g, tabs, wire, made)
    browser.switch_to.window(watcher)  # the spectator's page followed, without a reload
    v = g.summary()["version"]
    kit.wait(browser, lambda d: d.find_element("id", "position").text == f"{v} / {v}")
    assert browser.execute_script("return window.sameDocument") == 1
    assert browser.find_element("id", "play").get_attribute("hidden") is not None  # nothing to play
    close_tabs(browser, [*tabs.values(), watcher])


def test_castle_danger_whole_through_the_pages(site, browser, wire):
    """Hidden Danger, one turn each: a piece brought in from the supply (the list
    says whether added or smuggled), a piece moved by clicking it and its square,
    then the turn ended from the list; each action sent on its own."""
    url, client, _ = site
    g = Game(client, "castle-danger", ["Ann", "Bob"], {"variant": "hidden-danger", "turn_limit": 1})
    tabs = seat_tabs(browser, url, g)
    turn: dict[int, int] = {0: 0, 1: 0}

    def plan(texts, seat, step):
        n = turn[seat]
        turn[seat] += 1
        # a step off the portals, which a piece brought in needs free
        bring = [t for t in texts if t.startswith(("add ", "smuggle "))]  # first actions only
        if n == 0 and bring:
            return bring[-1], [f"supply:{seat}:{bring[-1].split()[1]}"]
        walk = [t for t in texts if re.fullmatch(r"[a-g]\d-[a-g]\d", t)]
        if n == 1 and walk:
            a, b = walk[-1].split("-")
            return walk[-1], [f"square:{a}", f"square:{b}"]
        return "end", []

    made = play_through(browser, g, tabs, plan, 10, shoot="castle-danger")
    assert made.count("end") == 2 and len(made) == 6, made
    assert g.summary()["result"]["winners"] == [0, 1]  # the turn limit: a draw
    finished_everywhere(browser, url, g, tabs, wire, made)
    close_tabs(browser, tabs.values())


def kotc_keys(text: str) -> list[str]:
    """The picture's keys for a King of the Castle move written as text."""
    words = text.split()
    if words[0] == "choose":
        return [f"squire:{w}" for w in words[1:]]
    if words[0] == "react":
        return [f"card:{words[1]}"] + ([f"man:{words[2]}"] if len(words) > 2 else [])
    if words[0] != "play":
        return []
    keys, castle = [f"card:{words[1]}"], None
    for w in words[2:]:
        if w.isdigit():
            castle = w
            keys.append(f"castle:{w}")
        elif w == "king":
            keys.append("post:king")
        else:
            keys.append(f"post:{castle}:{w}")
    return keys


def test_king_of_the_castle_whole_through_the_pages(site, browser, wire):
    """Squires chosen letter by letter beside the picture, killing cards played on
    a castle and its men, a Lucky Escape answered out of turn saving a man, each
    seat's standing answer: a whole game from an event deck stacked with deaths."""
    url, client, _ = site
    front = (["lucky-escape", "mysterious-vanishings", "plague", "mysterious-vanishings"]
             + ["plague"] * 2 + ["peaceful-death"] * 4 + ["death-by-misadventure"] * 6
             + ["unlucky-fall"] * 3 + ["financial-scandal"] * 3)
    deck = list(CATALOGUE)
    for card in front:
        deck.remove(card)
    g = Game(client, "king-of-the-castle", ["Ann", "Bob"],
             {"event_deck": front + deck, "seed": 1, "squires": "choose"})
    tabs = seat_tabs(browser, url, g)
    first = ("choose", "react lucky-escape", "standing pass", "play mysterious-vanishings", "play plague",
             "play peaceful-death", "play death-by-misadventure", "play unlucky-fall",
             "play financial-scandal", "pass")

    def plan(texts, seat, step):
        text = next(t for p in first for t in texts if t.startswith(p))
        return text, kotc_keys(text)

    made = play_through(browser, g, tabs, plan, 40, shoot="king-of-the-castle")
    assert [t for t in made if t.startswith("choose")] == ["choose A B C"] * 2
    assert any(t.startswith("react lucky-escape ") for t in made), made
    assert any(len(t.split()) == 5 for t in made), made  # plague on a castle and two of its men
    assert made.count("standing pass") == 2, made
    finished_everywhere(browser, url, g, tabs, wire, made)
    close_tabs(browser, tabs.values())


def test_kings_keys_a_hand_then_a_resignation_through_the_pages(site, browser, wire):
    """A whole hand (a card taking a field card named on the picture, a drawn card's
    choice made on the picture), then the game ended by a resignation on a page."""
    url, client, _ = site
    g = Game(client, "kings-keys", ["Ann", "Bob", "Cy"], {"seed": 7})
    tabs = seat_tabs(browser, url, g)

    def plan(texts, seat, step):
        if g.get("/view").json["view"]["hand_number"] > 1:
            return "resign", []
        text = next(t for t in texts if t != "resign")
        words = text.split()
        if words[0] == "choose":
            return text, [f"field:{words[1]}"]
        if "take" in words:
            return text, [f"card:{words[1]}", f"field:{words[3]}"]
        return text, [f"card:{words[1]}"] if step % 2 else []

    made = play_through(browser, g, tabs, plan, 40, shoot="kings-keys")
    assert made[-1] == "resign" and len(made) >= 28, made
    assert any(t.startswith("choose") for t in made) and any(" take " in t for t in made), made
    finished_everywhere(browser, url, g, tabs, wire, made)
    close_tabs(browser, tabs.values())

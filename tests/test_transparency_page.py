"""The game page shows, per event of its log, whether the event is in a signed
checkpoint of the transparency log and how many witnesses cosigned one that holds
it (referee/web/static/watch.js, from GET /v1/transparency/games/{id}); in a real
headless Chromium, at a phone's width and a desktop's."""

from __future__ import annotations

import os
import random

import pytest

from referee.transparency import notes
from tests.browser import chromium, serve, wait
from tests.helpers import Game
from tests.test_transparency_log import moves

SHOTS = os.environ.get("REFEREE_SCREENSHOTS")  # a folder to keep the pictures in, if set


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    yield from serve(tmp_path_factory)


def settle(app) -> None:
    service = app.extensions["referee"]
    for _ in range(100):
        service.transparency.integrate()
        if not service.transparency.tree.pending():
            return


def cosign(client, name: str) -> None:
    whole = client.get("/v1/transparency/checkpoint").get_data(as_text=True)
    note = notes.parse_note(whole)
    size = notes.parse_checkpoint(note.text).size
    key = notes.WitnessKey.generate(name)
    r = client.post("/v1/transparency/witness", json={"size": size, "key": key.verifier.text,
                                                      "cosignature": key.cosign(note.text, 1_800_000_000)})
    assert r.status_code == 201, r.json


def marks(driver) -> list[str]:
    return [e.text for e in driver.find_elements("css selector", "#log li .tlog")]


@pytest.mark.parametrize("width", [375, 1100])
def test_each_event_shows_its_checkpoint_and_witnesses(site, tmp_path_factory, width):
    url, client, app = site
    g = Game(client, "king-of-danger", 3, {"seed": f"tlog-page-{width}"})
    moves(g, 5, random.Random(width))
    settle(app)
    cosign(client, f"witness.example/a{width}")
    cosign(client, f"witness.example/b{width}")
    moves(g, 2, random.Random(width + 1))  # later events: in no cosigned checkpoint
    places = client.get(f"/v1/transparency/games/{g.id}").json["events"]
    witnessed = [p["seq"] for p in places if p["witnesses"] == 2]
    assert witnessed and all(p["in_checkpoint"] for p in places if p["witnesses"])
    for driver in chromium(tmp_path_factory, width=width, height=1400):
        driver.get(f"{url}/games/{g.id}")
        wait(driver, lambda d: len(marks(d)) >= len(places) and "\u2713 checkpoint \u00b7 2 witnesses" in marks(d))
        items = driver.find_elements("css selector", "#log li")
        by_seq = {int(li.get_attribute("value")): li.find_element("css selector", ".tlog").text for li in items}
        for seq, text in by_seq.items():
            if seq in witnessed:
                assert text == "\u2713 checkpoint \u00b7 2 witnesses", (seq, text)
        assert all(text.startswith("\u2713 checkpoint") or text == "awaiting checkpoint" for text in by_seq.values())
        if SHOTS:
            driver.find_element("css selector", "h2").location_once_scrolled_into_view  # noqa: B018
            driver.save_screenshot(os.path.join(SHOTS, f"transparency-{width}.png"))

"""The player's deadlines as an iCalendar feed, on both stores: one VEVENT per game
waiting on them with a deadline (its UID naming the game, DTSTART the deadline in
UTC, URL the game's page), behind a secret of its own that reads that feed and
nothing else; a reset makes a new one and the old address stops working."""

from __future__ import annotations

from urllib.parse import urlsplit

from freezegun import freeze_time
from icalendar import Calendar

from tests.playertools import auth, new_game, register

CLOCK = {"move_seconds": 86400}


def _path(url: str) -> str:
    return urlsplit(url).path


def _on_anns_move(client, ann, bob, options) -> str:
    made = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}], options=options)
    gid = made["id"]
    if client.get(f"/v1/games/{gid}").json["to_act"] != [0]:
        move = client.get(f"/v1/games/{gid}/legal", headers=auth(bob["token"])).json["moves"][0]
        assert client.post(f"/v1/games/{gid}/moves", json={"move": move},
                           headers=auth(bob["token"])).status_code == 201
    return gid


def test_the_feed_lists_each_deadline_waiting_on_the_player(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    with freeze_time("2026-05-04T09:30:00Z"):
        clocked = _on_anns_move(client, ann, bob, {"clock": CLOCK, "seed": 1})
        _on_anns_move(client, ann, bob, {"seed": 2})  # no clock: no deadline to put in a calendar
    url = client.get("/v1/players/me", headers=auth(ann["token"])).json["calendar_url"]
    assert url.endswith(".ics") and ann["token"] not in url
    r = client.get(_path(url))
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    cal = Calendar.from_ical(r.data)
    events = [c for c in cal.walk("VEVENT")]
    assert len(events) == 1
    ev = events[0]
    assert str(ev["UID"]) == f"{clocked}@castle-referee"
    assert ev.decoded("DTSTART").isoformat() == "2026-05-05T09:30:00+00:00"
    assert str(ev["URL"]).endswith(f"/games/{clocked}") and "#token" not in r.get_data(as_text=True)
    assert "Bob" in str(ev["SUMMARY"])
    # Bob has nothing waiting on him: an empty calendar, and his own secret
    bobs = client.get("/v1/players/me", headers=auth(bob["token"])).json["calendar_url"]
    assert bobs != url and Calendar.from_ical(client.get(_path(bobs)).data).walk("VEVENT") == []


def test_the_feeds_secret_reads_the_feed_and_nothing_else(client):
    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    url = client.get("/v1/players/me", headers=auth(ann["token"])).json["calendar_url"]
    assert client.get("/v1/players/me", headers=auth(ann["token"])).json["calendar_url"] == url  # kept
    name = _path(url).rsplit("/", 1)[1].removesuffix(".ics")
    pid, secret = name.split(".", 1)
    assert client.get("/v1/players/me", headers=auth(name)).status_code == 401
    assert client.get("/v1/players/me", headers=auth(secret)).status_code == 401
    altered = secret[:-1] + ("y" if secret.endswith("x") else "x")  # never the secret itself
    for wrong in (f"{pid}.{altered}", f"{bob['id']}.{secret}", f"nobody.{secret}", pid, "x" * 300):
        r = client.get(f"/v1/calendar/{wrong}.ics")
        assert r.status_code == 404 and r.json["code"] == "no-such-calendar", wrong
    r = client.post("/v1/players/me/calendar/reset", headers=auth(ann["token"]))
    assert r.status_code == 200
    fresh = r.json["calendar_url"]
    assert fresh != url and client.get(_path(url)).status_code == 404
    assert client.get(_path(fresh)).status_code == 200
    assert client.get("/v1/players/me", headers=auth(ann["token"])).json["calendar_url"] == fresh
    assert client.post("/v1/players/me/calendar/reset").status_code == 401


def test_over_a_whole_game_the_feed_says_only_what_the_summary_says(client):
    """A new channel: at every step of a random game of players, each player's feed
    holds the public summary's facts (the game, its players, the seat's deadline, its
    page) and nothing else: no hand, no face-down card, no token."""
    import random

    ann, bob = register(client, name="Ann"), register(client, name="Bob")
    players = [ann, bob]
    gid = new_game(client, [{"player": ann["id"]}, {"player": bob["id"]}],
                   options={"clock": CLOCK, "target": 5})["id"]
    urls = [_path(client.get("/v1/players/me", headers=auth(p["token"])).json["calendar_url"]) for p in players]
    rnd, steps = random.Random(5), 0
    while (s := client.get(f"/v1/games/{gid}").json)["status"] == "active" and steps < 400:
        deadlines = {d["seat"]: d["deadline"] for d in s["deadlines"]}
        for seat, url in enumerate(urls):
            events = Calendar.from_ical(client.get(url).data).walk("VEVENT")
            if seat not in s["to_act"]:
                assert events == []
                continue
            (ev,) = events
            assert set(ev) == {"UID", "DTSTAMP", "DTSTART", "SUMMARY", "URL"}
            assert str(ev["UID"]) == f"{gid}@castle-referee"
            # to the second (iCalendar has no smaller unit), rounded down: never later than the deadline
            assert ev.decoded("DTSTART").strftime("%Y-%m-%dT%H:%M:%S") == deadlines[seat][:19]
            assert str(ev["SUMMARY"]) == f"Your move: King of Danger with {', '.join(s['players'])}"
            assert urlsplit(str(ev["URL"])).path == f"/games/{gid}"
        seat = s["to_act"][0]
        moves = [m for m in client.get(f"/v1/games/{gid}/legal", headers=auth(players[seat]["token"])).json["moves"]
                 if m["type"] != "resign"]
        assert client.post(f"/v1/games/{gid}/moves", json={"move": rnd.choice(moves)},
                           headers=auth(players[seat]["token"])).status_code == 201
        steps += 1
    assert steps > 10

"""Leagues as the referee runs them, over HTTP: whole leagues of bot players played
out by themselves (rounds paired as games end), their bundles audited over HTTP and
by `referee audit-league`, withdrawals, the pages, and every refusal."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from tests.leaguetools import new_league, organiser

KOD = {"target": 1}


def auth(token) -> dict:
    return {"Authorization": f"Bearer {token}"}


def players(client, n: int, bot: str | None = "random") -> list[dict]:
    out = []
    for i in range(n):
        body = {"name": f"P{i}"} | ({"bot": bot} if bot else {})
        r = client.post("/v1/players", json=body)
        assert r.status_code == 201, r.json
        out.append(r.json)
    return out


def create(client, ps, **terms) -> dict:
    """A league of ``ps`` as the referee makes one: invited, joined, started."""
    return new_league(client, ps, **terms)


def played_out(client, league: dict, rounds: int) -> dict:
    got = client.get(f"/v1/leagues/{league['id']}").json
    names = {p["player"]: p["name"] for p in got["players"]}
    assert got["status"] == "finished", got["rounds"]
    assert len(got["rounds"]) == rounds and all(r["closed"] for r in got["rounds"])
    for rnd in got["rounds"]:
        for g in rnd["games"]:
            game = client.get(f"/v1/games/{g['game']}").json
            assert game["status"] == "finished" and g["placings"] is not None
            assert game["players"] == [names[p] for p in g["seats"]]  # seats {"player": ID}
    return got


def audited(client, league_id: str) -> dict:
    bundle = client.get(f"/v1/leagues/{league_id}/export")
    assert bundle.status_code == 200 and bundle.mimetype == "application/jsonl"
    # a browser saves it as a file named for the league, as a game's export
    assert bundle.headers["Content-Disposition"] == f'attachment; filename="league-{league_id}.jsonl"'
    r = client.post("/v1/audit", data=bundle.data, content_type="application/jsonl")
    assert r.status_code == 200, r.json
    return r.json


def test_a_round_robin_of_four_bots_plays_itself_out_and_audits(client):
    ps = players(client, 4)
    league = create(client, ps)
    assert league["admin_token"] and len(league["rounds"]) >= 1
    got = played_out(client, league, 3)
    assert sorted(s["played"] for s in got["standings"]) == [3, 3, 3, 3]
    assert len(got["crosstable"]) == 4
    report = audited(client, league["id"])
    assert report["valid"] and report["seed"] == "verified" and report["games"] == 6
    assert report["standings"] == got["standings"]
    listed = client.get("/v1/leagues").json["leagues"]
    assert [lg["id"] for lg in listed] == [league["id"]] and listed[0]["status"] == "finished"


def test_a_swiss_of_nine_over_four_rounds(tmp_path):
    client = _client(f"sqlite:///{tmp_path}/swiss.db")
    ps = players(client, 9)
    league = create(client, ps, format="swiss", rounds=4)
    got = played_out(client, league, 4)
    assert all(len(r["byes"]) == 1 for r in got["rounds"])
    byes = [r["byes"][0] for r in got["rounds"]]
    assert len(set(byes)) == 4  # nobody has a second bye
    pairs = [frozenset(g["seats"]) for r in got["rounds"] for g in r["games"]]
    assert len(pairs) == len(set(pairs)) == 16  # no pair twice
    assert audited(client, league["id"])["valid"]


def test_a_tables_league_of_king_of_the_castle_with_seven(tmp_path):
    client = _client(f"sqlite:///{tmp_path}/tables.db")
    ps = players(client, 7)
    league = create(client, ps, game="king-of-the-castle", options={}, format="tables", rounds=2,
                    table_size=4)
    got = played_out(client, league, 2)
    for rnd in got["rounds"]:
        assert sorted(len(g["seats"]) for g in rnd["games"]) == [3, 4] and rnd["byes"] == []
    report = audited(client, league["id"])
    assert report["valid"], report["first_error"]


def _client(url):
    from referee.api import create_app
    from referee.store import open_store
    from referee.system import assemble

    app = create_app(assemble(open_store(url)))
    app.testing = True
    return app.test_client()


# ---- the audit of a tampered bundle ------------------------------------------------------

def _tampered(text: str, how: str) -> str:
    lines = text.splitlines()
    if how == "result":  # a result line's placings swapped
        for i, line in enumerate(lines):
            d = json.loads(line)
            if d["log"] == "league" and d["event"]["type"] == "result-recorded":
                d["event"]["payload"]["placings"] = d["event"]["payload"]["placings"][::-1]
                lines[i] = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                break
    else:  # the logs of two games swapped
        games = [json.loads(line)["game"] for line in lines if json.loads(line)["log"] == "game"]
        a, b = list(dict.fromkeys(games))[:2]

        def swap(line):
            d = json.loads(line)
            if d["log"] == "game" and d["game"] in (a, b):
                d["game"] = b if d["game"] == a else a
            return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

        lines = [swap(line) for line in lines]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("how", ["result", "games"])
def test_an_edited_result_or_swapped_games_fail_the_audit(client, tmp_path, how):
    league = create(client, players(client, 4))
    bundle = client.get(f"/v1/leagues/{league['id']}/export").text
    bad = _tampered(bundle, how)
    assert bad != bundle
    r = client.post("/v1/audit", data=bad.encode(), content_type="application/jsonl")
    assert r.status_code == 200 and r.json["valid"] is False and r.json["first_error"]["where"]
    for text, code in ((bundle, 0), (bad, 1)):
        path = tmp_path / f"bundle-{code}.jsonl"
        path.write_text(text)
        done = subprocess.run([sys.executable, "-m", "referee.cli", "audit-league", str(path)],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == code, done.stderr
        if code:
            assert "first divergence: " + r.json["first_error"]["where"] in done.stderr


# ---- withdrawals ------------------------------------------------------------------------

def test_a_withdrawal_loses_the_running_game_and_the_player_is_paired_no_more(client):
    """The referee resigns the withdrawn player's seat: the game ends as the game's own
    resign ends it, the opponent wins, and it is rated once, as any finished game."""
    humans = players(client, 4, bot=None)
    league = create(client, humans, format="swiss", rounds=2)
    lid = league["id"]
    leaver, other = humans[0], humans[1]
    r = client.post(f"/v1/leagues/{lid}/players/{leaver['id']}/withdraw", headers=auth(other["token"]))
    assert r.status_code == 403 and r.json["code"] == "forbidden"
    r = client.post(f"/v1/leagues/{lid}/players/{leaver['id']}/withdraw")
    assert r.status_code == 401
    assert client.get(f"/v1/leagues/{lid}").json["version"] == league["version"]  # nothing written
    r = client.post(f"/v1/leagues/{lid}/players/{leaver['id']}/withdraw", headers=auth(leaver["token"]))
    assert r.status_code == 200, r.json
    rnd = r.json["rounds"][0]
    mine = next(g for g in rnd["games"] if leaver["id"] in g["seats"])
    game = client.get(f"/v1/games/{mine['game']}").json
    opponent = next(p for p in mine["seats"] if p != leaver["id"])
    assert game["status"] == "finished", game  # not aborted: a game lost, with a winner
    assert game["result"]["winners"] == [mine["seats"].index(opponent)]
    log = client.get(f"/v1/games/{mine['game']}/export").text.splitlines()
    resigned = [json.loads(line) for line in log if '"type":"resigned"' in line]
    assert [e["actor"] for e in resigned] == [mine["seats"].index(leaver["id"])]  # the seat's own resign
    assert mine["placings"][mine["seats"].index(leaver["id"])] == 2  # lost
    for pid, place in ((leaver["id"], 2), (opponent, 1)):  # rated once, as the game ended
        history = client.get(f"/v1/players/{pid}/ratings?game=king-of-danger").json["history"]
        assert [(h["game_id"], h["place"]) for h in history] == [(mine["game"], place)], history
    r = client.post(f"/v1/leagues/{lid}/players/{leaver['id']}/withdraw",
                    headers=auth(league["admin_token"]))
    assert r.status_code == 409 and r.json["code"] == "league-conflict"
    # the other game of round 1 played out by its two players: round 2 pairs the three left
    rest = next(g for g in rnd["games"] if g is not mine)
    tokens = {p["id"]: p["token"] for p in humans}
    _play_out(client, rest["game"], [tokens[p] for p in rest["seats"]])
    got = client.get(f"/v1/leagues/{lid}").json
    assert len(got["rounds"]) == 2
    assert leaver["id"] not in [p for g in got["rounds"][1]["games"] for p in g["seats"]]
    assert leaver["id"] not in got["rounds"][1]["byes"]


def _play_out(client, gid: str, tokens: list) -> None:
    for _ in range(500):
        game = client.get(f"/v1/games/{gid}").json
        if game["status"] in ("finished", "aborted"):
            return
        token = tokens[game["to_act"][0]]
        legal = client.get(f"/v1/games/{gid}/legal", headers=auth(token)).json["moves"]
        client.post(f"/v1/games/{gid}/moves", json={"move": legal[0]}, headers=auth(token))
    raise AssertionError("the game did not end")


# ---- refusals ---------------------------------------------------------------------------

@pytest.mark.parametrize("change, field", [
    ({"game": "chess"}, "game"),
    ({"format": "ladder"}, "format"),
    ({"game": "castle-danger", "options": {}, "format": "tables"}, "format"),  # for two only
    ({"players": ["nobody"]}, "players[0]"),
    ({"players": [None]}, "players[0]"),
    ({"players": "dup"}, "players[1]"),
    ({"entry": "anyone"}, "entry"),
    ({"rounds": 3}, "rounds"),  # a round-robin's rounds follow from its players
    ({"name": ""}, "name"),
])
def test_bad_terms_are_refused_by_field_and_create_nothing(client, change, field):
    ps = players(client, 3)
    body = {"name": "L", "game": "king-of-danger", "options": KOD, "format": "round-robin",
            "players": [p["id"] for p in ps]}
    if change.get("players") == "dup":
        change = {"players": [ps[0]["id"], ps[0]["id"], ps[1]["id"]]}
    r = client.post("/v1/leagues", json=body | change, headers=auth(organiser(client)["token"]))
    assert r.status_code == 400, r.json
    assert r.mimetype == "application/problem+json" and r.json["field"] == field, r.json
    assert client.get("/v1/leagues").json["leagues"] == []
    assert client.get("/v1/games").json["games"] == []


def test_games_the_game_would_refuse_start_no_league(client):
    """Castle Danger between two bots must end: without a turn limit no game is made,
    so the league does not start (and pairs nothing)."""
    made = new_league(client, players(client, 2), start=False, game="castle-danger", options={})
    r = client.post(f"/v1/leagues/{made['id']}/start", headers=auth(made["admin_token"]))
    assert r.status_code == 400 and r.json["field"] == "options.turn_limit", r.json
    got = client.get(f"/v1/leagues/{made['id']}").json
    assert (got["status"], got["version"], got["rounds"]) == ("waiting", made["version"], [])
    assert client.get("/v1/games").json["games"] == []


def test_unknown_league_is_404(client):
    for path in ("/v1/leagues/nope", "/v1/leagues/nope/export", "/leagues/nope"):
        assert client.get(path).status_code == 404
    r = client.post("/v1/leagues/nope/players/x/withdraw", headers=auth("x"))
    assert r.status_code == 404 and r.json["code"] == "no-such-league"


# ---- pages ------------------------------------------------------------------------------

def test_the_league_page_under_a_strict_policy(client):
    from referee.players.results import rate_game
    from referee.players.store import players_of

    odd = client.post("/v1/players", json={"name": "<Ann & \"Co\">", "bot": "random"}).json
    league = create(client, [odd] + players(client, 3))
    service = client.application.extensions["referee"]
    for rnd in client.get(f"/v1/leagues/{league['id']}").json["rounds"]:
        for g in rnd["games"]:  # as the rating job does once a game ends
            rate_game(service.store, players_of(service), g["game"])
    page = client.get(f"/leagues/{league['id']}")
    assert page.status_code == 200
    html = page.text
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert "<script" not in html and not re.search(r"\sstyle=|\son[a-z]+=", html)
    got = client.get(f"/v1/leagues/{league['id']}").json
    for rnd in got["rounds"]:
        for g in rnd["games"]:
            assert f'href="/games/{g["game"]}"' in html
    assert "Crosstable" in html and f"/leagues/{league['id']}/ratings.svg" in html
    svg = client.get(f"/leagues/{league['id']}/ratings.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    assert svg.text.count("<polyline") == 4 and "<script" not in svg.text
    assert f'/leagues/{league["id"]}"' in client.get("/").text
    for text in (html, svg.text):  # a player's name is text, never markup
        assert "<Ann" not in text and "&lt;Ann &amp;" in text


# ---- notices ----------------------------------------------------------------------------

def test_players_with_contacts_hear_the_standings_after_each_round_and_the_final_table(client):
    from referee.mail import outbox

    ann = client.post("/v1/players", json={"name": "Ann", "webhook": "https://hooks.example/ann"}).json
    bots = players(client, 2)
    league = create(client, [ann] + bots)
    lid = league["id"]
    service = client.application.extensions["referee"]
    for _ in range(5):
        got = client.get(f"/v1/leagues/{lid}").json
        for rnd in got["rounds"]:
            for g in rnd["games"]:
                if ann["id"] in g["seats"] and g["placings"] is None:
                    _play_out(client, g["game"], [ann["token"] if p == ann["id"] else None for p in g["seats"]])
    got = client.get(f"/v1/leagues/{lid}").json
    assert got["status"] == "finished" and len(got["rounds"]) == 3
    mine = [g["game"] for r in got["rounds"] for g in r["games"] if ann["id"] in g["seats"]]
    told = [n["body"]["league"] for gid in mine for n in outbox.outbox_of(service).of_game(gid)
            if n["reason"] == "standings"]
    # from the first round she played in (a notice rides on a game of hers; round 1 may be her bye)
    first = next(r["round"] for r in got["rounds"] if ann["id"] not in r["byes"])
    assert [(t["round"], t["final"]) for t in told] == [(k, False) for k in range(first, 4)] + [(3, True)]
    assert all(t["id"] == lid and "Ann" in [r["name"] for r in t["standings"]] for t in told)
    # each new game of hers is announced to her by the game's own notices
    for gid in mine:
        seat = next(g["seats"] for r in got["rounds"] for g in r["games"] if g["game"] == gid).index(ann["id"])
        hers = [n for n in outbox.outbox_of(service).of_game(gid) if n["seat"] == seat]
        assert hers and hers[0]["body"]["game"] == gid and hers[0]["reason"] in ("start", "turn")
    # the bots have no contacts: nothing is queued for their seats
    assert all(n["seat"] == g["seats"].index(ann["id"]) for r in got["rounds"] for g in r["games"]
               for n in outbox.outbox_of(service).of_game(g["game"]) if n["reason"] == "standings")


def test_the_standings_mail_has_its_own_subject_a_table_and_the_league_s_address(client, mail, monkeypatch):
    """What an organiser of six friends saw: the round's mail read as a second
    "game over" with the standings on one line and a link with no host. As it
    arrives now: its own subject, the standings lined up as a table, the league's
    page in full from REFEREE_PUBLIC_URL, and the winner named at the end."""
    import email.policy

    from referee.mail import sending
    from referee.narration import joined

    monkeypatch.setenv("REFEREE_PUBLIC_URL", "https://referee.example/")
    monkeypatch.setenv("REFEREE_CONFIRM_RATE", "10000/hour")
    from referee.players import confirmation

    service = client.application.extensions["referee"]
    ann = client.post("/v1/players", json={"name": "Ann", "email": "ann@players.example"}).json
    confirmation.deliver_due(service)
    code = re.search(r"code ([A-Z2-7]{8})", mail.wait(1)[0].get_content()).group(1)
    assert client.post(f"/v1/players/{ann['id']}/confirm", json={"code": code}).status_code == 200
    league = create(client, [ann] + players(client, 2), name="Friday league")
    lid = league["id"]
    for _ in range(5):
        for rnd in client.get(f"/v1/leagues/{lid}").json["rounds"]:
            for g in rnd["games"]:
                if ann["id"] in g["seats"] and g["placings"] is None:
                    _play_out(client, g["game"], [ann["token"] if p == ann["id"] else None for p in g["seats"]])
    got = client.get(f"/v1/leagues/{lid}").json
    assert got["status"] == "finished"
    before = len(mail.messages)
    for _ in range(20):
        if not sending.deliver_due(service, time.time() + 10**6):
            break
    arrived = [m for m in mail.since(before) if "ann@players.example" in str(m["To"])]
    standings = [m for m in arrived if "standings" in m["Subject"] or "final table" in m["Subject"]]
    game_over = [m for m in arrived if "game over" in m["Subject"]]
    assert standings and game_over
    assert not {m["Subject"] for m in standings} & {m["Subject"] for m in game_over}
    first = next(r["round"] for r in got["rounds"] if ann["id"] not in r["byes"])
    assert [m["Subject"] for m in standings] == [
        f"Friday league: standings after round {k}" for k in range(first, 4)] + [
        "Friday league: final table, "
        + joined([s["name"] for s in got["standings"] if s["rank"] == 1])
        + (" wins" if sum(s["rank"] == 1 for s in got["standings"]) == 1 else " share first place")]
    last = standings[-1].get_content()
    assert f"https://referee.example/leagues/{lid}" in last.splitlines() and "(/leagues/" not in last
    rows = [line for line in last.splitlines() if re.match(r"  \d+\. ", line)]
    assert len(rows) == 3  # one line per player, not one line for all
    assert [re.match(r"  (\d+)\.\s+(.+?)\s+(\S+)$", line).group(2) for line in rows] \
        == [s["name"] for s in got["standings"]]
    assert len({line.rindex(" ") for line in rows}) == 1  # the points line up
    assert standings[-1].as_bytes(policy=email.policy.SMTP)  # a mail that goes out as it is


def test_a_game_lost_on_time_is_recorded_and_ends_the_league(client):
    import datetime as dt

    from referee import timeouts
    from referee.clock import format_at

    ann, bob = players(client, 2, bot=None)
    league = create(client, [ann, bob], clock={"move_seconds": 60, "on_timeout": "forfeit"})
    gid = league["rounds"][0]["games"][0]["game"]
    game = client.get(f"/v1/games/{gid}").json
    assert game["options"]["clock"]["move_seconds"] == 60  # the league's clock on its game
    late = league["rounds"][0]["games"][0]["seats"][game["to_act"][0]]
    service = client.application.extensions["referee"]
    timeouts.tick(service, gid, now=format_at(dt.datetime.now(dt.UTC) + dt.timedelta(days=1)))
    got = client.get(f"/v1/leagues/{league['id']}").json
    assert got["status"] == "finished", got["rounds"]
    seats = got["rounds"][0]["games"][0]["seats"]
    assert got["rounds"][0]["games"][0]["placings"][seats.index(late)] == 2
    assert [s["player"] for s in got["standings"]][-1] == late


def test_the_league_admin_hands_a_seat_of_a_running_league_game_on(client):
    """The league's admin token is its games' admin token: the organiser hands a
    player's seat in a game being played on, by name (its new token is in the answer),
    and the old holder's token no longer plays it. A registered player is never
    seated that way: a player is seated only by their own act (403)."""
    humans = players(client, 4, bot=None)
    league = create(client, humans, format="swiss", rounds=2)
    game = client.get(f"/v1/leagues/{league['id']}").json["rounds"][0]["games"][0]
    gid, leaving = game["game"], game["seats"][0]
    sub = client.post("/v1/players", json={"name": "Substitute"}).json
    seated = next(p for p in humans if p["id"] == game["seats"][1])
    r = client.post(f"/v1/games/{gid}/seats/0/replace", json={"name": "Substitute"},
                    headers=auth(seated["token"]))  # a player's token is no admin's
    assert r.status_code == 403
    r = client.post(f"/v1/games/{gid}/seats/0/replace", json={"player": sub["id"]},
                    headers=auth(league["admin_token"]))
    assert r.status_code == 403 and r.json["field"] == "player", r.json
    assert client.get(f"/v1/players/{sub['id']}").json["current_games"] == []
    r = client.post(f"/v1/games/{gid}/seats/0/replace", json={"name": "Substitute"},
                    headers=auth(league["admin_token"]))
    assert r.status_code == 201, r.json
    assert client.get(f"/v1/games/{gid}/view", headers=auth(r.json["token"])).json["seat"] == 0
    old = next(p for p in humans if p["id"] == leaving)
    r = client.get(f"/v1/games/{gid}/view", headers=auth(old["token"]))
    assert (r.status_code, r.json["code"]) == (403, "not-your-seat")  # a player still, with no seat here


def test_a_players_profile_lists_their_leagues(client):
    """The profile's leagues come from an index kept per player (both stores)."""
    ps = players(client, 4)
    first = create(client, ps[:2])
    second = create(client, ps[1:3], name="Winter")
    listed = {p["id"]: [lg["id"] for lg in client.get(f"/v1/players/{p['id']}").json["leagues"]] for p in ps}
    assert listed[ps[0]["id"]] == [first["id"]]
    assert set(listed[ps[1]["id"]]) == {first["id"], second["id"]}
    assert listed[ps[2]["id"]] == [second["id"]]
    assert listed[ps[3]["id"]] == []
    shown = client.get(f"/v1/players/{ps[2]['id']}").json["leagues"][0]
    assert shown["name"] == "Winter" and set(shown) == {"id", "name", "game", "format", "created_at",
                                                          "status", "version", "organiser"}  # nothing private


def test_a_leagues_null_clock_is_no_clock(client):
    """``clock: null`` is a league without a clock, as it is a game's (docs/leagues.md)."""
    league = create(client, players(client, 2), clock=None)
    gid = client.get(f"/v1/leagues/{league['id']}").json["rounds"][0]["games"][0]["game"]
    game = client.get(f"/v1/games/{gid}").json
    assert game["clock"] is None and "clock" not in game["options"]

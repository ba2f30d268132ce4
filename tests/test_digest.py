"""The daily digest, on both stores, with a real SMTP server and frozen time: a
player with ``notices: "daily"`` gets no mail per turn but one a day at their
hour (their time zone, across a change of the clocks) listing every game waiting
on them; once a day however often the sender runs; nothing on a day with no game
waiting; a reply carries moves for several games, each applied or refused on its
own."""

from __future__ import annotations

import datetime
import re

from freezegun import freeze_time

from referee.calendar import digest_hours
from referee.calendar.digest import Digests
from referee.mail import sending
from referee.players.store import players_of
from tests.playertools import auth, new_game, register
from tests.test_text_for_posts import unsigned

CLOCK = {"move_seconds": 3 * 86400}


def digests_of(service) -> Digests:
    return next(s for s in service.senders if isinstance(s, Digests))


def player(client, service, name: str, **settings) -> dict:
    """A player with a confirmed address ``name@example.org`` and these settings."""
    made = register(client, name=name.title())
    players_of(service).update(made["id"], {"email": f"{name}@example.org", "email_confirmed": True}, None)
    if settings:
        r = client.patch("/v1/players/me", json=settings, headers=auth(made["token"]))
        assert r.status_code == 200, r.json
    return made


def waiting_on(client, first, second, options) -> str:
    """A game of ``first`` and ``second`` whose move is ``first``'s."""
    gid = new_game(client, [{"player": first["id"]}, {"player": second["id"]}], options=options)["id"]
    if client.get(f"/v1/games/{gid}").json["to_act"] != [0]:
        move(client, gid, second)
    return gid


def move(client, gid: str, who: dict, pick: int = 0) -> None:
    legal = [m for m in client.get(f"/v1/games/{gid}/legal", headers=auth(who["token"])).json["moves"]
             if m["type"] != "resign"]
    r = client.post(f"/v1/games/{gid}/moves", json={"move": legal[pick % len(legal)]}, headers=auth(who["token"]))
    assert r.status_code == 201, r.json


def digests_to(smtp, address: str) -> list:
    return [m for m in smtp.inbox.to(address) if m["Message-ID"].startswith("<digest.")]


def run_at(service, moment: str) -> int:
    with freeze_time(moment):
        sending.deliver_due(service)
        return digests_of(service)(service)


def test_daily_sends_one_digest_a_day_at_the_players_hour_instead_of_turn_notices(client, service, smtp):
    with freeze_time("2026-05-04T05:00:00Z"):
        # Ann in Paris (UTC+2 in May) wants her mail at 08:00 her time: 06:00 UTC
        ann = player(client, service, "ann", notices="daily", digest_hour=8, timezone="Europe/Paris")
        bob = player(client, service, "bob")
        clocked = waiting_on(client, ann, bob, {"clock": CLOCK, "seed": 1})
        unclocked = waiting_on(client, ann, bob, {"seed": 2})
        bobs = waiting_on(client, bob, ann, {"seed": 3})  # waits on Bob, not on Ann
        sending.deliver_due(service)
    ann_mail = smtp.inbox.to("ann@example.org")
    assert not any("your turn" in m["Subject"] for m in ann_mail), [m["Subject"] for m in ann_mail]
    assert any("your turn" in m["Subject"] for m in smtp.inbox.to("bob@example.org"))  # Bob: each
    assert run_at(service, "2026-05-04T05:59:59Z") == 0
    assert run_at(service, "2026-05-04T06:00:00Z") == 1
    for again in ("2026-05-04T06:00:00Z", "2026-05-04T06:00:01Z", "2026-05-04T21:00:00Z"):
        assert run_at(service, again) == 0  # the twice-run sender sends once
    (got,) = digests_to(smtp, "ann@example.org")
    text = got.get_content()
    print(text)  # the digest as Ann reads it (pytest -s shows it)
    assert got["Message-ID"] == f"<digest.{ann['id']}.2026-05-04@league.example>"
    assert "2 games waiting on you" in got["Subject"] and "Monday 4 May 2026" in got["Subject"]
    assert got["Reply-To"].startswith(f"referee+d.{ann['id']}.")
    for gid in (clocked, unclocked):
        assert f"[{gid}]" in text and f"referee+{gid}.0." in text
        assert f"/games/{gid}#token=" in text
    assert bobs not in text
    assert text.count("Your legal moves:") == 2
    # the clocked game's deadline, in words: three days after its last move (05:00 UTC)
    assert "You have until Thursday 7 May 2026, 05:00 UTC" in _section(text, clocked), text
    # the next day, the same two games still wait: a second digest, its own date
    assert run_at(service, "2026-05-05T06:00:00Z") == 1
    assert [m["Message-ID"] for m in digests_to(smtp, "ann@example.org")][-1].endswith(".2026-05-05@league.example>")
    # Ann moves in both: on the third day nothing waits on her, and no mail comes
    with freeze_time("2026-05-05T12:00:00Z"):
        move(client, clocked, ann)
        move(client, unclocked, ann)
    assert run_at(service, "2026-05-06T06:00:00Z") == 0
    assert len(digests_to(smtp, "ann@example.org")) == 2
    # what daily keeps comes on its own: a game's result
    with freeze_time("2026-05-06T06:30:00Z"):
        resign = next(m for m in client.get(f"/v1/games/{bobs}/legal", headers=auth(bob["token"])).json["moves"]
                      if m["type"] == "resign")
        assert client.post(f"/v1/games/{bobs}/moves", json={"move": resign},
                           headers=auth(bob["token"])).status_code == 201
        sending.deliver_due(service)
    assert any("game over" in m["Subject"] and bobs in m["Subject"] for m in smtp.inbox.to("ann@example.org"))
    assert not any("your turn" in m["Subject"] for m in smtp.inbox.to("ann@example.org"))
    # back to a mail per notice: her digest is no longer due at all
    with freeze_time("2026-05-06T07:00:00Z"):
        assert client.patch("/v1/players/me", json={"notices": "each"}, headers=auth(ann["token"])).status_code == 200
        for gid in (clocked, unclocked):
            if client.get(f"/v1/games/{gid}").json["to_act"] == [1]:
                move(client, gid, bob)
    assert run_at(service, "2026-05-07T06:00:00Z") == 0
    assert digests_of(service).store.due(datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC).timestamp()) == []


def test_a_daily_player_is_still_reminded_before_a_deadline(client, service, smtp):
    from referee import timeouts

    with freeze_time("2026-05-04T05:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=8)
        bob = player(client, service, "bob")
        gid = waiting_on(client, ann, bob, {"clock": {**CLOCK, "remind_seconds": 86400}, "seed": 4})
        sending.deliver_due(service)
    assert not any("your turn" in m["Subject"] for m in smtp.inbox.to("ann@example.org"))
    with freeze_time("2026-05-06T05:00:01Z"):  # a day before her deadline, between two digests
        assert timeouts.tick(service, gid)["reminders"]
        sending.deliver_due(service)
    reminders = [m for m in smtp.inbox.to("ann@example.org") if "reminder: your turn" in m["Subject"]]
    assert len(reminders) == 1 and gid in reminders[0]["Subject"], [m["Subject"] for m in reminders]


def test_the_hour_that_the_clocks_skip_or_repeat(client, service, smtp):
    paris = "Europe/Paris"
    # spring forward (29 March 2026): 02:00 does not exist; the digest comes at 03:00 CEST
    skipped = digest_hours.moment(datetime.date(2026, 3, 29), 2, paris)
    assert skipped.isoformat() == "2026-03-29T01:00:00+00:00"
    # fall back (25 October 2026): 02:00 happens twice; the first, 02:00 CEST
    twice = digest_hours.moment(datetime.date(2026, 10, 25), 2, paris)
    assert twice.isoformat() == "2026-10-25T00:00:00+00:00"
    with freeze_time("2026-03-27T12:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=2, timezone=paris)
        bob = player(client, service, "bob")
        waiting_on(client, ann, bob, {"seed": 4})

    def sent_between(start: datetime.datetime, end: datetime.datetime) -> list[str]:
        """The moments, every quarter of an hour from ``start`` to ``end``, a digest went."""
        sent, t = [], start.replace(tzinfo=datetime.UTC)
        while t < end.replace(tzinfo=datetime.UTC):
            if run_at(service, t.isoformat()):
                sent.append(t.isoformat())
            t += datetime.timedelta(minutes=15)
        return sent

    # across the night the clocks jump: one digest a local day
    assert sent_between(datetime.datetime(2026, 3, 27, 23), datetime.datetime(2026, 3, 30, 3)) == [
        "2026-03-28T01:00:00+00:00",  # 02:00 CET
        "2026-03-29T01:00:00+00:00",  # 03:00 CEST: 02:00 was skipped
        "2026-03-30T00:00:00+00:00"]  # 02:00 CEST
    # and the night the clocks go back: 02:00 twice, one digest
    assert sent_between(datetime.datetime(2026, 10, 24, 22), datetime.datetime(2026, 10, 26, 2)) == [
        "2026-10-25T00:00:00+00:00",  # 02:00 CEST, the first 02:00
        "2026-10-26T01:00:00+00:00"]  # 02:00 CET
    days = [m["Message-ID"].split(".")[2].split("@")[0] for m in digests_to(smtp, "ann@example.org")]
    assert days == ["2026-03-28", "2026-03-29", "2026-03-30", "2026-10-25", "2026-10-26"]


def _section(text: str, gid: str) -> str:
    start = text.index(f". [{gid}] ")  # its heading, "== 2. [GAME] ..."
    end = text.find("\n== ", start)
    return text[start:end if end > 0 else len(text)]


def test_a_reply_to_the_digest_moves_in_several_games_and_a_bad_line_refuses_its_game_only(client, service, smtp):
    from tests.test_inbound_email import message, post

    with freeze_time("2026-05-04T05:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=6)
        bob = player(client, service, "bob")
        first = waiting_on(client, ann, bob, {"seed": 11})
        second = waiting_on(client, ann, bob, {"seed": 12})
        third = waiting_on(client, ann, bob, {"seed": 13})
    assert run_at(service, "2026-05-04T06:00:00Z") == 1
    (digest,) = digests_to(smtp, "ann@example.org")
    text = digest.get_content().replace("\r\n", "\n")
    moves = {gid: re.search(r"Your legal moves:\n  (.+)", _section(text, gid)).group(1) for gid in (first, second)}
    versions = {gid: client.get(f"/v1/games/{gid}").json["version"] for gid in (first, second, third)}
    body = (f"[{first}] {moves[first]}\n"
            f"[{second}]\nplay Q9\n"  # no such card: this game's moves only are refused
            f"[{'z' * 10}] play W1\n"  # no game of Ann's
            f"\nOn Monday the referee wrote:\n> [{third}] {moves[first]}\n")
    with freeze_time("2026-05-04T07:00:00Z"):
        before = len(smtp.inbox.messages)
        r = post(client, message(digest["Reply-To"], body, msgid="<digest-reply-1@example.org>"))
        assert r.status_code == 202, r.json
        games = {g["game"]: g for g in r.json["games"]}
        assert r.json["answered"] == "digest" and list(games) == [first, second, "z" * 10]
        assert games[first]["applied"] and games[first]["version"] > versions[first]
        assert not games[second]["applied"] and not games["z" * 10]["applied"]
        assert client.get(f"/v1/games/{second}").json["version"] == versions[second]
        assert client.get(f"/v1/games/{third}").json["version"] == versions[third]  # quoted: not read
        sending.deliver_due(service)
        answers = [m for m in smtp.inbox.since(before) if "ann@" in m["To"]]
        by_game = {m["Subject"].rsplit("[", 1)[1].rstrip("]"): m for m in answers}
        assert set(by_game) == {first, second}
        assert "your move is applied" in by_game[first]["Subject"]
        refused = by_game[second].get_content()
        assert "your move is refused" in by_game[second]["Subject"] and "Q9" in refused
        assert "z" * 10 in refused  # the section of no game of hers is said to be left alone
        # delivered twice: applied and answered once
        again = post(client, message(digest["Reply-To"], body, msgid="<digest-reply-1@example.org>"))
        assert again.status_code == 202
        sending.deliver_due(service)
        assert len([m for m in smtp.inbox.since(before) if "ann@" in m["To"]]) == 2
        assert client.get(f"/v1/games/{first}").json["version"] == games[first]["version"]
        # a forged key, or the address of a player whose token is new: nothing read
        forged = re.sub(r"\.[0-9a-f]{20}@", "." + "0" * 20 + "@", digest["Reply-To"])
        assert post(client, message(forged, f"[{second}] {moves[second]}", msgid="<f@x>")).status_code == 401
        assert client.get(f"/v1/games/{second}").json["version"] == versions[second]


def test_a_reply_to_the_digest_that_names_no_game_of_the_players_is_answered_all_the_same(client, service, smtp):
    from tests.test_inbound_email import message, post

    with freeze_time("2026-05-04T05:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=6)
        bob = player(client, service, "bob")
        gid = waiting_on(client, ann, bob, {"seed": 14})
    assert run_at(service, "2026-05-04T06:00:00Z") == 1
    (digest,) = digests_to(smtp, "ann@example.org")
    version = client.get(f"/v1/games/{gid}").json["version"]
    before = len(smtp.inbox.messages)
    # her move without its game's line: nobody's
    r = post(client, message(digest["Reply-To"], "play W1\n", msgid="<digest-reply-2@example.org>"))
    assert r.status_code == 202 and r.json["games"] == []
    (answer,) = [m for m in smtp.inbox.since(before) if "ann@" in m["To"]]
    assert "no game's moves found" in answer["Subject"]
    assert answer["In-Reply-To"] == "<digest-reply-2@example.org>"
    words = answer.get_content()
    assert "1 line(s) came before any [GAMEID] line" in words and "[GAMEID] play W3" in words
    assert client.get(f"/v1/games/{gid}").json["version"] == version
    # a line before the first section, beside a game's own: said in that game's answer
    before = len(smtp.inbox.messages)
    r = post(client, message(digest["Reply-To"], f"hello\n[{gid}] play Q9\n", msgid="<digest-reply-3@example.org>"))
    assert r.status_code == 202 and [g["game"] for g in r.json["games"]] == [gid]
    sending.deliver_due(service)
    (answer,) = [m for m in smtp.inbox.since(before) if "ann@" in m["To"]]
    assert gid in answer["Subject"] and "before your first [GAMEID] line were not read" in answer.get_content()


def test_over_random_games_a_digest_holds_only_what_its_players_seats_may_see(client, service, smtp):
    """A new channel for the hidden information: every digest of a player, at
    random moments of random games of three, shows no card its seat may not see at
    that version (its view then and its events), and no other seat's page link."""
    import random

    from tests.test_notices import CARD

    rnd = random.Random(42)
    with freeze_time("2026-05-01T00:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=9)
        bob, cy = player(client, service, "bob"), player(client, service, "cy")
        everyone = [ann, bob, cy]
        games = [new_game(client, [{"player": p["id"]} for p in rnd.sample(everyone, 3)],
                          options={"seed": f"digest-leak-{n}", "target": 5})["id"] for n in range(3)]
    seat_of = {gid: client.get(f"/v1/games/{gid}").json["players"].index("Ann") for gid in games}
    by_name = {"Ann": ann, "Bob": bob, "Cy": cy}
    day = datetime.datetime(2026, 5, 1, 9, tzinfo=datetime.UTC)
    checked = 0
    for _ in range(12):
        with freeze_time(day - datetime.timedelta(hours=1)):
            for gid in games:  # a few random moves in each game
                for _ in range(rnd.randrange(6)):
                    s = client.get(f"/v1/games/{gid}").json
                    if s["status"] != "active":
                        break
                    move(client, gid, by_name[s["players"][s["to_act"][0]]], rnd.randrange(9))
            sending.deliver_due(service)
        before = len(digests_to(smtp, "ann@example.org"))
        run_at(service, day.isoformat())
        for mail in digests_to(smtp, "ann@example.org")[before:]:
            text = mail.get_content().replace("\r\n", "\n")
            for gid in games:
                if f". [{gid}] " not in text:
                    continue
                section = _section(text, gid)
                version = int(re.search(r"\(#(\d+)\) ==", section).group(1))
                seat = seat_of[gid]
                seen = client.get(f"/v1/games/{gid}/view?at={version}", headers=auth(ann["token"])).get_data(
                    as_text=True)
                seen += str([e for e in client.get(f"/v1/games/{gid}/events?limit=1000",
                                                   headers=auth(ann["token"])).json["events"] if e["seq"] <= version])
                assert set(CARD.findall(unsigned(section))) <= set(CARD.findall(seen)), (section, seen)
                assert f"referee+{gid}.{seat}." in section
                checked += 1
        day += datetime.timedelta(days=1)
    assert checked >= 6, checked
    # the page links: Ann's own in her digests, never Bob's or Cy's (from their own notices)
    anns = {t for m in digests_to(smtp, "ann@example.org") for t in re.findall(r"#token=(\S+)", m.get_content())}
    others = {t for who in ("bob", "cy") for m in smtp.inbox.to(f"{who}@example.org")
              for t in re.findall(r"#token=(\S+)", m.get_content())}
    assert anns and others and not anns & others


def test_the_mail_gateway_takes_a_digests_address_and_refuses_a_forged_one(client, service, smtp):
    from referee.mail.gateway import Gateway

    with freeze_time("2026-05-04T05:00:00Z"):
        ann = player(client, service, "ann", notices="daily", digest_hour=6)
        waiting_on(client, ann, player(client, service, "bob"), {"seed": 21})
    assert run_at(service, "2026-05-04T06:00:00Z") == 1
    (digest,) = digests_to(smtp, "ann@example.org")
    address = digest["Reply-To"]
    gateway = Gateway(service, "league.example")
    assert gateway.check_recipient(address) is None
    forged = re.sub(r"\.[0-9a-f]{20}@", "." + "1" * 20 + "@", address)
    assert gateway.check_recipient(forged).startswith("550")
    # another player's id with Ann's key: no such address
    assert gateway.check_recipient(address.replace(f"d.{ann['id']}.", "d.nobodyhere.")).startswith("550")

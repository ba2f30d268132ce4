"""Whole games by e-mail only, with real processes: `referee serve` (SQLite, its
sender mailing notices to a real aiosmtpd server) and `referee mail-gateway` on the
same store, taking the players' replies by SMTP. Each player reads its notices,
picks one of the legal moves listed there and replies as people do (quoting the
notice, signing, HTML-only, Outlook's block); every mail that goes out is checked
against what its seat may see."""

from __future__ import annotations

import email.policy
import json
import os
import random
import re
import smtplib
import time
import urllib.request
from email.message import EmailMessage

import pytest

from tests.conftest import free_port
from tests.mailtools import SmtpServer
from tests.test_mail_faults import kill, wait_up
from tests.test_redis_faults import call, spawn
from tests.test_text_for_posts import CODE, unsigned, values

DOMAIN = "league.example"
GAMES = [("king-of-danger", 3, {"target": 3}),
         ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 8}),
         ("king-of-the-castle", 3, {}),
         ("kings-keys", 3, {"wild_cards": True})]


class League:
    """The referee's processes, its outgoing mail server and a way to reply."""

    def __init__(self, tmp, store: str | None = None):
        self.smtp = SmtpServer()
        self.port, self.mail_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        store = store or f"sqlite:///{tmp}/league.db"
        env = {**os.environ, "REFEREE_STORE": store, "REFEREE_SMTP_URL": self.smtp.url,
               "REFEREE_MAIL_DOMAIN": DOMAIN, "REFEREE_MAIL_FROM": f"referee@{DOMAIN}",
               "REFEREE_SEND_INTERVAL": "0.05"}
        self.serve = spawn("serve", "--port", str(self.port), "--threads", "4", env=env)
        # with Redis, the notices and answers are sent by `referee worker` (RQ)
        self.worker = spawn("worker", env=env) if store.startswith("redis") else None
        wait_up(self.base, self.serve)
        self.gateway = spawn("mail-gateway", "--port", str(self.mail_port), env=env)
        deadline = time.time() + 30
        while True:
            try:
                smtplib.SMTP("127.0.0.1", self.mail_port, timeout=5).quit()
                break
            except OSError:
                assert time.time() < deadline and self.gateway.poll() is None, "mail-gateway did not start"
                time.sleep(0.1)

    def stop(self):
        if self.worker is not None:
            kill(self.worker)
        kill(self.gateway)
        kill(self.serve)
        self.smtp.stop()

    def send(self, msg: EmailMessage, rcpt: str | None = None, mail_from: str = "player@players.example"):
        with smtplib.SMTP("127.0.0.1", self.mail_port, timeout=30) as s:
            s.send_message(msg, from_addr=mail_from, to_addrs=[rcpt or msg["To"]])

    def mails_to(self, address: str) -> list:
        return self.smtp.inbox.to(address)


@pytest.fixture(scope="module")
def league(tmp_path_factory):
    lg = League(tmp_path_factory.mktemp("league"))
    yield lg
    lg.stop()


def address(game: str, seat: int) -> str:
    return f"p{seat}.{game}@players.example"  # each game's own: each test reads its own mail


def notice_version(mail) -> int:
    return int(mail["Message-ID"].strip("<>").split("@")[0].split(".")[2])


def legal_moves(text: str) -> list[str]:
    text = text.replace("\r\n", "\n")
    if "Your legal moves:\n" not in text:
        return []
    block = text.split("Your legal moves:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines() if line.strip()]


def reply_to(notice, move: str, rnd: random.Random, version: int) -> EmailMessage:
    """A person's reply to ``notice``: the move first, then whatever a mail program adds."""
    quoted = "\n".join("> " + line for line in notice.get_content().splitlines())
    style = rnd.choice(["gmail", "outlook", "french", "html", "signature", "german"])
    first = f"{move}\n#{version}\n"
    bodies = {
        "gmail": f"{first}\nOn Mon, 23 Nov 2026 at 10:00, Referee <\n{notice['From']}> wrote:\n{quoted}\n",
        "outlook": f"{first}\n________________________________\nFrom: Referee <{notice['From']}>\n"
                   f"Sent: Monday, 23 November 2026 10:00\nTo: Player\nSubject: {notice['Subject']}\n\n"
                   + notice.get_content(),
        "french": f"{first}\nLe lun. 23 nov. 2026 à 10:00, Referee a écrit :\n{quoted}\n",
        "german": f"{first}\nAm 23.11.2026 um 10:00 schrieb Referee:\n{quoted}\n",
        "signature": f"{first}\n-- \nA player\nSent from my phone\n",
    }
    msg = EmailMessage(policy=email.policy.SMTP)
    msg["From"] = notice["To"]
    msg["To"] = notice["Reply-To"]
    msg["Subject"] = "Re: " + notice["Subject"]
    msg["Message-ID"] = f"<{rnd.getrandbits(64):x}@players.example>"
    msg["In-Reply-To"] = notice["Message-ID"]
    if style == "html":
        html = (f"<html><body><div>{move}</div><div>#{version}</div><br><blockquote>"
                + notice.get_content().replace("\n", "<br>") + "</blockquote></body></html>")
        msg.set_content(html, subtype="html")
    else:
        msg.set_content(bodies[style])
    return msg


class Leaks:
    """What each seat may not see at a version: the codes (cards, hidden pieces) in
    the admin's view and events then that are in neither the seat's view nor its events."""

    def __init__(self, base, gid, tokens, admin):
        self.base, self.gid, self.tokens, self.admin = base, gid, tokens, admin
        self.cache: dict = {}
        self.events: dict = {}

    def seen(self, token, version):
        if (token, version) not in self.cache:
            view = call(self.base, "GET", f"/v1/games/{self.gid}/view?at={version}", token=token)[1]
            events = self.events.setdefault(token, [])
            after = events[-1]["seq"] if events else 0
            if after < version:  # the events as this token is shown them, read once each
                events += call(self.base, "GET", f"/v1/games/{self.gid}/events?after={after}&limit=1000",
                               token=token)[1]["events"]
            self.cache[token, version] = values(view["view"]) | values([e for e in events if e["seq"] <= version])
        return self.cache[token, version]

    def hidden(self, seat, version) -> set[str]:
        everything = self.seen(self.admin, version)
        allowed = self.seen(self.tokens[seat], version)
        return {s for s in everything - allowed if len(s) <= 4 and CODE.match(s)}

    def check(self, mail, seat):
        text = unsigned(mail.get_content())
        for code in self.hidden(seat, notice_version(mail)):
            assert not re.search(rf"(?<![A-Za-z0-9*]){re.escape(code)}(?![A-Za-z0-9*])", text), \
                f"a mail to seat {seat} shows {code}, hidden from it:\n{text}"


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_by_mail_only(league, game, players, options):
    play_by_mail(league, game, players, options)


def test_a_whole_game_by_mail_with_redis_and_rq_workers(tmp_path, redis_url):
    """The same with the Redis store: moves from the gateway, notices and answers
    swept and sent by `referee worker` through RQ."""
    lg = League(tmp_path, store=redis_url)
    try:
        play_by_mail(lg, "king-of-danger", 3, {"target": 3})
    finally:
        lg.stop()


def play_by_mail(league, game, players, options):
    names = ["Ann", "Bob", "Cy"][:players]
    code, created = call(league.base, "POST", "/v1/games", {
        "game": game, "options": {**options, "seed": f"by-mail-{game}"},
        "players": [{"name": n, "email": address(game, i)} for i, n in enumerate(names)]})
    assert code == 201, created
    gid, admin = created["id"], created["admin_token"]
    tokens = [s["token"] for s in created["seats"]]
    leaks = Leaks(league.base, gid, tokens, admin)
    rnd = random.Random(game)
    answered, sent = set(), []
    # Each mail is read and checked once, as it comes (re-reading a whole game's
    # mail at every step made a 290-reply game take minutes): (seat, mail, its
    # notice's version, its text) of every mail to this game's seats so far.
    mails: list[tuple[int, EmailMessage, int, str]] = []
    read = 0
    deadline = time.time() + 600
    over = False
    while not over or len(answered) < len(sent):  # at the end, the last answer may come after game-over
        assert time.time() < deadline, f"the game by mail stalled; {len(sent)} replies sent"
        new = league.smtp.inbox.since(read)
        read += len(new)
        for m in new:
            to = str(m["To"])
            seat = next((s for s in range(players) if address(game, s) in to), None)
            if seat is None:  # another test's mail in the same outgoing server
                continue
            text = m.get_content()
            assert m["Reply-To"].startswith(f"referee+{gid}.{seat}.") and m["Reply-To"].endswith("@" + DOMAIN)
            assert m["Auto-Submitted"] == "auto-generated"
            leaks.check(m, seat)
            # what happened is told in words and with names, never "seat 1"
            happened = text.replace("\r\n", "\n").partition("Since your last notice:\n")[2]
            assert not re.search(r"\bseat \d\b", happened.split("\n\n")[0], re.I), text
            if m["In-Reply-To"]:
                answered.add(m["In-Reply-To"])
            over = over or ": game over" in m["Subject"]
            mails.append((seat, m, notice_version(m), text))
        if over:
            time.sleep(0.05)
            continue
        newest = max(version for _, _, version, _ in mails) if mails else 0
        replied = {notice for notice, _ in sent}
        waiting = sorted(((seat, m, text) for seat, m, version, text in mails  # seat by seat, as they came
                          if version == newest and legal_moves(text) and m["Message-ID"] not in replied),
                         key=lambda w: w[0])
        if not waiting or len(answered) < len(sent):
            time.sleep(0.05)  # the referee has not answered the last reply yet
            continue
        seat, notice, text = rnd.choice(waiting)
        # a whole game: nobody resigns or asks for a draw or a take-back
        moves = [x for x in legal_moves(text) if not x.startswith(("resign", "offer draw", "take back"))]
        reply = reply_to(notice, rnd.choice(moves), rnd, newest)
        league.send(reply)
        sent.append((notice["Message-ID"], reply["Message-ID"]))
    summary = call(league.base, "GET", f"/v1/games/{gid}")[1]
    assert summary["status"] == "finished", summary
    assert len(sent) >= 5
    # every reply was answered once, by a mail threaded under it
    assert {r for _, r in sent} <= answered
    ids = [m["Message-ID"] for seat in range(players) for m in league.mails_to(address(game, seat))]
    assert len(ids) == len(set(ids))
    # and it audits valid, its bot-free moves all made by replies
    req = urllib.request.Request(f"{league.base}/v1/games/{gid}/export", headers={"Authorization": f"Bearer {admin}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        export = r.read()
    req = urllib.request.Request(f"{league.base}/v1/audit", data=export, method="POST",
                                 headers={"Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(req, timeout=60) as r:
        assert json.loads(r.read())["valid"]


def new_game(league, tag: str, game="king-of-danger"):
    code, created = call(league.base, "POST", "/v1/games", {
        "game": game, "options": {"seed": tag},
        "players": [{"name": "Ann", "email": f"ann.{tag}@players.example"}, {"name": "Bob", "email": f"bob.{tag}@players.example"}]})
    assert code == 201, created
    return created


def wait_mail(league, to: str, count: int, within: float = 15.0) -> list:
    deadline = time.time() + within
    while len(league.mails_to(to)) < count:
        assert time.time() < deadline, f"{len(league.mails_to(to))} mail(s) to {to}, not {count}"
        time.sleep(0.05)
    return league.mails_to(to)


def plain(to: str, body: str, mid: str, **headers) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "someone@elsewhere.example", to, "Re: move", mid
    for k, v in headers.items():
        del msg[k.replace("_", "-")]
        msg[k.replace("_", "-")] = v
    msg.set_content(body)
    return msg


def test_the_gateway_refuses_what_is_not_a_seats_address_while_the_sender_is_on_the_line(league):
    created = new_game(league, "gw-refuse")
    gid = created["id"]
    ann = "ann.gw-refuse@players.example"
    first = wait_mail(league, ann, 1)[0]
    seat_address = first["Reply-To"]
    forged = seat_address.split("@")[0][:-4] + "0000@" + DOMAIN
    for rcpt in (f"referee+{gid}.0.{'0' * 20}@{DOMAIN}", forged, f"referee+nosuchgame99@{DOMAIN}",
                 f"someone@{DOMAIN}", "referee@elsewhere.example", seat_address.replace(DOMAIN, "elsewhere.example")):
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            league.send(plain(rcpt, "play W1", f"<refuse-{rcpt}>"), rcpt=rcpt)
        code, text = refused.value.recipients[rcpt]
        assert code == 550, (rcpt, code, text)
    assert call(league.base, "GET", f"/v1/games/{gid}")[1]["version"] == 2
    # the token form: a bad token is refused at the end of DATA, nobody is mailed
    with pytest.raises(smtplib.SMTPDataError) as refused:
        league.send(plain(f"referee+{gid}@{DOMAIN}", "token: nope\nplay W1", "<bad-token@x>"))
    assert refused.value.smtp_code == 550
    # a mail that names no game: nobody to answer, so the sender hears it here
    with pytest.raises(smtplib.SMTPDataError) as refused:
        league.send(plain(f"referee@{DOMAIN}", "play W1", "<no-game@x>"))
    assert refused.value.smtp_code == 550 and b"name the game" in refused.value.smtp_error
    time.sleep(0.5)
    assert len(league.mails_to(ann)) == 1 and call(league.base, "GET", f"/v1/games/{gid}")[1]["version"] == 2


def test_bounces_and_auto_replies_are_dropped_unanswered(league):
    created = new_game(league, "gw-robots")
    gid = created["id"]
    ann = "ann.gw-robots@players.example"
    notice = wait_mail(league, ann, 1)[0]
    to = notice["Reply-To"]
    robots = [
        (plain(to, "I am out of the office until Monday.", "<ooo@x>", Auto_Submitted="auto-replied"), None),
        (plain(to, "Away", "<ooo2@x>", Precedence="bulk"), None),
        (plain(to, "Away", "<ooo3@x>", X_Autoreply="yes"), None),
        (plain(to, "Delivery failed", "<dsn@x>"), ""),  # MAIL FROM:<>
        (plain(to, "Undeliverable: play W1", "<dsn2@x>", From="MAILER-DAEMON@mx.example"), None),
    ]
    for msg, mail_from in robots:
        if mail_from is None:
            league.send(msg)
        else:
            league.send(msg, mail_from=mail_from)
    time.sleep(1.0)
    assert len(league.mails_to(ann)) == 1  # nothing answered
    assert call(league.base, "GET", f"/v1/games/{gid}")[1]["version"] == 2


def test_every_mail_gets_one_answer_show_help_refusal_and_moves(league):
    created = new_game(league, "gw-answers")
    gid, tokens = created["id"], [s["token"] for s in created["seats"]]
    ann, bob = "ann.gw-answers@players.example", "bob.gw-answers@players.example"
    summary = call(league.base, "GET", f"/v1/games/{gid}")[1]
    seat = summary["to_act"][0]
    mover, other = (ann, bob) if seat == 0 else (bob, ann)
    notice = wait_mail(league, mover, 1)[0]
    to = notice["Reply-To"]
    # show and help: one answer each, even when the mail comes twice
    league.send(plain(to, "show", "<show-1@x>"))
    league.send(plain(to, "show", "<show-1@x>"))
    league.send(plain(to, "HELP\n\nOn Mon, Referee wrote:\n> play W1", "<help-1@x>"))
    wait_mail(league, mover, 3)
    time.sleep(0.5)
    got = league.mails_to(mover)
    assert len(got) == 3, [m["Subject"] for m in got]
    answers = {m["In-Reply-To"]: m for m in got[1:]}  # the sender keeps no order between two answers
    assert "the game as it stands" in answers["<show-1@x>"]["Subject"]
    assert legal_moves(answers["<show-1@x>"].get_content()) == legal_moves(notice.get_content())
    assert "how to play by e-mail" in answers["<help-1@x>"]["Subject"] and "#N" in answers["<help-1@x>"].get_content()
    # answers go to the registered address, never to the From line
    assert not league.mails_to("someone@elsewhere.example")
    # a move that is not legal: refused, with its rule and the legal moves, nothing changed
    legal = call(league.base, "GET", f"/v1/games/{gid}/legal", token=tokens[seat])[1]["text"]
    unplayable = next(f"play {c}" for c in ("W1", "W2", "W3", "C1", "C2", "C3", "KD", "KW")
                      if f"play {c}" not in legal)
    league.send(plain(to, unplayable, "<illegal@x>"))
    refusal = wait_mail(league, mover, 4)[3]
    text = refusal.get_content()
    assert "refused" in refusal["Subject"] and "Refused (" in text and refusal["In-Reply-To"] == "<illegal@x>"
    assert legal_moves(text) == legal
    assert call(league.base, "GET", f"/v1/games/{gid}")[1]["version"] == 2
    # a mail with no move: answered, nothing changed
    league.send(plain(to, "\n\n-- \nAnn", "<empty@x>"))
    assert "no move" in wait_mail(league, mover, 5)[4].get_content()
    # a stale #N: refused, nothing changed
    league.send(plain(to, f"{legal[0]}\n#1", "<stale@x>"))
    assert "version" in wait_mail(league, mover, 6)[5].get_content()
    # the move: applied once, answered once, though delivered twice
    league.send(plain(to, f"{legal[0]}\n#2", "<move@x>"))
    league.send(plain(to, f"{legal[0]}\n#2", "<move@x>"))
    applied = wait_mail(league, mover, 7)[6]
    assert "applied" in applied["Subject"] and f"Applied: {legal[0]}" in applied.get_content()
    time.sleep(0.5)
    assert sum("applied" in m["Subject"] for m in league.mails_to(mover)) == 1
    assert call(league.base, "GET", f"/v1/games/{gid}")[1]["version"] >= 3
    assert wait_mail(league, other, 1)

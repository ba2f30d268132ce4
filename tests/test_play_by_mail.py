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
from tests.test_text_for_posts import CODE, values

DOMAIN = "league.example"
GAMES = [("king-of-danger", 3, {"target": 3}),
         ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 8}),
         ("king-of-the-castle", 3, {}),
         ("kings-keys", 3, {"wild_cards": True})]


class League:
    """The referee's processes, its outgoing mail server and a way to reply."""

    def __init__(self, tmp):
        self.smtp = SmtpServer()
        self.port, self.mail_port = free_port(), free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "REFEREE_STORE": f"sqlite:///{tmp}/league.db", "REFEREE_SMTP_URL": self.smtp.url,
               "REFEREE_MAIL_DOMAIN": DOMAIN, "REFEREE_MAIL_FROM": f"referee@{DOMAIN}",
               "REFEREE_SEND_INTERVAL": "0.05"}
        self.serve = spawn("serve", "--port", str(self.port), "--threads", "4", env=env)
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

    def seen(self, token, version):
        view = call(self.base, "GET", f"/v1/games/{self.gid}/view?at={version}", token=token)[1]
        events = call(self.base, "GET", f"/v1/games/{self.gid}/events?limit=1000", token=token)[1]["events"]
        return values(view["view"]) | values([e for e in events if e["seq"] <= version])

    def hidden(self, seat, version) -> set[str]:
        if (seat, version) not in self.cache:
            everything = self.seen(self.admin, version)
            allowed = self.seen(self.tokens[seat], version)
            self.cache[seat, version] = {s for s in everything - allowed if len(s) <= 4 and CODE.match(s)}
        return self.cache[seat, version]

    def check(self, mail, seat):
        text = mail.get_content()
        for code in self.hidden(seat, notice_version(mail)):
            assert not re.search(rf"(?<![A-Za-z0-9*]){re.escape(code)}(?![A-Za-z0-9*])", text), \
                f"a mail to seat {seat} shows {code}, hidden from it:\n{text}"


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_a_whole_game_by_mail_only(league, game, players, options):
    names = ["Ann", "Bob", "Cy"][:players]
    code, created = call(league.base, "POST", "/v1/games", {
        "game": game, "options": {**options, "seed": f"by-mail-{game}"},
        "players": [{"name": n, "email": address(game, i)} for i, n in enumerate(names)]})
    assert code == 201, created
    gid, admin = created["id"], created["admin_token"]
    tokens = [s["token"] for s in created["seats"]]
    leaks = Leaks(league.base, gid, tokens, admin)
    rnd = random.Random(game)
    checked, answered, sent = set(), set(), []
    deadline = time.time() + 240
    over = False
    while not over:
        assert time.time() < deadline, f"the game by mail stalled; {len(sent)} replies sent"
        mails = [(seat, m) for seat in range(players) for m in league.mails_to(address(game, seat))]
        for seat, m in mails:
            if m["Message-ID"] in checked:
                continue
            checked.add(m["Message-ID"])
            assert m["Reply-To"].startswith(f"referee+{gid}.{seat}.") and m["Reply-To"].endswith("@" + DOMAIN)
            assert m["Auto-Submitted"] == "auto-generated"
            leaks.check(m, seat)
            # what happened is told in words and with names, never "seat 1"
            happened = m.get_content().replace("\r\n", "\n").partition("Since your last notice:\n")[2]
            assert not re.search(r"\bseat \d\b", happened.split("\n\n")[0], re.I), m.get_content()
            if m["In-Reply-To"]:
                answered.add(m["In-Reply-To"])
            over = over or "game-over" in m["Subject"]
        if over:
            break
        newest = max(notice_version(m) for _, m in mails) if mails else 0
        waiting = [(seat, m) for seat, m in mails if notice_version(m) == newest and legal_moves(m.get_content())
                   and m["Message-ID"] not in {x[0] for x in sent}]
        if not waiting or len(answered) < len(sent):
            time.sleep(0.05)  # the referee has not answered the last reply yet
            continue
        seat, notice = rnd.choice(waiting)
        moves = [x for x in legal_moves(notice.get_content()) if not x.startswith("resign")]
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

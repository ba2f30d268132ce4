"""Votes and disputes by e-mail: replies to a seat's notice that say `propose draw`,
`vote yes` / `vote no` or `dispute …`, taken through POST /v1/inbound/email (both
stores), each answered on the seat's channels, read back from a real SMTP server."""

from __future__ import annotations

import time

from referee.mail import sending
from tests.test_inbound_email import message, post

PLAYERS = [{"name": "Ann", "email": "ann@players.example"}, {"name": "Bob", "email": "bob@players.example"},
           {"name": "Cy", "email": "cy@players.example"}]


class Table:
    """A game of King of Danger made over HTTP, read back with its admin's or a seat's token."""

    def __init__(self, client, seed: str, players: int):
        r = client.post("/v1/games", json={"game": "king-of-danger", "players": PLAYERS[:players],
                                           "options": {"seed": seed}})
        assert r.status_code == 201, r.json
        self.client, self.id = client, r.json["id"]
        self.tokens = {"admin": r.json["admin_token"], **{i: s["token"] for i, s in enumerate(r.json["seats"])}}

    def get(self, path: str, who):
        return self.client.get(f"/v1/games/{self.id}{path}", headers={"Authorization": f"Bearer {self.tokens[who]}"})

    def summary(self) -> dict:
        return self.get("", "admin").json


def table(client, seed: str, players=3) -> tuple[Table, object]:
    return Table(client, seed, players), client.application.extensions["referee"]


def reply(client, service, g: Table, seat: int, body: str, msgid: str):
    """A seat's reply to its notice: sent to its reply address, the notice quoted."""
    to = sending.reply_address(service, g.id, seat)
    return post(client, message(to, f"{body}\n\nOn Monday Referee wrote:\n> play W1\n> vote no\n", msgid=msgid))


def answers(service, smtp, before: int) -> dict:
    """The answers sent since ``before`` mails, by the mail they answer: (to, subject, text)."""
    sending.deliver_due(service, time.time() + 10**6)
    out = {}
    for m in smtp.inbox.since(before):
        if m["In-Reply-To"]:
            out.setdefault(m["In-Reply-To"], []).append((str(m["To"]), m["Subject"], m.get_content()))
    return out


def log_types(g: Table) -> list[str]:
    return [e["type"] for e in g.get("/events", "admin").json["events"]]


def test_a_draw_proposed_and_carried_by_mail_answered_once_each(client, smtp):
    g, service = table(client, "mail-draw")
    before = len(smtp.inbox.messages)
    r = reply(client, service, g, 0, "propose draw", "<p@x>")
    assert r.status_code == 202, r.json
    assert r.json["answered"] == "propose" and r.json["vote"]["proposal"] == "draw"
    vote_id = r.json["vote"]["id"]
    assert g.get("/view", 2).json["vote"]["id"] == vote_id
    r = reply(client, service, g, 1, "Vote yes", "<y1@x>")
    assert r.status_code == 202 and r.json["answered"] == "vote", r.json
    assert r.json["vote"] == {"id": vote_id, "proposal": "draw", "by": 0, "state": "open", "yes": [0, 1]}
    r = reply(client, service, g, 2, "vote yes", "<y2@x>")
    assert r.status_code == 202 and r.json["vote"]["state"] == "carried", r.json
    assert g.summary()["status"] == "finished" and g.get("/view", 0).json["vote"] is None
    got = answers(service, smtp, before)
    assert [(to, subject) for to, subject, _ in got["<p@x>"]] == [
        (PLAYERS[0]["email"], got["<p@x>"][0][1])] and "your request is taken" in got["<p@x>"][0][1]
    assert f"Proposed a draw (vote {vote_id})" in got["<p@x>"][0][2]
    assert len(got["<y1@x>"]) == 1 and "bob@" in got["<y1@x>"][0][0]
    assert f"Voted yes on vote {vote_id} (draw): it waits" in got["<y1@x>"][0][2]
    assert len(got["<y2@x>"]) == 1 and "carried, every player said yes" in got["<y2@x>"][0][2]


def test_each_mail_delivered_twice_is_acted_on_once_and_answered_once(client, smtp):
    g, service = table(client, "mail-twice")
    before = len(smtp.inbox.messages)
    first = reply(client, service, g, 0, "propose pause", "<twice-p@x>")
    assert first.status_code == 202, first.json
    again = reply(client, service, g, 0, "propose pause", "<twice-p@x>")
    assert again.status_code == 202 and again.json == first.json
    vote_id = first.json["vote"]["id"]
    # the last yes carries the vote: delivered again after it ended, it is still the same answer
    assert reply(client, service, g, 1, "vote yes", "<twice-1@x>").status_code == 202
    yes = reply(client, service, g, 2, "vote yes", "<twice-2@x>")
    assert yes.status_code == 202 and yes.json["vote"]["state"] == "carried", yes.json
    assert g.get("/view", 0).json["paused_by_vote"] is True
    again = reply(client, service, g, 2, "vote yes", "<twice-2@x>")
    assert again.status_code == 202 and again.json == yes.json
    dispute = reply(client, service, g, 1, "dispute #2 The deal looks wrong to me:\nCy had two aces.", "<twice-d@x>")
    assert dispute.status_code == 202, dispute.json
    assert dispute.json["dispute"]["seq"] == 2
    assert dispute.json["dispute"]["text"] == "The deal looks wrong to me:\nCy had two aces."
    again = reply(client, service, g, 1, "dispute #2 The deal looks wrong to me:\nCy had two aces.", "<twice-d@x>")
    assert again.status_code == 202 and again.json == dispute.json
    types = log_types(g)
    assert types.count("vote-opened") == 1 and types.count("voted") == 2 and types.count("dispute-opened") == 1
    assert [d["id"] for d in g.get("/view", 0).json["disputes"]] == [dispute.json["dispute"]["id"]]
    got = answers(service, smtp, before)
    for mid in ("<twice-p@x>", "<twice-1@x>", "<twice-2@x>", "<twice-d@x>"):
        assert len(got[mid]) == 1, (mid, got[mid])
    assert f"Voted yes on vote {vote_id} (pause): carried" in got["<twice-2@x>"][0][2]
    assert "Disputed event 2 (dispute" in got["<twice-d@x>"][0][2]


def test_a_vote_answered_no_by_mail_ends_it(client, smtp):
    g, service = table(client, "mail-no", players=2)
    vote_id = reply(client, service, g, 1, "propose cancel", "<c@x>").json["vote"]["id"]
    before = len(smtp.inbox.messages)
    r = reply(client, service, g, 0, "VOTE NO", "<no@x>")
    assert r.status_code == 202 and r.json["vote"]["state"] == "failed", r.json
    assert g.summary()["status"] == "active"
    text = answers(service, smtp, before)["<no@x>"][0][2]
    assert f"Voted no on vote {vote_id} (cancel): it failed (Ann said no)" in text


def test_refusals_name_their_rule_are_answered_and_write_nothing(client, smtp):
    g, service = table(client, "mail-refused")
    version = g.summary()["version"]
    before = len(smtp.inbox.messages)
    refused = {
        "<none@x>": ("vote yes", 404, "no-such-vote"),
        "<maybe@x>": ("vote maybe", 400, "yes"),
        "<what@x>": ("propose rematch", 400, "proposal"),
        "<resume@x>": ("propose resume", 400, "proposal"),
        "<empty@x>": ("dispute", 400, "text"),
        "<long@x>": ("dispute " + "x" * 2001, 400, "text"),
        "<seq@x>": ("dispute #999 that one", 400, "seq"),
        "<more@x>": ("propose draw\nplay W1", 400, "body"),
        "<version@x>": ("#2\npropose draw", 400, "version"),
    }
    for mid, (body, status, rule) in refused.items():
        r = reply(client, service, g, 0, body, mid)
        assert r.status_code == status, (body, r.json)
        assert (r.json.get("field") or r.json["code"]) == rule, (body, r.json)
    assert g.summary()["version"] == version  # nothing written
    got = answers(service, smtp, before)
    for mid, (body, _, rule) in refused.items():
        assert len(got[mid]) == 1, (body, got.get(mid))
        to, subject, text = got[mid][0]
        assert "ann@" in to and "your request is refused" in subject and f"Refused ({rule}):" in text
    assert "no vote is under way" in got["<none@x>"][0][2]
    # a vote under way: a second proposal is refused with its rule
    assert reply(client, service, g, 1, "propose draw", "<open@x>").status_code == 202
    r = reply(client, service, g, 2, "propose cancel", "<second@x>")
    assert r.status_code == 409 and r.json["code"] == "vote-open"
    # answering one's own vote again
    r = reply(client, service, g, 1, "vote yes", "<own@x>")
    assert r.status_code == 409 and r.json["code"] == "vote-closed"


def test_help_names_the_votes_and_disputes(client, smtp):
    g, service = table(client, "mail-help", players=2)
    before = len(smtp.inbox.messages)
    assert reply(client, service, g, 0, "help", "<help@x>").status_code == 202
    text = answers(service, smtp, before)["<help@x>"][0][2]
    assert "'propose draw'" in text and "'vote yes' or 'vote no'" in text and "'dispute #N" in text


def test_a_vote_carried_by_two_seats_mails_through_the_mail_gateway(client, smtp):
    """Over SMTP into the referee's own mail gateway: the seats' replies are taken
    (250), a refusal too (told to the seat, not bounced), and the vote carries."""
    import smtplib

    from referee.mail import gateway
    from tests.conftest import free_port

    g, service = table(client, "mail-gateway", players=2)
    port = free_port()
    server = gateway.controller(service, "127.0.0.1", port, "league.example")
    server.start()
    try:
        def send(seat: int, body: str, msgid: str) -> str:
            to = sending.reply_address(service, g.id, seat)
            raw = message(to, f"{body}\n\n-- \nsent by a player\n", msgid=msgid)
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp_client:
                smtp_client.ehlo()
                smtp_client.mail(PLAYERS[seat]["email"])
                smtp_client.rcpt(to)
                code, said = smtp_client.data(raw)
            assert code == 250, said
            return said.decode()

        before = len(smtp.inbox.messages)
        assert "refused" in send(1, "vote yes", "<gw-early@x>")  # nothing to answer yet
        assert send(0, "propose draw", "<gw-p@x>") == "OK"
        assert send(1, "vote yes", "<gw-y@x>") == "OK"
    finally:
        server.stop()
    assert g.summary()["status"] == "finished"
    assert log_types(g).count("vote-carried") == 1
    got = answers(service, smtp, before)
    assert "Refused (no-such-vote)" in got["<gw-early@x>"][0][2]
    assert "carried, every player said yes" in got["<gw-y@x>"][0][2]

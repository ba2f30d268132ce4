"""Daily digests through a sender killed with -9, with real processes: `referee
serve` (SQLite, its embedded sender) or `referee worker` (Redis, its sender) and a
real aiosmtpd server.

What holds (docs/play-by-mail.md, "The daily digest"): a digest is claimed per
player and local date before it is sent, so a second sender never sends it
beside the first; a sender killed before the SMTP server took the digest leaves
it to the next sender, which sends it once; killed after the server took it and
before it was marked sent (the one-write window every notice has), the next
sender sends it again, the same mail with the same Message-ID: at least once,
and exactly once but in that window."""

from __future__ import annotations

import collections
import os
import signal
import time

import pytest

from referee.calendar.digest import Digests
from referee.players.store import players_of
from referee.store import open_store
from referee.system import assemble
from tests.conftest import free_port
from tests.test_mail_faults import kill, mail_env, mode_store, serve_and_sender, wait_up
from tests.test_redis_faults import call, spawn


def digests(smtp) -> collections.Counter:
    with smtp.inbox.lock:
        return collections.Counter(m["Message-ID"] for m in smtp.inbox.messages
                                   if m["Message-ID"].startswith("<digest."))


def wait_for(check, within: float = 20.0, what: str = ""):
    deadline = time.time() + within
    while time.time() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"never happened: {what}")


def daily_player(base, name: str) -> dict:
    code, made = call(base, "POST", "/v1/players", {"name": name})
    assert code == 201, made
    code, _ = call(base, "PATCH", "/v1/players/me", {"notices": "daily", "digest_hour": 8}, token=made["token"])
    assert code == 200
    return made


def waiting_game(base, first: dict, second: dict, seed: str) -> str:
    code, made = call(base, "POST", "/v1/games", {"game": "king-of-danger", "options": {"seed": seed},
                                                  "players": [{"player": first["id"]},
                                                              {"invite_player": second["id"]}]},
                      token=first["token"])
    assert code == 201, made
    gid = made["id"]
    assert call(base, "POST", f"/v1/games/{gid}/join", {}, token=second["token"])[0] == 201
    # (with RQ the deal is a job of the worker's: the game is active once it is dealt)
    state = wait_for(lambda: (s := call(base, "GET", f"/v1/games/{gid}")[1])["status"] == "active" and s,
                     what="the game dealt")
    if state["to_act"] == [1]:
        move = call(base, "GET", f"/v1/games/{gid}/legal", token=second["token"])[1]["moves"][0]
        assert call(base, "POST", f"/v1/games/{gid}/moves", {"move": move}, token=second["token"])[0] == 201
    return gid


@pytest.mark.parametrize("mode", ["serve-sqlite", "worker-redis"])
def test_a_sender_killed_mid_digest_leaves_it_sent_once_and_after_the_server_took_it_resends_it_same(
        tmp_path, request, mode):
    from tests.mailtools import SmtpServer

    smtp = SmtpServer()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    url = mode_store(mode, tmp_path, request)
    env = mail_env(smtp, url)
    serve, sender = serve_and_sender(mode, port, env)
    procs = [serve, sender]
    here = assemble(open_store(url))  # the test's own view of the same store
    due = next(s for s in here.senders if isinstance(s, Digests)).store
    try:
        wait_up(base, serve)
        ann, cy, bob = daily_player(base, "Ann"), daily_player(base, "Cy"), daily_player(base, "Bob")
        for n, who in enumerate((ann, cy)):
            waiting_game(base, who, bob, f"digest-kill-{mode}-{n}")
        # their addresses confirmed only now: the games keep no contact of theirs, so the
        # digests are all the SMTP server gets
        for who in (ann, cy):
            players_of(here).update(who["id"], {"email": f"{who['name'].lower()}@example.org",
                                                "email_confirmed": True}, None)

        def restart():
            nonlocal sender, serve
            if mode == "serve-sqlite":
                sender = serve = spawn("serve", "--port", str(port), "--threads", "4", env=env)
                wait_up(base, serve)
            else:
                sender = spawn("worker", env=env)
            procs.append(sender)

        # Ann's digest: its sender killed while the server holds the message (dropped
        # with the connection), then taken over once the claim lapses: sent once
        smtp.inbox.delay = 2.0
        due.schedule(ann["id"], time.time() - 1)
        wait_for(lambda: smtp.inbox.in_data > 0, what="the sender started Ann's digest")
        kill(sender)
        smtp.inbox.delay = 0.0
        restart()
        wait_for(lambda: digests(smtp), what="Ann's digest sent")
        # Cy's: killed the moment the server kept it, before its 250 reached the sender
        kept: list[str] = []
        victim = sender

        def die(msg, victim=victim):
            kept.append(msg["Message-ID"])
            os.killpg(victim.pid, signal.SIGKILL)

        smtp.inbox.on_accept = die
        due.schedule(cy["id"], time.time() - 1)
        wait_for(lambda: victim.poll() is not None, what="the sender killed on Cy's digest")
        victim.wait(10)
        restart()
        wait_for(lambda: len(digests(smtp)) == 2 and max(digests(smtp).values()) == 2, within=30,
                 what="Cy's digest sent again")
        time.sleep(1.0)  # nothing more on its way
        got = digests(smtp)
        anns = [m for m in got if f".{ann['id']}." in m]
        cys = [m for m in got if f".{cy['id']}." in m]
        assert len(anns) == 1 and got[anns[0]] == 1, got  # killed mid-message: once
        assert kept == cys and got[cys[0]] == 2, got  # killed in the window: again, the same id
        with smtp.inbox.lock:
            twice = [m.get_content() for m in smtp.inbox.messages if m["Message-ID"] == cys[0]]
        assert twice[0] == twice[1]  # the same games, as first kept
        day = cys[0].split(".")[2].split("@")[0]
        assert due.state(ann["id"], day) == due.state(cy["id"], day) == "sent"
        assert all(at > time.time() for _, at in due.due(time.time() + 3 * 86400))  # tomorrow's, next
    finally:
        for p in procs:
            kill(p)
        smtp.stop()

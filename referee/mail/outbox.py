"""The notice outbox: every notice a seat is owed, kept durably before it is sent.

A notice is keyed by game, seat, version and reason (its id,
``GAME.SEAT.VERSION.REASON``), so queueing the same notice twice (a retry, a
restart, two processes sweeping at once) stores it once, and the e-mail carries
that id as its Message-ID. A notice is written whole when it is queued: what
happened since the seat's last notice (the log's events redacted for that seat,
described in words), the seat's own text view, its legal moves in text notation
and its deadline. Nothing in it comes from anything but what that seat may see
(the spectators' webhook and the organiser: what an onlooker may see).

``queue_notice`` is the call other features use (a clock's reminder, an answer to
a mail); ``sweep`` queues the notices the log makes due (a seat to act, a seat out
of time, the game over, the organiser's); ``referee.mail.sending`` delivers what
is due, each channel on its own, retrying with backoff; ``referee.mail.words``
writes it as its reader gets it.
"""

from __future__ import annotations

import datetime
import os
import time

from referee import narration
from referee.appended import Appended
from referee.caller import Caller
from referee.clock import format_at, parse_at
from referee.disputes.ledger import DISPUTE_OPENED, RULED, VOTE_OPENED
from referee.errors import Forbidden, MalformedMove
from referee.events import Event, utcnow
from referee.games.base import ADMIN
from referee.mail.outbox_store import RedisOutbox, SqliteOutbox
from referee.queue import JobKind

REASONS = ("start", "turn", "trick", "hand", "game-over", "reminder", "timeout",
           # a seat left a game that plays on (house rule on_resign)
           "left",
           # answers to a mail (referee/mail/inbound.py)
           "applied", "refused", "show", "help",
           # answers to a mail that asks for a vote, answers one or opens a dispute (referee/mail/asking.py)
           "request-taken", "request-refused",
           # to the organiser: a seat's notice could not be delivered (referee/mail/sending.py)
           "undelivered",
           # to a league's player after each round and at the finish (referee/leagues/advancing.py)
           "standings",
           # a seat's dispute (to the organiser and the seats), a ruling, a vote to answer
           "dispute", "ruling", "vote")
# Events after which every seat hears what happened, its turn or not.
TRICK_ENDS = ("trick-won", "trick-set-aside")
HAND_ENDS = ("hand-scored", "hand-forfeited")
# Events by which a seat leaves a game that plays on (written without a result)
LEAVING = ("resigned", "forfeited")
# Backoff for a failed delivery: 30 s, doubling, at most an hour between tries.
FIRST_RETRY, LONGEST_RETRY = 30.0, 3600.0

# The seat numbers the spectators' webhook and the organiser have in the outbox
# (ids, cursors): both are told what an onlooker may see
SPECTATORS = -1
ORGANISER = -2
AUDIENCE = {SPECTATORS: "spectators", ORGANISER: "organiser"}
# A notice's channels, in the order they are tried
CHANNELS = ("email", "webhook")


def has_channel(extra: dict) -> bool:
    """Whether a game's record names anyone to tell: a seat's contact, the
    spectators' webhook or the organiser (games without one are never swept)."""
    return bool(extra.get("contacts") or extra.get("spectators") or extra.get("organiser"))


def contact_of(extra: dict, seat: int) -> dict:
    """Where a notice to ``seat`` goes now: its contact, the spectators' webhook
    or the organiser's contact (``{}``: nowhere)."""
    if seat == SPECTATORS:
        return extra.get("spectators") or {}
    if seat == ORGANISER:
        return extra.get("organiser") or {}
    return extra.get("contacts", {}).get(str(seat), {})


# ---- following the games ----------------------------------------------------------------
# Appends that tell nobody anything: an admin's clock change, a seat handed over, a
# seat's calendar or a vacation's pause written into the log (the seat's next notice
# comes with the next move).
QUIET = ("seat-replaced", "clock-changed", "seat-calendar", "clock-paused", "clock-resumed")


def follow(service):
    """The reaction that follows ``service``'s appends (subscribed in
    referee/system.py): once the game is at rest after something a seat may hear
    of, queue the sweep that writes its notices (``NOTICES``), only for games with
    a contact to tell. What was missed (a process killed before) is found by the
    sender's start-up sweep (``sweep_all``)."""

    def notices(appended: Appended) -> None:
        if (appended.at_rest and set(appended.types) - set(QUIET)
                and has_channel(appended.record.extra)):
            service.queue.enqueue(NOTICES.name, appended.game_id)

    return notices


def notice_id(game_id: str, seat: int, version: int, reason: str) -> str:
    return f"{game_id}.{seat}.{version}.{reason}"


def outbox_of(service):
    """The outbox beside the service's store (kept on the service, made once)."""
    box = getattr(service, "_outbox", None)
    if box is None:
        store = service.store
        box = SqliteOutbox(store.path) if hasattr(store, "path") else RedisOutbox(store.r)
        service._outbox = box
    return box


def compose(service, game_id: str, seat: int, reason: str, note: str | None = None) -> dict:
    """A notice's content for ``seat``, from what that seat may see only (the
    spectators and the organiser: what an onlooker may see)."""
    box = outbox_of(service)
    onlooker = seat in AUDIENCE
    who = Caller(None if onlooker else seat)
    rec = service.record(game_id)
    view = service.view(game_id, who)
    since = box.cursor(game_id, seat)
    if seat == ORGANISER:  # told now and then: the last few events are enough
        since = max(since, view["version"] - narration.LOOK_BACK)
    happened = []
    with service._lock(game_id):
        table = service.load(game_id, rec)
        engine = table.engine
        from referee.narration import holders

        held = holders(table)  # who held each seat when
        for ev in service.events(game_id, who, after=since, limit=1000)["events"]:
            # told from the seat's redacted copy, never from the full event, with names
            try:
                happened.append(held.narrate(engine, Event.from_dict(ev)))
            except Exception:  # a description is a courtesy; the view below is the truth
                happened.append(f"{ev['type']}")
    legal = service.legal(game_id, who)["text"] if seat in view["to_act"] else []
    body = {"game": game_id, "game_type": rec.game, "title": engine.title,
            "seat": None if onlooker else seat, "to": AUDIENCE.get(seat, "seat"),
            "name": AUDIENCE[seat] if onlooker else rec.players[seat],
            "players": rec.players, "version": view["version"], "status": view["status"],
            "reason": reason, "note": note, "happened": happened, "text": view["text"],
            "legal": legal, "to_act": [rec.players[s] for s in view["to_act"]],
            "deadline": view.get("deadline"), "banks": view.get("banks") or [], "overdue": any(d["overdue"] for d in view.get("deadlines", [])
                                                             if onlooker or d["seat"] == seat),
            "result": view["result"], "winners": [rec.players[s] for s in (view["result"] or {}).get("winners", [])],
            "written": utcnow()}
    # the receipt of the last event it tells of, which the reader may show anyone (referee/trust)
    return service.receipted(body, game_id, service.store.events(game_id, after=view["version"] - 1, limit=1)[0])


def queue_notice(service, game_id: str, seat: int, reason: str, note: str | None = None,
                 version: int | None = None, tag: str | None = None, in_reply_to: str | None = None,
                 league: dict | None = None) -> str:
    """Queue a notice for ``seat`` of ``game_id`` now (at the game's version) and
    return its id. Queueing the same (game, seat, version, reason) again is a no-op,
    so a retry or a second process never makes a second notice. ``reason`` is one of
    REASONS; ``note`` is a line of the caller's own (e.g. "2 hours left").
    ``version``: the version that names the notice, when it is not the game's
    version now (a reminder is named by the version its seat's time started at,
    so other seats' moves meanwhile never make it a second reminder).
    ``tag``: added to the id when several notices of one reason may fall at one
    version (the answers to two mails); ``in_reply_to``: the Message-ID of the
    mail a notice answers, so mail readers thread the answer under it.
    ``league``: a ``standings`` notice's league, round and table (its own subject
    and text, referee/mail/words.py)."""
    if reason not in REASONS:
        raise ValueError(f"reason must be one of {REASONS}")
    rec = service.record(game_id)
    if not isinstance(seat, int) or not (0 <= seat < len(rec.players) or seat in AUDIENCE):
        raise MalformedMove(f"seat must be a number from 0 to {len(rec.players) - 1}", field="seat")
    body = compose(service, game_id, seat, reason, note)
    nid = notice_id(game_id, seat, body["version"] if version is None else version, reason)
    if tag is not None:
        nid += "." + tag
    if in_reply_to:
        body["in_reply_to"] = in_reply_to[:998]
    if league is not None:
        body["league"] = league
    box = outbox_of(service)
    box.put({"id": nid, "game": game_id, "seat": seat, "version": body["version"], "reason": reason,
             "body": body, "created": time.time()})
    box.advance(game_id, seat, body["version"])
    return nid


def sweep(service, game_id: str) -> list[str]:
    """Queue the notices the log makes due, one per seat and per change it should
    hear of, written after every event it tells of: each seat to act that has had
    no notice at this version; a seat whose time ran out (its ``timeout``, after
    the referee's move for it when the clock plays for it); every seat and the
    organiser once the game is over (a forfeit on time included: one notice, its
    timeout told in it); the organiser of each seat's timeout. Safe to run any
    number of times (after each move, at start-up, after a crash): ids make it
    idempotent."""
    from referee.table import SEAT_TIMED_OUT

    summary = service.summary(game_id)
    over = summary["status"] in ("finished", "aborted")
    if not over and summary["status"] != "active":
        return []  # a referee step is due: its own sweep follows, once it is written
    made = []
    box = outbox_of(service)
    rec = service.record(game_id)
    extra = rec.extra
    told = extra.get("contacts", {})  # seats with a channel
    cursors = {seat: box.cursor(game_id, seat) for seat in range(len(summary["players"])) if str(seat) in told}
    for seat in AUDIENCE:
        if contact_of(extra, seat):
            cursors[seat] = box.cursor(game_id, seat)
    version = summary["version"]
    behind = [c for c in cursors.values() if c < version]
    # event types (and whose time ran out, who left), never a seat's hidden payload
    changes = [(ev.seq, ev.type, ev.payload if ev.type == SEAT_TIMED_OUT or ev.type in LEAVING else None)
               for ev in service.store.events(game_id, after=min(behind))] if behind else []
    names = summary["players"]
    for seat, since in cursors.items():
        if since >= version:
            continue
        ended = {t for seq, t, _ in changes if seq > since}
        timed_out = [p for seq, t, p in changes if seq > since and t == SEAT_TIMED_OUT]
        # seats that left since (a game that plays on: their event ends nothing)
        gone = [p.get("seat") for seq, t, p in changes
                if seq > since and t in LEAVING and isinstance(p, dict) and "result" not in p]
        note = None
        disputed = ended & {DISPUTE_OPENED, RULED}
        if over and not disputed:
            reason = "game-over"
        elif disputed and seat == SPECTATORS:
            reason = "turn"  # onlookers hear of every change, a dispute's as any other
        elif DISPUTE_OPENED in disputed:  # the organiser rules; every seat reads the seat's words
            reason = "dispute"
            if seat == ORGANISER:
                note = (f"Rule on it with POST /v1/games/{game_id}/rulings {{dispute, decision, text}} "
                        "and the game's admin token: dismiss, take back, void, award or extend a "
                        "seat's clock (docs/disputes.md).")
        elif disputed:
            reason = "ruling"
        elif seat == ORGANISER:
            if not timed_out and not gone:
                box.advance(game_id, seat, version)  # nothing for the organiser: read no further back
                continue
            if timed_out:
                reason, note = "timeout", organiser_note(game_id, timed_out, names)
            else:
                reason, note = "left", left_note(gone, names, seat)
        elif seat == SPECTATORS:
            reason = "turn"  # onlookers hear of every change, whoever is to act
            note = left_note(gone, names, seat) if gone else None
        elif any(p.get("seat") == seat for p in timed_out):
            reason = "timeout"
            note = {"remind": "You may still move: the game waits for you, and the organiser decides "
                              "what follows (waiting longer, giving your seat to someone else, or "
                              "ending the game).",
                    "autoplay": "The referee made a move for you (below); your time starts again.",
                    "turn": "The referee played your turn for you (below): a missed turn the game excuses."
                    }.get(next(p for p in timed_out if p.get("seat") == seat).get("on_timeout"))
        elif seat in summary["to_act"]:
            reason = "turn"
            note = left_note(gone, names, seat) if gone else None
        elif VOTE_OPENED in ended and seat >= 0:
            reason = "vote"
            vote = max(seq for seq, t, _ in changes if t == VOTE_OPENED and seq > since)
            note = (f"Answer vote {vote} (below, in the log) with POST /v1/games/{game_id}/votes/{vote} "
                    '{"yes": true} or {"yes": false} and your token, or reply "vote yes" or "vote no" to '
                    "this mail; one no or the next move ends it.")
        elif since == 0:
            reason = "start"
        elif gone:
            reason, note = "left", left_note(gone, names, seat)
        elif ended & set(HAND_ENDS):
            reason = "hand"
        elif ended & set(TRICK_ENDS):
            reason = "trick"
        else:
            continue
        if not service.wants_notice(rec, seat, reason):
            continue  # the cursor stays: the seat's next notice tells this too
        made.append(queue_notice(service, game_id, seat, reason, note))
    return made


def left_note(gone: list, names: list[str], seat: int) -> str:
    """What a seat (or an onlooker) is told of seats that left a game that plays on."""
    lines = []
    for who in gone:
        if who == seat:
            lines.append("You have left the game: the referee plays your seat from now on, "
                         "and it can no longer win.")
        else:
            name = names[who] if isinstance(who, int) and 0 <= who < len(names) else f"seat {who}"
            lines.append(f"{name} has left the game: the referee plays their seat from now on, "
                         "and it can no longer win.")
    return "\n".join(lines)


def organiser_note(game_id: str, timed_out: list[dict], names: list[str]) -> str:
    """What the organiser is told of seats out of time, and what they may do."""
    from referee import narration

    lines = []
    for p in timed_out:
        seat = p.get("seat")
        who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"
        said = f"{who} ran out of time (deadline {narration.moment(p.get('deadline'))})"
        if p.get("on_timeout") in ("autoplay", "turn"):
            lines.append(f"{said}: the referee moved for them.")
        else:
            lines.append(f"{said}. The game waits for {who}: you may wait, give the seat to someone "
                         f"else (POST /v1/games/{game_id}/seats/{seat}/replace) or end the game "
                         f"(POST /v1/games/{game_id}/abort).")
    return "\n".join(lines)


def backoff(attempts: int) -> float:
    # REFEREE_NOTICE_RETRY overrides the first wait (the fault tests shorten it)
    first = float(os.environ.get("REFEREE_NOTICE_RETRY", FIRST_RETRY))
    return min(LONGEST_RETRY, first * 2 ** max(0, attempts - 1))


# How far before the oldest running game the start-up sweep's mark is put: games
# are stamped by the clocks of many machines, which may disagree (generously) this much.
SWEEP_MARGIN_HOURS = 1


def sweep_all(service, days: int = 30) -> int:
    """Sweep every game that may owe a notice: the active and settling ones, and
    those created in the last ``days`` days (a game-over notice lost to a crash
    right after the last move). Run when a sender starts.

    Incremental, like the ratings' catch-up (referee/players/results.py): the games
    created before the mark the last sweep kept had all ended before it ran and were
    swept then (an ended game stays ended), so they are not read again. The new mark
    is the creation of the oldest game still running (read before the others, so a
    game ending meanwhile is among them) less ``SWEEP_MARGIN_HOURS``, and never past
    a game whose sweep failed."""
    box = outbox_of(service)
    now = datetime.datetime.now(datetime.UTC)
    since = format_at(now - datetime.timedelta(days=days))
    if (swept := box.swept()) is not None and swept > since:
        since = swept
    n = 0
    seen = set()
    rows = service.store.games(status="active") + service.store.games(status="settling")
    mark = min([parse_at(r["created_at"]) for r in rows] + [now]) - datetime.timedelta(hours=SWEEP_MARGIN_HOURS)
    after = None
    while True:  # the newest games first, until they are older than ``since``
        page, after = service.store.page(None, 200, after)
        fresh = [r for r in page if r["created_at"] >= since]
        rows += fresh
        if after is None or len(fresh) < len(page):
            break
    for row in rows:
        if row["id"] in seen:
            continue
        seen.add(row["id"])
        try:
            if has_channel(service.record(row["id"]).extra):
                n += len(sweep(service, row["id"]))
        except Exception:  # one broken game never stops the others' notices
            mark = min(mark, parse_at(row["created_at"]))  # read again by the next start
            continue
    box.mark_swept(format_at(mark))
    return n


def listing(service, game_id: str, caller) -> dict:
    """The game's notices and their delivery state, for the admin."""
    if caller.viewer != ADMIN:
        raise Forbidden("only the admin token may list a game's notices")
    return {"id": game_id, "notices": [
        {k: n[k] for k in ("id", "version", "reason", "state", "attempts", "error")}
        | {"seat": None if n["seat"] in AUDIENCE else n["seat"], "to": AUDIENCE.get(n["seat"], "seat"),
           "delivered": n.get("done", [])}
        | {"created": _iso(n["created"]), "next_try": _iso(n["next_try"]) if n["state"] == "pending" else None}
        for n in outbox_of(service).of_game(game_id)]}


def _iso(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# The notices' job: the sweep, which writes what the log makes due into the outbox
# (the notices' ids make a job run twice harmless; the sender sends them).
NOTICES = JobKind("notices", lambda service, game_id: {"queued": len(sweep(service, game_id))})

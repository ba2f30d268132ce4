"""The notice outbox: every notice a seat is owed, kept durably before it is sent.

A notice is keyed by game, seat, version and reason (its id,
``GAME.SEAT.VERSION.REASON``), so queueing the same notice twice (a retry, a
restart, two processes sweeping at once) stores it once, and the e-mail carries
that id as its Message-ID. A notice is written whole when it is queued: what
happened since the seat's last notice (the log's events redacted for that seat,
described in words), the seat's own text view, its legal moves in text notation
and its deadline. Nothing in it comes from anything but what that seat may see.

``queue_notice`` is the call other features use (a clock's reminder or timeout);
``sweep`` queues the notices the log makes due (a seat to act, the game over);
``referee.mail.sending`` delivers what is due, retrying with backoff.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time

from referee.appended import Appended
from referee.caller import Caller
from referee.errors import Forbidden, MalformedMove
from referee.events import Event
from referee.games.base import ADMIN
from referee.queue import JobKind

REASONS = ("start", "turn", "trick", "hand", "game-over", "reminder", "timeout",
           # answers to a mail (referee/mail/inbound.py)
           "applied", "refused", "show", "help")
# Events after which every seat hears what happened, its turn or not.
TRICK_ENDS = ("trick-won", "trick-set-aside")
HAND_ENDS = ("hand-scored", "hand-forfeited")
# Backoff for a failed delivery: 30 s, doubling, at most an hour between tries.
FIRST_RETRY, LONGEST_RETRY = 30.0, 3600.0

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS notices (
    id TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat INTEGER NOT NULL, version INTEGER NOT NULL,
    reason TEXT NOT NULL, body TEXT NOT NULL, created REAL NOT NULL,
    state TEXT NOT NULL, attempts INTEGER NOT NULL, next_try REAL NOT NULL, error TEXT)
    WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS notices_game ON notices (game_id, created);
CREATE INDEX IF NOT EXISTS notices_due ON notices (state, next_try);
CREATE TABLE IF NOT EXISTS notice_cursors (
    game_id TEXT NOT NULL, seat INTEGER NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)) WITHOUT ROWID;
"""


# The seat number the spectators' webhook has in the outbox (ids, cursors)
SPECTATORS = -1


def has_channel(extra: dict) -> bool:
    """Whether a game's record names anyone to tell: a seat's contact or the
    spectators' webhook (games without one are never swept)."""
    return bool(extra.get("contacts") or extra.get("spectators"))


# ---- following the games ----------------------------------------------------------------
# Appends that tell nobody anything: an admin's clock change or a seat handed over
# (the seat's next notice comes with the next move).
QUIET = ("seat-replaced", "clock-changed")


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


class SqliteOutbox:
    """Notices in the game store's own SQLite file (tables of their own)."""

    def __init__(self, path: str):
        self.path = path
        self._local = threading.local()
        self._conn().executescript(SQLITE_SCHEMA)

    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
        return conn

    def put(self, n: dict) -> bool:
        cur = self._conn().execute(
            "INSERT OR IGNORE INTO notices VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, NULL)",
            (n["id"], n["game"], n["seat"], n["version"], n["reason"], json.dumps(n["body"]),
             n["created"], n["created"]))
        return cur.rowcount == 1

    def _row(self, r) -> dict:
        return {"id": r[0], "game": r[1], "seat": r[2], "version": r[3], "reason": r[4],
                "body": json.loads(r[5]), "created": r[6], "state": r[7], "attempts": r[8],
                "next_try": r[9], "error": r[10]}

    def of_game(self, game_id: str) -> list[dict]:
        rows = self._conn().execute("SELECT * FROM notices WHERE game_id = ? ORDER BY created, id",
                                    (game_id,)).fetchall()
        return [self._row(r) for r in rows]

    def due(self, now: float, limit: int = 100) -> list[dict]:
        rows = self._conn().execute("SELECT * FROM notices WHERE state = 'pending' AND next_try <= ? "
                                    "ORDER BY next_try LIMIT ?", (now, limit)).fetchall()
        return [self._row(r) for r in rows]

    def mark(self, nid: str, state: str, attempts: int, next_try: float, error: str | None) -> None:
        self._conn().execute("UPDATE notices SET state = ?, attempts = ?, next_try = ?, error = ? "
                             "WHERE id = ?", (state, attempts, next_try, error, nid))

    def claim(self, notice: dict, until: float) -> bool:
        cur = self._conn().execute("UPDATE notices SET next_try = ? WHERE id = ? AND state = 'pending' "
                                   "AND next_try = ?", (until, notice["id"], notice["next_try"]))
        return cur.rowcount == 1

    def secret(self) -> str:
        import secrets

        conn = self._conn()
        conn.execute("CREATE TABLE IF NOT EXISTS referee_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT OR IGNORE INTO referee_secrets VALUES ('mail', ?)", (secrets.token_hex(32),))
        return conn.execute("SELECT value FROM referee_secrets WHERE name = 'mail'").fetchall()[0][0]

    def cursor(self, game_id: str, seat: int) -> int:
        rows = self._conn().execute("SELECT version FROM notice_cursors WHERE game_id = ? AND seat = ?",
                                    (game_id, seat)).fetchall()
        return rows[0][0] if rows else 0

    def advance(self, game_id: str, seat: int, version: int) -> None:
        self._conn().execute(
            "INSERT INTO notice_cursors VALUES (?, ?, ?) ON CONFLICT (game_id, seat) "
            "DO UPDATE SET version = max(version, excluded.version)", (game_id, seat, version))


class RedisOutbox:
    """Notices in Redis: a hash per notice, a sorted set per game, one of due ids."""

    def __init__(self, r):
        self.r = r

    def _k(self, game_id: str, what: str) -> str:
        return f"{{g:{game_id}}}:{what}"

    def put(self, n: dict) -> bool:
        key = self._k(n["game"], "notice:" + n["id"])
        fields = {"id": n["id"], "game": n["game"], "seat": n["seat"], "version": n["version"],
                  "reason": n["reason"], "body": json.dumps(n["body"]), "created": n["created"],
                  "state": "pending", "attempts": 0, "next_try": n["created"], "error": ""}
        if not self.r.hsetnx(key, "id", n["id"]):
            return False
        self.r.hset(key, mapping=fields)
        self.r.zadd(self._k(n["game"], "notices"), {n["id"]: n["created"]})
        self.r.zadd("referee:notices-due", {f"{n['game']}|{n['id']}": n["created"]})
        return True

    def _get(self, game_id: str, nid: str) -> dict | None:
        h = self.r.hgetall(self._k(game_id, "notice:" + nid))
        if not h:
            return None
        h = {k.decode(): v.decode() for k, v in h.items()}
        return {"id": h["id"], "game": h["game"], "seat": int(h["seat"]), "version": int(h["version"]),
                "reason": h["reason"], "body": json.loads(h["body"]), "created": float(h["created"]),
                "state": h["state"], "attempts": int(h["attempts"]), "next_try": float(h["next_try"]),
                "error": h["error"] or None}

    def of_game(self, game_id: str) -> list[dict]:
        ids = [i.decode() for i in self.r.zrange(self._k(game_id, "notices"), 0, -1)]
        return [n for n in (self._get(game_id, i) for i in ids) if n]

    def due(self, now: float, limit: int = 100) -> list[dict]:
        out = []
        for member in self.r.zrangebyscore("referee:notices-due", "-inf", now, start=0, num=limit):
            game_id, _, nid = member.decode().partition("|")
            n = self._get(game_id, nid)
            if n and n["state"] == "pending":
                out.append(n)
        return out

    def mark(self, nid: str, state: str, attempts: int, next_try: float, error: str | None) -> None:
        game_id = nid.split(".", 1)[0]
        self.r.hset(self._k(game_id, "notice:" + nid),
                    mapping={"state": state, "attempts": attempts, "next_try": next_try, "error": error or ""})
        member = f"{game_id}|{nid}"
        if state == "pending":
            self.r.zadd("referee:notices-due", {member: next_try})
        else:
            self.r.zrem("referee:notices-due", member)

    def claim(self, notice: dict, until: float) -> bool:
        # one claimer per notice and attempt: SET NX on a key named after both
        key = self._k(notice["game"], f"claim:{notice['id']}:{notice['attempts']}:{notice['next_try']}")
        if not self.r.set(key, 1, nx=True, ex=int(until - time.time()) + 1 if until > time.time() else 1):
            return False
        self.mark(notice["id"], "pending", notice["attempts"], until, notice["error"])
        return True

    def secret(self) -> str:
        import secrets

        self.r.set("referee:mail-secret", secrets.token_hex(32), nx=True)
        return self.r.get("referee:mail-secret").decode()

    def cursor(self, game_id: str, seat: int) -> int:
        got = self.r.hget(self._k(game_id, "notice-cursors"), str(seat))
        return int(got) if got else 0

    def advance(self, game_id: str, seat: int, version: int) -> None:
        # max(old, new) without a script: a cursor only moves forward
        key = self._k(game_id, "notice-cursors")
        if version > self.cursor(game_id, seat):
            self.r.hset(key, str(seat), version)


def outbox_of(service):
    """The outbox beside the service's store (kept on the service, made once)."""
    box = getattr(service, "_outbox", None)
    if box is None:
        store = service.store
        box = SqliteOutbox(store.path) if hasattr(store, "path") else RedisOutbox(store.r)
        service._outbox = box
    return box


def compose(service, game_id: str, seat: int, reason: str, note: str | None = None) -> dict:
    """A notice's content for ``seat``, from what that seat may see only."""
    box = outbox_of(service)
    who = Caller(None if seat == SPECTATORS else seat)  # the spectators see what an onlooker sees
    rec = service.record(game_id)
    view = service.view(game_id, who)
    since = box.cursor(game_id, seat)
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
    name = "spectators" if seat == SPECTATORS else rec.players[seat]
    return {"game": game_id, "game_type": rec.game, "seat": None if seat == SPECTATORS else seat, "name": name,
            "players": rec.players, "version": view["version"], "status": view["status"],
            "reason": reason, "note": note, "happened": happened, "text": view["text"],
            "legal": legal, "to_act": [rec.players[s] for s in view["to_act"]],
            "deadline": view.get("deadline"), "result": view["result"]}


def queue_notice(service, game_id: str, seat: int, reason: str, note: str | None = None,
                 version: int | None = None, tag: str | None = None, in_reply_to: str | None = None) -> str:
    """Queue a notice for ``seat`` of ``game_id`` now (at the game's version) and
    return its id. Queueing the same (game, seat, version, reason) again is a no-op,
    so a retry or a second process never makes a second notice. ``reason`` is one of
    REASONS; ``note`` is a line of the caller's own (e.g. "2 hours left").
    ``version``: the version that names the notice, when it is not the game's
    version now (a reminder is named by the version its seat's time started at,
    so other seats' moves meanwhile never make it a second reminder).
    ``tag``: added to the id when several notices of one reason may fall at one
    version (the answers to two mails); ``in_reply_to``: the Message-ID of the
    mail a notice answers, so mail readers thread the answer under it."""
    if reason not in REASONS:
        raise ValueError(f"reason must be one of {REASONS}")
    rec = service.record(game_id)
    if not isinstance(seat, int) or not (0 <= seat < len(rec.players) or seat == SPECTATORS):
        raise MalformedMove(f"seat must be a number from 0 to {len(rec.players) - 1}", field="seat")
    body = compose(service, game_id, seat, reason, note)
    nid = notice_id(game_id, seat, body["version"] if version is None else version, reason)
    if tag is not None:
        nid += "." + tag
    if in_reply_to:
        body["in_reply_to"] = in_reply_to[:998]
    box = outbox_of(service)
    box.put({"id": nid, "game": game_id, "seat": seat, "version": body["version"], "reason": reason,
             "body": body, "created": time.time()})
    box.advance(game_id, seat, body["version"])
    return nid


def sweep(service, game_id: str) -> list[str]:
    """Queue the notices the log makes due: each seat to act that has had no notice
    at this version, and every seat once the game is over. Safe to run any number of
    times (after each move, at start-up, after a crash): ids make it idempotent."""
    summary = service.summary(game_id)
    made = []
    box = outbox_of(service)
    extra = service.record(game_id).extra
    told = extra.get("contacts", {})  # seats with a channel
    over = summary["status"] in ("finished", "aborted")
    cursors = {seat: box.cursor(game_id, seat) for seat in range(len(summary["players"])) if str(seat) in told}
    if extra.get("spectators"):
        cursors[SPECTATORS] = box.cursor(game_id, SPECTATORS)
    behind = [c for c in cursors.values() if c < summary["version"]]
    # event types only (never payloads): did a trick or a hand end since a cursor?
    types = {ev.seq: ev.type for ev in service.store.events(game_id, after=min(behind))} if behind else {}
    for seat, since in cursors.items():
        if since >= summary["version"]:
            continue
        ended = {t for seq, t in types.items() if seq > since}
        if over:
            reason = "game-over"
        elif summary["status"] != "active":
            continue  # a referee step is due: its own sweep follows
        elif seat == SPECTATORS:
            reason = "turn"  # onlookers hear of every change, whoever is to act
        elif seat in summary["to_act"]:
            reason = "turn"
        elif since == 0:
            reason = "start"
        elif ended & set(HAND_ENDS):
            reason = "hand"
        elif ended & set(TRICK_ENDS):
            reason = "trick"
        else:
            continue
        made.append(queue_notice(service, game_id, seat, reason))
    return made


def backoff(attempts: int) -> float:
    # REFEREE_NOTICE_RETRY overrides the first wait (the fault tests shorten it)
    first = float(os.environ.get("REFEREE_NOTICE_RETRY", FIRST_RETRY))
    return min(LONGEST_RETRY, first * 2 ** max(0, attempts - 1))


def sweep_all(service, days: int = 30) -> int:
    """Sweep every game that may owe a notice: the active and settling ones, and
    those created in the last ``days`` days (a game-over notice lost to a crash
    right after the last move). Run when a sender starts."""
    import datetime

    since = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=days)).isoformat()
    n = 0
    seen = set()
    rows = service.store.games(status="active") + service.store.games(status="settling")
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
            continue
    return n


def listing(service, game_id: str, caller) -> dict:
    """The game's notices and their delivery state, for the admin."""
    if caller.viewer != ADMIN:
        raise Forbidden("only the admin token may list a game's notices")
    return {"id": game_id, "notices": [
        {k: n[k] for k in ("id", "version", "reason", "state", "attempts", "error")}
        | {"seat": None if n["seat"] == SPECTATORS else n["seat"]}
        | {"created": _iso(n["created"]), "next_try": _iso(n["next_try"]) if n["state"] == "pending" else None}
        for n in outbox_of(service).of_game(game_id)]}


def _iso(t: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(t, datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


# The notices' job: the sweep, which writes what the log makes due into the outbox
# (the notices' ids make a job run twice harmless; the sender sends them).
NOTICES = JobKind("notices", lambda service, game_id: {"queued": len(sweep(service, game_id))})

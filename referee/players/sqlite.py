"""Players in the game store's own SQLite file (tables of their own).

Writes go through the game store's one writer connection under its write lock
(referee/store/sqlite.py), so they take turns with the games' appends instead of
racing them for SQLite's lock; each is one explicit ``BEGIN IMMEDIATE``
transaction, so what a write reads first (the ratings, the order) cannot change
under it, in this process or another on the same file.
"""

from __future__ import annotations

import json

from referee.players import names
from referee.players.base import Conflict, PlayerStore
from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, bot TEXT, created TEXT NOT NULL,
    token_hash TEXT NOT NULL, contacts TEXT NOT NULL, confirm TEXT, attempts INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS player_ratings (
    player TEXT NOT NULL, game TEXT NOT NULL, rating TEXT NOT NULL,
    PRIMARY KEY (player, game)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_stats (
    player TEXT NOT NULL, game TEXT NOT NULL, played INTEGER NOT NULL, won INTEGER NOT NULL,
    PRIMARY KEY (player, game)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_history (
    player TEXT NOT NULL, game TEXT NOT NULL, n INTEGER NOT NULL, entry TEXT NOT NULL,
    PRIMARY KEY (player, game, n)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_games (
    player TEXT NOT NULL, game_id TEXT NOT NULL, seat INTEGER NOT NULL,
    PRIMARY KEY (player, game_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS open_games (
    id TEXT PRIMARY KEY, created TEXT NOT NULL, status TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS open_games_lobby ON open_games (status, created, id);
CREATE TABLE IF NOT EXISTS open_invites (
    address TEXT NOT NULL, n INTEGER NOT NULL, game_id TEXT NOT NULL,
    PRIMARY KEY (address, game_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rated_games (
    game_id TEXT PRIMARY KEY, ord INTEGER NOT NULL UNIQUE, marker TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ratings_caught_up (one INTEGER PRIMARY KEY CHECK (one = 1), mark TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mail_addresses (address TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_mail (
    player TEXT PRIMARY KEY, next_try REAL NOT NULL, attempts INTEGER NOT NULL, error TEXT);
CREATE INDEX IF NOT EXISTS player_mail_due ON player_mail (next_try);
CREATE TABLE IF NOT EXISTS address_owners (address TEXT PRIMARY KEY, player TEXT NOT NULL) WITHOUT ROWID;
-- confirmation codes tried, per player and client address (``players.attempts`` is no longer read)
CREATE TABLE IF NOT EXISTS confirm_tries (
    player TEXT NOT NULL, client TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (player, client)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS player_invitations (
    player TEXT NOT NULL, what TEXT NOT NULL, expires REAL NOT NULL,
    PRIMARY KEY (player, what)) WITHOUT ROWID;
-- the name index (referee/players/names.py): one entry a word of a player's name
CREATE TABLE IF NOT EXISTS player_names (entry TEXT PRIMARY KEY) WITHOUT ROWID;
-- a token mailed to recover a player's lost one, until first used (referee/players/recovery.py)
CREATE TABLE IF NOT EXISTS player_recovery (
    player TEXT PRIMARY KEY, hash TEXT NOT NULL, expires REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS invitation_mail (
    player TEXT NOT NULL, inviter TEXT NOT NULL, until REAL NOT NULL,
    PRIMARY KEY (player, inviter)) WITHOUT ROWID;
"""


class SqlitePlayers(SideTables, PlayerStore):
    SCHEMA = SCHEMA

    def __init__(self, store):
        super().__init__(store)
        with self._tx() as conn:  # a file from before the name index: its players indexed once
            if conn.execute("SELECT 1 FROM player_names LIMIT 1").fetchone() is None:
                conn.executemany("INSERT OR IGNORE INTO player_names VALUES (?)",
                                 [(e,) for pid, name in conn.execute("SELECT id, name FROM players").fetchall()
                                  for e in names.entries(pid, name)])

    # ---- players ---------------------------------------------------------------------

    def create(self, player, token_hash, contacts, confirm):
        with self._tx() as conn:
            conn.execute("INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                         (player["id"], player["name"], player.get("bot"), player["created"], token_hash,
                          json.dumps(contacts), None if confirm is None else json.dumps(confirm)))
            conn.executemany("INSERT OR IGNORE INTO player_names VALUES (?)",
                             [(e,) for e in names.entries(player["id"], player["name"])])

    def names_after(self, after, prefix, limit):
        # every entry that begins with ``prefix`` sorts below ``prefix`` + the last code point
        rows = self._read("SELECT entry FROM player_names WHERE entry > ? AND entry < ? ORDER BY entry LIMIT ?",
                          (after, prefix + "\U0010ffff", limit))
        return [r[0] for r in rows]

    def get(self, player_id):
        rows = self._read("SELECT id, name, bot, created, token_hash, contacts, confirm "
                          "FROM players WHERE id = ?", (player_id,))
        if not rows:
            return None
        r = rows[0]
        return {"id": r[0], "name": r[1], "bot": r[2], "created": r[3], "token_hash": r[4],
                "contacts": json.loads(r[5]), "confirm": None if r[6] is None else json.loads(r[6])}

    def update(self, player_id, contacts, confirm):
        with self._tx() as conn:
            old = conn.execute("SELECT confirm FROM players WHERE id = ?", (player_id,)).fetchall()
            fresh = json.dumps(confirm) if confirm is not None else None
            conn.execute("UPDATE players SET contacts = ?, confirm = ? WHERE id = ?",
                         (json.dumps(contacts), fresh, player_id))
            if old and old[0][0] != fresh:
                conn.execute("DELETE FROM confirm_tries WHERE player = ?", (player_id,))

    def take_try(self, player_id, client, most, ttl):
        # one statement in one transaction: a count read and raised at once (a
        # count already at ``most`` is left as it is, and no row changes)
        with self._tx() as conn:
            return conn.execute("INSERT INTO confirm_tries VALUES (?, ?, 1) ON CONFLICT (player, client) "
                                "DO UPDATE SET n = n + 1 WHERE n < ?", (player_id, client, most)).rowcount == 1

    # ---- a lost token's recovery ------------------------------------------------------

    def recovery_set(self, player_id, token_hash, expires):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO player_recovery VALUES (?, ?, ?)", (player_id, token_hash, expires))

    def recovery_get(self, player_id):
        rows = self._read("SELECT hash, expires FROM player_recovery WHERE player = ?", (player_id,))
        return {"hash": rows[0][0], "expires": rows[0][1]} if rows else None

    def recovery_take(self, player_id, old_hash, new_hash):
        with self._tx() as conn:  # read and written in one transaction begun at once
            if not conn.execute("SELECT 1 FROM players JOIN player_recovery ON player = id WHERE id = ? "
                                "AND token_hash = ? AND hash = ?", (player_id, old_hash, new_hash)).fetchall():
                return False
            conn.execute("UPDATE players SET token_hash = ? WHERE id = ?", (new_hash, player_id))
            conn.execute("DELETE FROM player_recovery WHERE player = ?", (player_id,))
        return True

    # ---- confirmation mail ------------------------------------------------------------

    def claim_address(self, address_key, now, window):
        with self._tx() as conn:
            got = conn.execute("SELECT at FROM mail_addresses WHERE address = ?", (address_key,)).fetchall()
            if got and got[0][0] + window > now:
                return False
            conn.execute("INSERT OR REPLACE INTO mail_addresses VALUES (?, ?)", (address_key, now))
        return True

    def queue_mail(self, player_id, at):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO player_mail VALUES (?, ?, 0, NULL)", (player_id, at))

    def own_address(self, address_key, player_id):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO address_owners VALUES (?, ?)", (address_key, player_id))

    def address_owner(self, address_key):
        rows = self._read("SELECT player FROM address_owners WHERE address = ?", (address_key,))
        return rows[0][0] if rows else None

    def due_mail(self, now, limit=100):
        rows = self._read("SELECT player, next_try, attempts FROM player_mail WHERE next_try <= ? "
                          "ORDER BY next_try LIMIT ?", (now, limit))
        return [{"player": r[0], "next_try": r[1], "attempts": r[2]} for r in rows]

    def claim_mail(self, entry, until):
        with self._tx() as conn:
            moved = conn.execute("UPDATE player_mail SET next_try = ? WHERE player = ? AND next_try = ?",
                                 (until, entry["player"], entry["next_try"])).rowcount
        return moved == 1

    def mail_done(self, player_id):
        with self._tx() as conn:
            conn.execute("DELETE FROM player_mail WHERE player = ?", (player_id,))

    def mail_failed(self, player_id, attempts, next_try, error):
        with self._tx() as conn:
            conn.execute("UPDATE player_mail SET attempts = ?, next_try = ?, error = ? WHERE player = ?",
                         (attempts, next_try, error, player_id))

    # ---- the games a player holds a seat in -------------------------------------------

    def seat_in(self, player_id, game_id, seat):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO player_games VALUES (?, ?, ?)", (player_id, game_id, seat))

    def unseat(self, player_id, game_id):
        with self._tx() as conn:
            conn.execute("DELETE FROM player_games WHERE player = ? AND game_id = ?", (player_id, game_id))

    def seats(self, player_id):
        return dict(self._read("SELECT game_id, seat FROM player_games WHERE player = ?", (player_id,)))

    # ---- open games --------------------------------------------------------------------

    def open_create(self, game):
        with self._tx() as conn:
            conn.execute("INSERT INTO open_games VALUES (?, ?, ?, ?)",
                         (game["id"], game["created"], game["status"], json.dumps(game, sort_keys=True)))

    def open_get(self, game_id):
        rows = self._read("SELECT body FROM open_games WHERE id = ?", (game_id,))
        return rows[0][0] if rows else None

    def open_swap(self, game_id, old_text, game):
        with self._tx() as conn:
            return conn.execute("UPDATE open_games SET status = ?, body = ? WHERE id = ? AND body = ?",
                                (game["status"], json.dumps(game, sort_keys=True), game_id, old_text)).rowcount == 1

    def invite(self, address_key, game_id):
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO open_invites VALUES (?, (SELECT coalesce(max(n), 0) + 1 FROM "
                         "open_invites WHERE address = ?), ?)", (address_key, address_key, game_id))

    def invited(self, address_key, limit=100):
        return [r[0] for r in self._read("SELECT game_id FROM open_invites WHERE address = ? ORDER BY n DESC "
                                         "LIMIT ?", (address_key, limit))][::-1]

    def lobby(self, limit, after):
        if after is None:
            rows = self._read("SELECT body FROM open_games WHERE status = 'open' ORDER BY created, id LIMIT ?",
                              (limit,))
        else:
            rows = self._read("SELECT body FROM open_games WHERE status = 'open' AND (created, id) > "
                              "(SELECT created, id FROM open_games WHERE id = ?) ORDER BY created, id LIMIT ?",
                              (after, limit))
        return [json.loads(r[0]) for r in rows]

    # ---- invitations ------------------------------------------------------------------

    def invitation_add(self, player_id, what, now, expires, most):
        with self._tx() as conn:
            conn.execute("DELETE FROM player_invitations WHERE player = ? AND expires <= ?", (player_id, now))
            held = conn.execute("SELECT what, expires FROM player_invitations WHERE player = ? ORDER BY expires",
                                (player_id,)).fetchall()
            if len(held) >= most and what not in {w for w, _ in held}:
                return held[0][1]
            conn.execute("INSERT OR REPLACE INTO player_invitations VALUES (?, ?, ?)", (player_id, what, expires))
        return None

    def invitation_drop(self, player_id, what):
        with self._tx() as conn:
            conn.execute("DELETE FROM player_invitations WHERE player = ? AND what = ?", (player_id, what))

    def invitations_of(self, player_id, now):
        return [r[0] for r in self._read("SELECT what FROM player_invitations WHERE player = ? AND expires > ? "
                                         "ORDER BY expires", (player_id, now))]

    def invitation_mail_claim(self, player_id, inviter, now, seconds):
        with self._tx() as conn:
            conn.execute("DELETE FROM invitation_mail WHERE player = ? AND until <= ?", (player_id, now))
            if conn.execute("SELECT 1 FROM invitation_mail WHERE player = ? AND inviter = ?",
                            (player_id, inviter)).fetchall():
                return False
            conn.execute("INSERT INTO invitation_mail VALUES (?, ?, ?)", (player_id, inviter, now + seconds))
        return True

    # ---- results ---------------------------------------------------------------------

    def ratings(self, player_id):
        return {g: json.loads(r) for g, r in
                self._read("SELECT game, rating FROM player_ratings WHERE player = ?", (player_id,))}

    def stats(self, player_id):
        return {g: {"played": p, "won": w} for g, p, w in
                self._read("SELECT game, played, won FROM player_stats WHERE player = ?", (player_id,))}

    def history(self, player_id, game, after=0, limit=100, newest=False):
        if newest:
            rows = self._read("SELECT n, entry FROM player_history WHERE player = ? AND game = ? "
                              "ORDER BY n DESC LIMIT ?", (player_id, game, limit))[::-1]
        else:
            rows = self._read("SELECT n, entry FROM player_history WHERE player = ? AND game = ? AND n > ? "
                              "ORDER BY n LIMIT ?", (player_id, game, after, limit))
        return [{"n": n, **json.loads(e)} for n, e in rows]

    def rating_read(self, player_ids, game):
        marks = "?, " * (len(player_ids) - 1) + "?"
        order = self._read("SELECT coalesce(max(ord), 0) FROM rated_games")[0][0]
        got = dict(self._read(f"SELECT player, rating FROM player_ratings WHERE game = ? AND player IN ({marks})",
                              (game, *player_ids))) if player_ids else {}
        return order, None, {p: json.loads(got[p]) if p in got else None for p in player_ids}

    def recorded(self, game_id):
        rows = self._read("SELECT marker FROM rated_games WHERE game_id = ?", (game_id,))
        return json.loads(rows[0][0]) if rows else None

    def caught_up(self):
        rows = self._read("SELECT mark FROM ratings_caught_up")
        return rows[0][0] if rows else None

    def mark_caught_up(self, mark):
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO ratings_caught_up VALUES (1, ?)", (mark,))

    def record(self, made, expected_order):
        with self._tx() as conn:
            if conn.execute("SELECT 1 FROM rated_games WHERE game_id = ?", (made["game_id"],)).fetchall():
                return False
            order = conn.execute("SELECT coalesce(max(ord), 0) FROM rated_games").fetchall()[0][0]
            if order != expected_order:
                raise Conflict(order)
            order += 1
            marker = {"order": order, "game": made["game"], "ended_at": made["ended_at"], "rated": made["rated"]}
            conn.execute("INSERT INTO rated_games VALUES (?, ?, ?)", (made["game_id"], order, json.dumps(marker)))
            for p in made["players"]:
                _apply(conn, made, p, order)
                self._commit_point("between players")
            self._commit_point("before commit")
        return True

    def recorded_games(self):
        return [(g, json.loads(m)) for g, m in self._read("SELECT game_id, marker FROM rated_games ORDER BY ord")]

    def all_ratings(self):
        out: dict[str, dict[str, dict]] = {}
        for pid, game, rating in self._read("SELECT player, game, rating FROM player_ratings"):
            out.setdefault(pid, {})[game] = json.loads(rating)
        return out


def _apply(conn, made: dict, p: dict, order: int) -> None:
    """One player's part of a recorded game: played and won, and for a rated game
    the new rating and a history entry."""
    game, pid = made["game"], p["player"]
    conn.execute("INSERT INTO player_stats VALUES (?, ?, 1, ?) ON CONFLICT (player, game) DO UPDATE "
                 "SET played = played + 1, won = won + excluded.won", (pid, game, int(p["won"])))
    if not made["rated"]:
        return
    conn.execute("INSERT OR REPLACE INTO player_ratings VALUES (?, ?, ?)", (pid, game, json.dumps(p["after"])))
    n = conn.execute("SELECT coalesce(max(n), 0) FROM player_history WHERE player = ? AND game = ?",
                     (pid, game)).fetchall()[0][0] + 1
    conn.execute("INSERT INTO player_history VALUES (?, ?, ?, ?)", (pid, game, n, json.dumps(entry_of(made, p, order))))


def entry_of(made: dict, p: dict, order: int) -> dict:
    """A player's history entry for a rated game (``left_at``: when the player left
    it, if they left a game that played on)."""
    return {"game_id": made["game_id"], "ended_at": made["ended_at"], "order": order, "place": p["place"],
            "before": p["before"], "after": p["after"], **({"left_at": p["left_at"]} if "left_at" in p else {})}

"""Leagues in the game store's own SQLite file (tables of their own), written
through its one writer connection under its write lock, each write one
``BEGIN IMMEDIATE`` transaction (as referee/players/sqlite.py)."""

from __future__ import annotations

import json

from referee.leagues.keeping.base import PUBLIC, Conflict, LeagueStore
from referee.store.sqlite import SideTables

SCHEMA = """
CREATE TABLE IF NOT EXISTS leagues (
    id TEXT PRIMARY KEY, created_at TEXT NOT NULL, meta TEXT NOT NULL,
    status TEXT NOT NULL, version INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS leagues_newest ON leagues (created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS league_players (
    player TEXT NOT NULL, created_at TEXT NOT NULL, league_id TEXT NOT NULL,
    PRIMARY KEY (player, created_at, league_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS league_events (
    league_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (league_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS league_entropy (
    league_id TEXT NOT NULL, player TEXT NOT NULL, entropy TEXT NOT NULL,
    PRIMARY KEY (league_id, player)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS league_owing (
    league_id TEXT PRIMARY KEY, mark INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS league_games_made (
    league_id TEXT NOT NULL, game TEXT NOT NULL, round INTEGER NOT NULL,
    PRIMARY KEY (league_id, game)) WITHOUT ROWID;
"""


class SqliteLeagues(SideTables, LeagueStore):
    SCHEMA = SCHEMA

    def create(self, meta, first):
        with self._tx() as conn:
            if conn.execute("SELECT 1 FROM leagues WHERE id = ?", (meta["id"],)).fetchall():
                raise ValueError(f"league {meta['id']} exists already")
            conn.execute("INSERT INTO leagues VALUES (?, ?, ?, ?, ?)",
                         (meta["id"], meta["created_at"], json.dumps(meta), meta.get("status", "running"),
                          first.seq))
            conn.execute("INSERT INTO league_events VALUES (?, ?, ?)",
                         (meta["id"], first.seq, first.to_json()))
            conn.executemany("INSERT OR IGNORE INTO league_players VALUES (?, ?, ?)",
                             [(p, meta["created_at"], meta["id"]) for p in meta.get("players", [])])

    def index_player(self, league_id, player_id):
        meta = self.meta(league_id)
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO league_players VALUES (?, ?, ?)",
                         (player_id, meta["created_at"], league_id))

    def keep_entropy(self, league_id, player_id, entropy):
        with self._tx() as conn:
            if entropy is None:
                conn.execute("DELETE FROM league_entropy WHERE league_id = ? AND player = ?", (league_id, player_id))
            else:
                conn.execute("INSERT OR REPLACE INTO league_entropy VALUES (?, ?, ?)",
                             (league_id, player_id, entropy))

    def entropies(self, league_id):
        return dict(self._read("SELECT player, entropy FROM league_entropy WHERE league_id = ?", (league_id,)))

    def meta(self, league_id):
        rows = self._read("SELECT meta, status, version FROM leagues WHERE id = ?", (league_id,))
        if not rows:
            return None
        return {**json.loads(rows[0][0]), "status": rows[0][1], "version": rows[0][2]}

    def raw_events(self, league_id, after=0):
        return [r[0] for r in self._read("SELECT body FROM league_events WHERE league_id = ? "
                                         "AND seq > ? ORDER BY seq", (league_id, after))]

    def append(self, league_id, expected, events, status):
        with self._tx() as conn:
            got = conn.execute("SELECT version FROM leagues WHERE id = ?", (league_id,)).fetchall()
            if not got or got[0][0] != expected:
                raise Conflict(got[0][0] if got else 0)
            conn.executemany("INSERT INTO league_events VALUES (?, ?, ?)",
                             [(league_id, ev.seq, ev.to_json()) for ev in events])
            conn.execute("UPDATE leagues SET version = ?, status = ? WHERE id = ?",
                         (events[-1].seq, status, league_id))
            self._commit_point("league append")

    def owe(self, league_id, mark):
        with self._tx() as conn:
            conn.execute("INSERT INTO league_owing VALUES (?, ?) ON CONFLICT (league_id) "
                         "DO UPDATE SET mark = max(mark, excluded.mark)", (league_id, mark))

    def paid(self, league_id, mark):
        with self._tx() as conn:
            conn.execute("DELETE FROM league_owing WHERE league_id = ? AND mark <= ?", (league_id, mark))

    def owing(self):
        return dict(self._read("SELECT league_id, mark FROM league_owing"))

    def note_games(self, league_id, number, games):
        with self._tx() as conn:
            conn.executemany("INSERT OR IGNORE INTO league_games_made VALUES (?, ?, ?)",
                             [(league_id, g, number) for g in games])

    def noted_games(self, league_id):
        return dict(self._read("SELECT game, round FROM league_games_made WHERE league_id = ?",
                               (league_id,)))

    def drop_games(self, league_id, games):
        with self._tx() as conn:
            conn.executemany("DELETE FROM league_games_made WHERE league_id = ? AND game = ?",
                             [(league_id, g) for g in games])

    def of_player(self, player_id, limit=100):
        rows = self._read("SELECT l.meta, l.status, l.version FROM league_players p JOIN leagues l "
                          "ON l.id = p.league_id WHERE p.player = ? "
                          "ORDER BY p.created_at DESC, p.league_id DESC LIMIT ?", (player_id, limit))
        return [{k: m.get(k) for k in PUBLIC} for m in
                ({**json.loads(meta), "status": status, "version": version} for meta, status, version in rows)]

    def page(self, limit=100):
        rows = self._read("SELECT meta, status, version FROM leagues "
                          "ORDER BY created_at DESC, id DESC LIMIT ?", (limit,))
        out = []
        for meta, status, version in rows:
            m = {**json.loads(meta), "status": status, "version": version}
            out.append({k: m.get(k) for k in PUBLIC})
        return out

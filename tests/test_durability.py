"""`referee serve` on its embedded SQLite store, killed with -9 while moves pour
in: every move it acknowledged is in the log afterwards, the log audits, and the
game goes on after a restart."""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import free_port

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Server:
    def __init__(self, store: str, cwd, env: dict | None = None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # the code beside these tests, whichever copy of the package is installed
        path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "--store", store, "--port", str(self.port),
             "--threads", "4"], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, env={**os.environ, "PYTHONPATH": path, **(env or {})})
        deadline = time.time() + 60
        while True:
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            assert time.time() < deadline and self.proc.poll() is None, "referee serve did not start"
            time.sleep(0.1)

    def call(self, method: str, path: str, body=None, token=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                raw = r.read()
                return r.status, (json.loads(raw) if r.headers.get_content_type().endswith("json") else raw)
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    def kill(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


@pytest.mark.parametrize("sync", ["full", "normal"])
def test_kill_minus_9_loses_no_acknowledged_move(tmp_path, sync):
    """Also without an fsync per commit (REFEREE_SQLITE_SYNC=normal): a killed
    process leaves its commits in the WAL file the operating system holds."""
    store = f"sqlite:///{tmp_path}/referee.db"
    server = Server(store, tmp_path, {"REFEREE_SQLITE_SYNC": sync})
    try:
        status, created = server.call("POST", "/v1/games", {"game": "king-of-danger", "players": ["a", "b", "c"],
                                                           "options": {"seed": "kill-9"}})
        assert status == 201
        gid, tokens = created["id"], [s["token"] for s in created["seats"]]
        acked: dict[int, str] = {}  # version -> hash of the event the server said it wrote
        stop = threading.Event()
        rnd = random.Random(9)

        def player():
            while not stop.is_set():
                try:
                    code, s = server.call("GET", f"/v1/games/{gid}")
                    if code != 200 or s["status"] != "active":
                        time.sleep(0.01)
                        continue
                    seat = s["to_act"][0]
                    code, legal = server.call("GET", f"/v1/games/{gid}/legal", token=tokens[seat])
                    moves = [m for m in legal["moves"] if m["type"] != "resign"]
                    if not moves:
                        continue
                    code, ans = server.call("POST", f"/v1/games/{gid}/moves",
                                            {"move": rnd.choice(moves), "expected_version": s["version"]},
                                            token=tokens[seat])
                    if code == 201:
                        for ev in ans["events"]:
                            acked[ev["seq"]] = ev["hash"]
                except (OSError, ValueError, KeyError, http.client.HTTPException):
                    return  # the server is gone (killed mid-answer: an incomplete read)

        t = threading.Thread(target=player)
        t.start()
        deadline = time.time() + 30
        while len(acked) < 25 and time.time() < deadline:
            time.sleep(0.02)
        server.kill()
        stop.set()
        t.join(15)
        assert len(acked) >= 10, "too few moves were made before the kill to prove anything"
    finally:
        if server.proc.poll() is None:
            server.kill()

    server = Server(store, tmp_path, {"REFEREE_SQLITE_SYNC": sync})
    try:
        export = subprocess.run([sys.executable, "-m", "referee.cli", "export", gid, "--store", store],
                                capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert export.returncode == 0
        stored = {json.loads(line)["seq"]: json.loads(line)["hash"] for line in export.stdout.splitlines()}
        for seq, h in acked.items():
            assert stored.get(seq) == h, f"acknowledged event {seq} was lost or changed"
        req = urllib.request.Request(server.base + "/v1/audit", data=export.stdout.encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as r:
            report = json.loads(r.read())
        assert report["valid"], report
        # and the game goes on (a kill just after a hand's end leaves the next deal
        # owed: the first read deals it, so the game may be past the export)
        status, s = server.call("GET", f"/v1/games/{gid}")
        assert status == 200 and s["status"] == "active" and s["version"] >= max(stored)
        seat = s["to_act"][0]
        _, legal = server.call("GET", f"/v1/games/{gid}/legal", token=tokens[seat])
        move = next(m for m in legal["moves"] if m["type"] != "resign")
        status, _ = server.call("POST", f"/v1/games/{gid}/moves", {"move": move}, token=tokens[seat])
        assert status == 201
    finally:
        server.kill()


def test_sqlite_sync_level_is_full_unless_normal_is_asked(tmp_path, monkeypatch):
    from referee.store.sqlite import SqliteStore

    def level() -> int:
        store = SqliteStore(f"/{tmp_path}/sync.db")
        try:
            return store._conn().execute("PRAGMA synchronous").fetchone()[0]
        finally:
            store.close()

    monkeypatch.delenv("REFEREE_SQLITE_SYNC", raising=False)
    assert level() == 2  # FULL: an fsync per commit
    monkeypatch.setenv("REFEREE_SQLITE_SYNC", "normal")
    assert level() == 1  # NORMAL
    monkeypatch.setenv("REFEREE_SQLITE_SYNC", "off")  # never taken for a weaker setting
    with pytest.raises(ValueError, match="full or normal"):
        SqliteStore(f"/{tmp_path}/sync2.db")

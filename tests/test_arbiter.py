"""`referee dispute EXPORT --seq N`: what an arbiter needs about one event, from the
export alone."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import Game


def dispute_cli(path, seq) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee.cli", "dispute", str(path), "--seq", str(seq)],
                          capture_output=True, text=True, timeout=120)


def test_the_arbiter_reads_the_position_the_move_its_rule_the_clock_and_the_disputes(client, tmp_path):
    g = Game(client, "king-of-danger", ["Ann", "Bob"], {"seed": 21, "clock": {"move_seconds": 3600}})
    s = g.summary()
    seat = s["to_act"][0]
    move = next(m for m in g.legal(seat) if m["type"] == "play")
    seq = g.post(seat, {"move": move}).json["events"][0]["seq"]
    other = 1 - seat
    r = g.client.post(f"/v1/games/{g.id}/disputes", json={"text": "that card was not in the hand", "seq": seq},
                      headers=g.auth(other))
    d = r.json["dispute"]["id"]
    g.client.post(f"/v1/games/{g.id}/rulings", json={"dispute": d, "decision": {"kind": "dismiss"},
                                                      "text": "it was: see the deal"}, headers=g.auth("admin"))
    path = tmp_path / "game.jsonl"
    path.write_text(g.export())
    done = dispute_cli(path, seq)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    names = ["Ann", "Bob"]
    assert f"event {seq} of" in out and f"[{seq}] " in out
    assert f"{names[seat]}'s move 'play {move['card']}" in out and "allowed: the rules derive" in out
    # the same move by the other seat, refused with its reason
    assert f"the same move by {names[other]} would have met:" in out
    # the position before it, as each seat saw it, and as a spectator did
    assert "-- Ann (seat 0)" in out and "-- Bob (seat 1)" in out and "-- a spectator" in out
    assert "deadline before the event" in out and '"move_seconds": 3600' in out
    assert "that card was not in the hand" in out and "dismissed, play goes on" in out and "it was: see the deal" in out


def test_the_arbiter_refuses_an_event_the_log_does_not_have(client, tmp_path):
    g = Game(client, "king-of-danger", 2, {"seed": 22})
    path = tmp_path / "game.jsonl"
    path.write_text(g.export())
    done = dispute_cli(path, 999)
    assert done.returncode == 1 and "--seq is an event of this log" in done.stderr

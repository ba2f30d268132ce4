"""Small helpers for talking to the API in tests."""

from __future__ import annotations

import json
import random


class Game:
    """A game created through the API, with its tokens at hand."""

    def __init__(self, client, game: str, players, options=None, **more):
        self.client = client
        names = players if isinstance(players, list) else [f"p{i}" for i in range(players)]
        # ``more``: other keys of the creation's body (spectators, organiser)
        r = client.post("/v1/games", json={"game": game, "players": names, "options": options or {}, **more})
        assert r.status_code == 201, r.json
        self.created = r.json
        self.id = r.json["id"]
        self.tokens = [s.get("token") for s in r.json["seats"]]  # None: a bot seat
        self.admin = r.json["admin_token"]

    def auth(self, who) -> dict:
        if who is None:
            return {}
        token = self.admin if who == "admin" else self.tokens[who]
        return {"Authorization": f"Bearer {token}"}

    def get(self, path: str = "", who=None, **params):
        return self.client.get(f"/v1/games/{self.id}{path}", headers=self.auth(who), query_string=params)

    def post(self, seat, body: dict, **headers):
        return self.client.post(f"/v1/games/{self.id}/moves", json=body,
                                headers={**self.auth(seat), **headers})

    def summary(self) -> dict:
        return self.get().json

    def legal(self, seat) -> list[dict]:
        r = self.get("/legal", seat)
        assert r.status_code == 200, r.json
        return r.json["moves"]

    def export(self) -> str:
        r = self.get("/export", "admin")
        assert r.status_code == 200, r.json
        return r.get_data(as_text=True)

    def play_random(self, rnd: random.Random, max_moves: int = 20000, on_step=None) -> dict:
        """Random legal moves through the API until the game ends. Questions that may
        end a game early (a draw offer, accepted a third of the time) are asked only
        now and then, so random games still reach their own ends."""
        for _ in range(max_moves):
            s = self.summary()
            if s["status"] in ("finished", "aborted"):
                return s
            assert s["status"] == "active", s
            seat = rnd.choice(s["to_act"])
            moves = [m for m in self.legal(seat) if m["type"] != "resign"]
            plain = [m for m in moves if m["type"] not in ("offer-draw", "take-back")]
            if plain and len(plain) < len(moves) and rnd.random() < 0.97:
                moves = plain
            r = self.post(seat, {"move": rnd.choice(moves), "expected_version": s["version"]})
            assert r.status_code == 201, r.json
            if on_step:
                on_step(self)
        raise AssertionError("the game did not end")


def strings(obj) -> set[str]:
    """Every string anywhere in a JSON value (keys included)."""
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            out |= strings(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= strings(v)
    return out


def canonical_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line]


def limits_count_together(one, two, seed: str) -> None:
    """Two apps on the same counters (two API processes), with REFEREE_MOVE_RATE
    at 3/minute and REFEREE_AUTH_FAIL_RATE at 2/minute: a token's moves count in
    both, the refused fourth move changes nothing, and an address's failed token
    checks in each make both refuse it, while another address goes on."""
    g = Game(one, "castle-danger", 2, {"seed": seed})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201
    g.client = two
    assert g.post(seat, {"text": "b1-a1"}).status_code == 201
    assert g.post(seat, {"text": "a1-a2"}).status_code == 201
    before = g.export()
    r = g.post(seat, {"text": "a2-a3"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests"
    assert g.export() == before
    bad = {"Authorization": "Bearer guess"}
    assert one.get(f"/v1/games/{g.id}/view", headers=bad).status_code == 401
    assert two.get(f"/v1/games/{g.id}/view", headers=bad).status_code == 401
    r = one.get(f"/v1/games/{g.id}")
    assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 60
    assert two.get(f"/v1/games/{g.id}").status_code == 429
    # another address is not held up by them
    assert two.get(f"/v1/games/{g.id}", environ_base={"REMOTE_ADDR": "192.0.2.9"}).status_code == 200

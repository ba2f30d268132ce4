"""Leagues in tests, made as the referee requires: an organiser's player token
creates the league (its players invited), every invited player joins with their own
token (a bot player is in when asked), and the organiser starts it.

``new_league`` does it over HTTP, ``started`` on a service directly; both answer
as the creation did before the start was the organiser's (the league after its
start, its admin token beside it)."""

from __future__ import annotations

from referee.leagues import running
from referee.players import accounts
from tests.playertools import TOKENS, auth

GAME = "king-of-danger"


def organiser(client) -> dict:
    """A new player who organises a league without playing in it."""
    r = client.post("/v1/players", json={"name": "Organiser"})
    assert r.status_code == 201, r.json
    return r.json


def _token(p) -> str | None:
    if isinstance(p, dict):
        return None if p.get("bot") else p.get("token")
    found = TOKENS.get(p)
    return None if found is None or found[1] else found[0]


def new_league(client, players: list, by: dict | None = None, start: bool = True, **terms) -> dict:
    """A league of ``players`` (each a player's registration answer, or an id
    ``tests.playertools.register`` made), created by ``by`` (else a new organiser
    who does not play), joined by each invited player, started unless ``start`` is
    False. Returns the last answer with ``admin_token`` and ``organiser``."""
    by = by or organiser(client)
    ids = [p["id"] if isinstance(p, dict) else p for p in players]
    body = {"name": "League", "game": GAME, "options": {"target": 1}, "format": "round-robin",
            "players": ids} | terms
    r = client.post("/v1/leagues", json=body, headers=auth(by["token"]))
    assert r.status_code == 201, r.json
    admin, out = r.json["admin_token"], r.json
    for p in players:
        token = _token(p)
        if token is not None and (p["id"] if isinstance(p, dict) else p) != by["id"]:
            joined = client.post(f"/v1/leagues/{out['id']}/join", json={}, headers=auth(token))
            assert joined.status_code == 200, joined.json
            out = joined.json
    if start:
        r = client.post(f"/v1/leagues/{out['id']}/start", headers=auth(admin))
        assert r.status_code == 200, r.json
        out = r.json
    return {**out, "admin_token": admin, "organiser": by}


def started(service, args: dict) -> dict:
    """``new_league`` on a service: ``args`` as ``POST /v1/leagues`` takes them. Each
    invited player's join is written as ``running.join`` writes it (tests of jobs
    and healing hold player ids, not tokens; the join itself is tested over HTTP)."""
    by = accounts.register(service, {"name": "Organiser"})
    made = running.create(service, args, accounts.authenticate(service, by["token"]))
    for entry in made["invited"]:
        running._append(service, made["id"], lambda league, e=entry: league.propose_join(e))
    return {**running.start(service, made["id"], made["admin_token"]), "admin_token": made["admin_token"]}

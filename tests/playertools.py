"""Players in tests: the API calls every players' test makes (``auth``,
``register``, ``new_game``), and finished games whose seats are players,
written straight into a game store.

Seats name their player in the created event (``{"seat", "name", "player"}``), as
games created with ``{"player": ID}`` seats will; until the service makes such
games, the tests make their logs here, with the referee's own Table (so every log
is one the audit accepts)."""

from __future__ import annotations

import itertools

from referee.events import GENESIS, REFEREE, Draft, chain
from referee.store import GameRecord
from referee.table import Table

_ids = itertools.count(1)

GAME = "king-of-danger"
# every player ``register`` made: id -> (token, bot?), so ``new_game`` can seat each by their own act
TOKENS: dict[str, tuple[str, bool]] = {}


def auth(token) -> dict:
    return {"Authorization": f"Bearer {token}"}


def register(client, status: int = 201, **body) -> dict:
    """``POST /v1/players`` with ``body``, answered ``status``; its answer."""
    r = client.post("/v1/players", json=body)
    assert r.status_code == status, r.json
    if status == 201:
        TOKENS[r.json["id"]] = (r.json["token"], bool(body.get("bot")))
    return r.json


def new_game(client, seats, **more) -> dict:
    """A game of King of Danger with these seats (``more``: the creation's other keys),
    each player seated by their own act, as the referee requires: the first
    ``{"player": ID}`` seat is the creator's (the request carries its token), every
    other one is invited (``invite_player``) and, unless it is a bot player, takes its
    seat with its own token (``join``). The answer is the creation's, with the game's
    ``status`` and ``version`` once every invited player has joined."""
    players = [s["player"] for s in seats if isinstance(s, dict) and set(s) == {"player"}]
    creator = players[0] if players else None
    asked = [{"invite_player": s["player"]} if isinstance(s, dict) and set(s) == {"player"} and s["player"] != creator
             else s for s in seats]
    headers = auth(TOKENS[creator][0]) if creator else {}
    r = client.post("/v1/games", json={"game": GAME, "players": asked, **more}, headers=headers)
    assert r.status_code == 201, r.json
    out = r.json
    for pid in players[1:]:
        if not TOKENS[pid][1]:
            joined = client.post(f"/v1/games/{out['id']}/join", json={}, headers=auth(TOKENS[pid][0]))
            assert joined.status_code == 201, joined.json
            out = {**out, "status": joined.json["status"], "version": joined.json.get("version", 0)}
    if creator and out["status"] != "open":  # started: its commitment is in its first event
        first = client.get(f"/v1/games/{out['id']}/events?limit=1", headers=auth(TOKENS[creator][0]))
        out["seed_commitment"] = first.json["events"][0]["payload"]["seed_commitment"]
    return out


def finished_game(store, players: list[str], resigns: int = 0, game: str = "king-of-danger",
                  rated: bool | None = None, stacked: bool = False, abort: bool = False,
                  seats: list | None = None) -> str:
    """A game of ``game`` with a seat per player id (None: a seat held by a bare
    name), ended by seat ``resigns`` resigning at once (or aborted), its seed
    revealed, written into ``store``; returns its id."""
    gid = f"t{next(_ids)}x{id(store) % 997}"
    log, status = finished_log(gid, players, resigns, game, rated, stacked, abort)
    first = log[0]
    names = [s["name"] for s in first.payload["seats"]]
    store.create(GameRecord(gid, game, first.at, names, {}, f"seed-{gid}", status="settling", version=1), first)
    store.append(gid, 1, log[1:], status=status)
    return gid


def finished_log(gid: str, players: list[str | None], resigns: int = 0, game: str = "king-of-danger",
                 rated: bool | None = None, stacked: bool = False, abort: bool = False) -> tuple[list, str]:
    """``finished_game``'s log, in memory, and the game's status at its end."""
    seed = f"seed-{gid}"
    names = [f"name-{i}" for i in range(len(players))]
    # ended at once by the resignation, at a table of three too (house rule on_resign)
    options = {"on_resign": "end"} if game != "castle-danger" else {}
    made = Table.created_event(game, gid, names, options, seed, stacked)
    payload = dict(made.payload)
    payload["seats"] = [{**s, **({"player": p} if p else {})} for s, p in zip(payload["seats"], players, strict=True)]
    if rated is not None:
        payload["rated"] = rated
    first = chain([Draft("game-created", payload)], REFEREE, 1, GENESIS, made.at, seed)[0]
    table = Table.from_created(first)
    log = [first] + table.settle_all(seed)
    if abort:
        events, fork = table.propose_abort("test", seed=seed)
    else:
        events, fork = table.propose(resigns, [{"type": "resign"}], seed=seed)
    table.commit(fork)
    log += events + table.settle_all(seed)
    return log, table.status


def export(store, game_id: str) -> str:
    return "".join(line + "\n" for line in store.raw_events(game_id))

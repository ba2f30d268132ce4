"""Open games: seats anyone may take (``{"open": true}``) or kept for one invited
player (``{"invite": ADDRESS}``), filled by players joining from the lobby.

An open game is a record only, beside the players (``PlayerStore.open_*``), with
no log: nothing is dealt, committed or appended while a seat is empty. When the
last seat is taken, the game is created as any other, with its players seated
as ``{"player": ID}`` (so its log's ``game-created`` names every player and the
audit and the ratings read it like any game's), under the id and the admin token
the open game was given. So the log stays what it always is: one hash chain from
the game's creation, with no event anybody could not re-derive.

Taking a seat is a compare-and-set on the open game's stored text: of two players
joining for the last seat at once, one writes and the other reads again, finds no
seat, and gets 409. The join that fills the game marks it ``starting`` in that same
write and creates the game; a process that dies between the two leaves a game
``starting`` without a log, which the next read of it (the lobby's, a join's, the
summary's) creates.

An invitation is mailed once, under the confirmation's rule of one message per
address and window (referee/players/invitations.py). The seat is kept for the
player whose *confirmed* address it is: the invitee registers (or has registered)
with that address, confirms it, and joins.
"""

from __future__ import annotations

import hmac
import json

from referee import entries
from referee.caller import new_token, token_hash
from referee.errors import Forbidden, GameOver, NoSuchGame, Unauthenticated, VersionConflict
from referee.events import utcnow
from referee.games.base import MalformedMove, RefereeError
from referee.mail.contacts import check_email, parse_spectators
from referee.players import accounts
from referee.players import invitations as mailing
from referee.players.confirmation import address_key
from referee.players.store import players_of
from referee.service.creating import new_game_id
from referee.service.shared import DECK_OPTIONS
from referee.table import Table


class NotOpen(RefereeError):
    code, status = "not-open", 409


class SeatTaken(RefereeError):
    code, status = "seat-taken", 409


class AlreadyJoined(RefereeError):
    code, status = "already-joined", 409


class NotInvited(RefereeError):
    code, status = "not-invited", 403


def is_open(players) -> bool:
    """Whether a creation's seats ask for an open game."""
    return isinstance(players, list) and any(isinstance(p, dict) and ("open" in p or "invite" in p)
                                             for p in players)


def _open_seat(entry: dict, i: int) -> dict:
    if "open" in entry:
        if entry != {"open": True}:
            raise MalformedMove("an open seat is {\"open\": true} alone", field=f"players[{i}].open")
        return {"open": True}
    if len(entry) != 1:
        raise MalformedMove("an invitation is {\"invite\": ADDRESS} alone", field=f"players[{i}].invite")
    address = check_email(entry["invite"], f"players[{i}].invite")
    if not address:
        raise MalformedMove("an invitation needs an e-mail address", field=f"players[{i}].invite")
    return {"invite": address}


def open_game(service, game: str, players: list, options: dict | None, spectators: dict | None,
              rated: bool) -> dict:
    """A new open game: checked as a game's creation would be (the game, its
    options, every given seat), then kept as a record, with no log yet."""
    if not isinstance(options or {}, dict):
        raise MalformedMove("options must be an object", field="options")
    options = dict(options or {})
    if not isinstance(players, list) or not 1 <= len(players) <= 16:
        raise MalformedMove("players must be a list of 1 to 16 names or objects", field="players")
    seats, names = [], []
    for i, p in enumerate(players):
        if isinstance(p, dict) and ("open" in p or "invite" in p):
            seats.append(_open_seat(p, i))
            names.append(f"seat {i}")
        else:
            entry = entries.parse_player(p, i, service)
            if entry.get("bot") is None and entry.get("player") is None:
                raise MalformedMove("an open game's seats are players, bots, open or invited",
                                    field=f"players[{i}]")
            seats.append({"player": entry["player"]} if entry.get("player") else p)
            names.append(entry["name"])
    taken = [s["player"] for s in seats if "player" in s]
    if len(set(taken)) != len(taken):
        raise MalformedMove("a player takes one seat of a game", field="players")
    if not isinstance(rated, bool):
        raise MalformedMove("rated is true or false", field="rated")
    if not isinstance(game, str):
        raise MalformedMove("game must be a string", field="game")
    check = {k: v for k, v in options.items() if k != "seed"}
    Table.created_event(game, "check", names, check, "check", False)  # the game, its options, its size
    parse_spectators(spectators)  # checked now: the game's creation must not fail later
    gid, admin = new_game_id(), new_token()
    record = {"id": gid, "game": game, "created": utcnow(), "status": "open", "options": options,
              "rated": rated, "spectators": spectators, "seats": seats, "admin_hash": token_hash(admin)}
    players_of(service).open_create(record)
    for s in seats:  # told to the invitee's own `GET /v1/players/me` once the address is confirmed
        if "invite" in s:
            players_of(service).invite(address_key(s["invite"]), gid)
    mailing.queue(service, record)  # mailed by a thread and the sender's rounds, never waited for
    return {**shown(record), "admin_token": admin, "seed_commitment": None, "receipt": None}


def shown(record: dict) -> dict:
    """An open game as anyone may see it: never its seed or deck, never an
    invitation's address (only that the seat is kept for someone invited)."""
    options = {k: ("hidden until the game ends" if k in DECK_OPTIONS and v is not None else v)
               for k, v in record["options"].items() if k != "seed"}
    seats = []
    for i, s in enumerate(record["seats"]):
        if "open" in s:
            seats.append({"seat": i, "name": None, "open": True})
        elif "invite" in s:
            seats.append({"seat": i, "name": None, "invited": True})
        elif "player" in s:
            seats.append({"seat": i, "name": None, "player": s["player"]})
        else:
            seats.append({"seat": i, "name": s.get("name"), "bot": s.get("bot")})
    return {"id": record["id"], "game": record["game"], "status": record["status"],
            "created_at": record["created"], "version": 0,
            "options": options, "stacked": "seed" in record["options"] or any(
                record["options"].get(k) is not None for k in DECK_OPTIONS),
            "rated": record["rated"], "seats": seats, "moves": 0, "to_act": None,
            "players": [s.get("name") or "" for s in record["seats"]],
            "open_seats": sum(1 for s in record["seats"] if "open" in s or "invite" in s)}


def _read(service, game_id) -> tuple[dict, str]:
    text = players_of(service).open_get(game_id) if isinstance(game_id, str) and len(game_id) <= 100 else None
    if text is None:
        raise NoSuchGame(f"no open game {game_id!r}")
    record = json.loads(text)
    if record["status"] == "starting":
        _start(service, record)
    return record, text


def find(service, game_id: str) -> dict | None:
    """The open game as shown, or None when there is none of that id."""
    try:
        record, _ = _read(service, game_id)
    except NoSuchGame:
        return None
    return shown(record)


def lobby(service, limit: int = 100, after: str | None = None) -> dict:
    rows = players_of(service).lobby(limit + 1, after)
    page = [shown(r) for r in rows[:limit]]
    return {"games": page, "next": page[-1]["id"] if len(rows) > limit else None}


def invitations(service, player: dict) -> list[dict]:
    """The open games keeping a seat for the player's confirmed address (the latest
    100 invitations read): ``{id, game, seat, created_at}`` each, oldest first."""
    contacts = player["contacts"]
    if not (contacts.get("email") and contacts.get("email_confirmed")):
        return []
    mine = contacts["email"].lower()
    players, out = players_of(service), []
    for gid in dict.fromkeys(players.invited(address_key(contacts["email"]))):
        text = players.open_get(gid)
        record = json.loads(text) if text else None
        if record is None or record["status"] != "open":
            continue
        seat = next((i for i, s in enumerate(record["seats"]) if s.get("invite", "").lower() == mine), None)
        if seat is not None:
            out.append({"id": gid, "game": record["game"], "seat": seat, "created_at": record["created"]})
    return out


def _seat_for(record: dict, player: dict, seat) -> int:
    mine = (player["contacts"].get("email") or "").lower() if player["contacts"].get("email_confirmed") else ""
    free = [i for i, s in enumerate(record["seats"]) if "open" in s or "invite" in s]
    if seat is None:
        invited = [i for i in free if record["seats"][i].get("invite", "").lower() == mine and mine]
        anyone = [i for i in free if "open" in record["seats"][i]]
        if not (invited or anyone):
            raise SeatTaken("no seat of this game is open to you", field="seat")
        return (invited or anyone)[0]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(record["seats"]):
        raise MalformedMove(f"seat must be a number from 0 to {len(record['seats']) - 1}", field="seat")
    if seat not in free:
        raise SeatTaken(f"seat {seat} is taken", field="seat")
    invite = record["seats"][seat].get("invite")
    if invite is not None and invite.lower() != mine:
        raise NotInvited("this seat is kept for an invited player: join with the player whose confirmed "
                         "address was invited", field="seat")
    return seat


def join(service, game_id: str, token: str | None, body: dict | None) -> dict:
    """Take a seat of an open game with a player token. Of two joiners racing for
    the last seat, one takes it; the other gets 409."""
    player = accounts.authenticate(service, token)
    body = body or {}
    if not isinstance(body, dict) or set(body) - {"seat"}:
        raise MalformedMove("the body is {seat?}", field=sorted(set(body) - {"seat"})[0]
                            if isinstance(body, dict) else "body")
    for _ in range(50):
        try:
            record, text = _read(service, game_id)
        except NoSuchGame:
            if service.store.record(game_id) is not None:  # a game of the usual kind
                raise NotOpen("the game is not open: its seats are all taken", field="game_id") from None
            raise
        if record["status"] != "open":
            raise NotOpen(f"the game is {record['status']}: no seat is open", field="game_id")
        if any(s.get("player") == player["id"] for s in record["seats"]):
            raise AlreadyJoined("you hold a seat of this game already", field="player")
        seat = _seat_for(record, player, body.get("seat"))
        seats = [{"player": player["id"]} if i == seat else s for i, s in enumerate(record["seats"])]
        full = not any("open" in s or "invite" in s for s in seats)
        fresh = {**record, "seats": seats, "status": "starting" if full else "open"}
        if players_of(service).open_swap(game_id, text, fresh):
            break
    else:  # pragma: no cover - fifty joins in a row won every race
        raise VersionConflict("others kept joining first; try again")
    out = {"id": game_id, "seat": seat, "player": player["id"], "status": "open", "receipt": None}
    if full:
        created = _start(service, fresh)
        out.update(status=created["status"], version=created["version"])
        _receipted(service, out, game_id)
    return out


def _receipted(service, out: dict, game_id: str) -> None:
    """The receipt of the game's first event, which the call that took its last seat wrote."""
    service.receipted(out, game_id, service.store.events(game_id, limit=1)[0])


def _start(service, record: dict) -> dict:
    """Create the filled game (idempotent: a second starter finds it created)."""
    found = service.store.record(record["id"])
    if found is None:
        try:
            service.create(record["game"], record["seats"], record["options"], record["spectators"],
                           rated=record["rated"], game_id=record["id"], admin_hash=record["admin_hash"])
        except RefereeError:
            raise
        except Exception:  # another process created it meanwhile (the store refused the same id)
            if service.store.record(record["id"]) is None:
                raise
        found = service.store.record(record["id"])
    players = players_of(service)
    text = players.open_get(record["id"])
    if text is not None and json.loads(text)["status"] == "starting":
        players.open_swap(record["id"], text, {**json.loads(text), "status": "started"})
    return {"status": found.status, "version": found.version}


def _token_given(token: str | None) -> None:
    """An admin's call without a token is refused before anything is read: it
    learns nothing of which games are open."""
    if not token:
        raise Unauthenticated("send Authorization: Bearer <the game's admin token>")


def _admin(record: dict, token: str | None) -> None:
    if not token or not hmac.compare_digest(record["admin_hash"], token_hash(token)):
        raise Forbidden("only the open game's admin token may do this")


def fill(service, game_id: str, token: str | None, seat, body: dict) -> dict:
    """The admin gives an open seat to a bot: ``{bot, name?}``."""
    _token_given(token)
    if not isinstance(body, dict) or set(body) - {"bot", "name"} or "bot" not in body:
        raise MalformedMove("the body is {bot, name?}", field="bot")
    entry = entries.parse_player({"name": body.get("name") or f"{body['bot']} bot", "bot": body["bot"]}, 0)
    for _ in range(50):
        record, text = _read(service, game_id)
        _admin(record, token)
        if record["status"] != "open":
            raise NotOpen(f"the game is {record['status']}: no seat is open", field="game_id")
        if not isinstance(seat, int) or not 0 <= seat < len(record["seats"]):
            raise MalformedMove(f"seat must be a number from 0 to {len(record['seats']) - 1}", field="seat")
        if not ("open" in record["seats"][seat] or "invite" in record["seats"][seat]):
            raise SeatTaken(f"seat {seat} is taken", field="seat")
        seats = [{"name": entry["name"], "bot": entry["bot"]} if i == seat else s
                 for i, s in enumerate(record["seats"])]
        full = not any("open" in s or "invite" in s for s in seats)
        if full:  # the game must be one the referee can create (a Castle Danger of bots needs a turn limit)
            bots = {i: s["bot"] for i, s in enumerate(seats) if s.get("bot")}
            try:
                Table.created_event(record["game"], "check", [f"seat {i}" for i in range(len(seats))],
                                    {k: v for k, v in record["options"].items() if k != "seed"}, "check",
                                    False, bots=bots)
            except MalformedMove as err:
                raise MalformedMove(err.detail, field="bot") from None
        fresh = {**record, "seats": seats, "status": "starting" if full else "open"}
        if players_of(service).open_swap(game_id, text, fresh):
            break
    else:  # pragma: no cover
        raise VersionConflict("the game kept changing; try again")
    out = {"id": game_id, "seat": seat, "bot": entry["bot"], "status": "open", "receipt": None}
    if full:
        out.update(_start(service, fresh))
        _receipted(service, out, game_id)
    return out


def cancel(service, game_id: str, token: str | None) -> dict:
    """The admin cancels an open game: out of the lobby, nobody can join."""
    _token_given(token)
    for _ in range(50):
        record, text = _read(service, game_id)
        _admin(record, token)
        if record["status"] != "open":
            raise GameOver(f"the game is {record['status']}: too late to cancel it (abort it instead)")
        if players_of(service).open_swap(game_id, text, {**record, "status": "cancelled"}):
            return {"id": game_id, "status": "cancelled"}
    raise VersionConflict("the game kept changing; try again")  # pragma: no cover

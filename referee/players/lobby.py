"""Open games: seats anyone may take (``{"open": true}``) or kept for one invited
player (``{"invite_player": ID}``, or ``{"invite": ADDRESS}`` for whoever confirms
that address), filled by players joining from the lobby.

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

A seat kept for a player is that player's to take (``join``) or refuse
(``decline``: the game is then ``cancelled``, nothing dealt, nothing rated): nobody
is seated but by their own act (referee/players/seating.py). Each invitation is
pending for its player until answered or withdrawn, within the bounds of
referee/players/invitations.py, and mailed under referee/players/invitation_mail.py:
an address's seat is kept for the player whose *confirmed* address it is, and the
message's link registers the invitee if need be and seats them.
"""

from __future__ import annotations

import hmac
import json
import secrets

from referee import clock as clockmod
from referee import entries
from referee import rng as rngmod
from referee.caller import new_token, token_hash
from referee.errors import Forbidden, GameOver, NoSuchGame, Unauthenticated, VersionConflict
from referee.events import utcnow
from referee.games.base import MalformedMove, RefereeError
from referee.mail.contacts import check_email, parse_spectators
from referee.players import invitation_mail as mailing
from referee.players import invitations, seating
from referee.players.confirmation import address_key
from referee.players.store import players_of
from referee.service.creating import contributions_of, new_game_id, seed_text
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


KEPT = ("open", "invite", seating.INVITE_PLAYER)  # the keys of a seat not yet taken


def free(seat: dict) -> bool:
    """Whether an open game's seat is still to take (open, or kept for someone invited)."""
    return any(k in seat for k in KEPT)


def is_open(players) -> bool:
    """Whether a creation's seats ask for an open game."""
    return isinstance(players, list) and any(isinstance(p, dict) and free(p) for p in players)


def what(game_id: str) -> str:
    """An open game's name among a player's invitations (referee/players/invitations.py)."""
    return f"game:{game_id}"


def stacked(options: dict) -> bool:
    """Whether an open game with these options is dealt from a given seed or deck (it
    takes no entropy)."""
    return "seed" in options or any(options.get(k) is not None for k in DECK_OPTIONS)


def _open_seat(entry: dict, i: int) -> dict:
    if entries.ENTROPY in entry:
        raise MalformedMove("a seat still to take gets its entropy from the player who takes it (POST "
                            "/v1/games/{id}/join {\"entropy\": ...})", field=f"players[{i}].{entries.ENTROPY}")
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
              rated: bool, inviter: str | None = None) -> dict:
    """A new open game: checked as a game's creation would be (the game, its
    options, every given seat), then kept as a record, with no log yet. Each
    invited player's invitation is noted first (429 when one has too many
    pending: nothing is kept). ``inviter``: the creating player or client address
    (``invitations.inviter_of``)."""
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
            continue
        if isinstance(p, dict) and seating.INVITE_PLAYER in p:
            found = seating.invited_player(service, p, i)
            key = "player" if found["bot"] else seating.INVITE_PLAYER  # a bot takes its seat at once
            seats.append({key: found["id"], "name": found["name"]})
            names.append(found["name"])
            continue
        entry = entries.parse_player(p, i, service)
        if entry.get("bot") is None and entry.get("player") is None:
            raise MalformedMove("an open game's seats are players, bots, open or invited",
                                field=f"players[{i}]")
        seats.append({"player": entry["player"], "name": entry["name"],
                      **({entries.ENTROPY: entry[entries.ENTROPY]} if entries.ENTROPY in entry else {})}
                     if entry.get("player") else p)
        names.append(entry["name"])
    taken = [s.get("player") or s.get(seating.INVITE_PLAYER) for s in seats]
    taken = [pid for pid in taken if pid]
    if len(set(taken)) != len(taken):
        raise MalformedMove("a player takes one seat of a game", field="players")
    named = [i for i, s in enumerate(seats) if "name" in s]  # the seats whose holder is known now
    for k, i in enumerate(named):
        entries.check_unique(names[i], {j: names[j] for j in named[:k]}, f"players[{i}]")
    if not isinstance(rated, bool):
        raise MalformedMove("rated is true or false", field="rated")
    if not isinstance(game, str):
        raise MalformedMove("game must be a string", field="game")
    check = {k: v for k, v in options.items() if k != "seed"}
    Table.created_event(game, "check", names, check, "check", False)  # the game, its options, its size
    # The clock kept as a started game keeps it (referee/clock.py): complete, and a null
    # clock (none) left out, so the open game's answers show what the game will have.
    clock = clockmod.check_clock(options.pop("clock", None))
    if clock is not None:
        options["clock"] = clock
    parse_spectators(spectators)  # checked now: the game's creation must not fail later
    given = seed_text(options.get("seed"))
    contributions_of([s if isinstance(s, dict) else {} for s in seats], stacked(options))
    gid, admin = new_game_id(), new_token()
    inviter = inviter or invitations.inviter_of(None, None)
    # The referee commits now, before any seat contributes (a join brings its entropy):
    # ``secret`` is what the game will keep (the seed of a stacked game, else the secret
    # part of its seed: referee/entropy.py), never shown; its commitment is.
    record = {"id": gid, "game": game, "created": utcnow(), "status": "open", "options": options,
              "rated": rated, "spectators": spectators, "seats": seats, "admin_hash": token_hash(admin),
              "inviter": inviter, "secret": given or secrets.token_hex(32)}
    known = invitees(service, record)  # each noted first: a player with too many is 429, nothing kept
    fields = {i: f"players[{i}]." + ("invite" if "invite" in seats[i] else seating.INVITE_PLAYER) for i in known}
    mail = invitations.invite(service, what(gid), [(pid, fields[i]) for i, pid in sorted(known.items())],
                              inviter, still_waiting=lambda w, pid: _still_kept(service, w, pid))
    players_of(service).open_create(record)
    for s in seats:  # told to the invitee's own `GET /v1/players/me` once the address is confirmed
        if "invite" in s:
            players_of(service).invite(address_key(s["invite"]), gid)
    # mailed by a thread and the sender's rounds, never waited for: a known player's once a day
    # from one inviter, an address nobody has confirmed once a window
    strangers = {i for i, s in enumerate(seats) if "invite" in s and i not in known}
    mailing.queue(service, record, {i for i, pid in known.items() if pid in mail} | strangers)
    return {**shown(service, record), "admin_token": admin, "receipt": None}


def _still_kept(service, invitation: str, player_id: str) -> bool:
    """Whether a pending invitation of the player's still keeps a seat for them (an
    invitation to anything but an open game is kept until it expires)."""
    kind, _, gid = invitation.partition(":")
    if kind != "game":
        return True
    text = players_of(service).open_get(gid)
    record = json.loads(text) if text else None
    player = players_of(service).get(player_id) or {"id": player_id, "contacts": {}}
    return record is not None and record["status"] == "open" and kept_seat(record, player) is not None


def kept_seat(record: dict, player: dict) -> int | None:
    """The seat of an open game kept for this player: invited by id, or by the
    address the player has confirmed (compared without case). None: no seat is."""
    contacts = player.get("contacts") or {}
    mine = (contacts.get("email") or "").lower() if contacts.get("email_confirmed") else ""
    for i, s in enumerate(record["seats"]):
        if s.get(seating.INVITE_PLAYER) == player["id"] or (mine and s.get("invite", "").lower() == mine):
            return i
    return None


def invitees(service, record: dict) -> dict[int, str]:
    """{seat: player} of the seats kept for a known player: an invited one, or the
    player who has an invited address confirmed now."""
    players = players_of(service)
    out = {}
    for i, s in enumerate(record["seats"]):
        pid = s.get(seating.INVITE_PLAYER) or (mailing.confirmed_owner(players, s["invite"]) if "invite" in s else None)
        if pid:
            out[i] = pid
    return out


def withdraw(service, record: dict, seats=None) -> None:
    """The invitations of these seats (all, when None) are answered or withdrawn:
    pending no more for their players."""
    for seat, pid in invitees(service, record).items():
        if seats is None or seat in seats:
            invitations.withdraw(service, pid, what(record["id"]))


def _player_name(service, seat: dict) -> str | None:
    """The name a player's seat shows: kept with the seat, else (an open game made
    before names were kept) the player's own."""
    pid = seat.get("player") or seat.get(seating.INVITE_PLAYER)
    if seat.get("name") or not pid:
        return seat.get("name")
    return (players_of(service).get(pid) or {}).get("name")


def shown(service, record: dict) -> dict:
    """An open game as anyone may see it: never its seed or deck, never a seat's
    entropy, never an invitation's address (only that the seat is kept for someone
    invited); a seat kept for a player by that player's name, ``invited`` until they
    take it; the commitment to the seed (null for an open game from before
    commitments came first)."""
    # an open game kept before its null clock was left out at creation shows none either
    options = {k: ("hidden until the game ends" if k in DECK_OPTIONS and v is not None else v)
               for k, v in record["options"].items() if k != "seed" and not (k == "clock" and v is None)}
    seats = []
    for i, s in enumerate(record["seats"]):
        if "open" in s:
            seats.append({"seat": i, "name": None, "open": True})
        elif "invite" in s:
            seats.append({"seat": i, "name": None, "invited": True})
        elif seating.INVITE_PLAYER in s:
            seats.append({"seat": i, "name": _player_name(service, s), "player": s[seating.INVITE_PLAYER],
                          "invited": True})
        elif "player" in s:
            seats.append({"seat": i, "name": _player_name(service, s), "player": s["player"]})
        else:
            seats.append({"seat": i, "name": s.get("name"), "bot": s.get("bot")})
    out = {"id": record["id"], "game": record["game"], "status": record["status"],
           "created_at": record["created"], "version": 0,
           "options": options, "stacked": stacked(record["options"]), "rated": record["rated"],
           "seed_commitment": rngmod.commitment(record["secret"]) if record.get("secret") else None,
           "seats": seats, "moves": 0, "to_act": None,
           "players": [s["name"] or "" for s in seats],
           "open_seats": sum(1 for s in record["seats"] if free(s))}
    if record.get("declined") is not None:
        out["declined"] = record["declined"]
    return out


def read(service, game_id) -> tuple[dict, str]:
    text = players_of(service).open_get(game_id) if isinstance(game_id, str) and len(game_id) <= 100 else None
    if text is None:
        raise NoSuchGame(f"no open game {game_id!r}")
    record = json.loads(text)
    if record["status"] == "starting":
        start(service, record)
    return record, text


def find(service, game_id: str) -> dict | None:
    """The open game as shown, or None when there is none of that id."""
    try:
        record, _ = read(service, game_id)
    except NoSuchGame:
        return None
    return shown(service, record)


def lobby(service, limit: int = 100, after: str | None = None) -> dict:
    rows = players_of(service).lobby(limit + 1, after)
    page = [shown(service, r) for r in rows[:limit]]
    return {"games": page, "next": page[-1]["id"] if len(rows) > limit else None}


def receipted(service, out: dict, game_id: str) -> None:
    """The receipt of the game's first event, which the call that took its last seat wrote."""
    service.receipted(out, game_id, service.store.events(game_id, limit=1)[0])


def start(service, record: dict) -> dict:
    """Create the filled game (idempotent: a second starter finds it created)."""
    found = service.store.record(record["id"])
    if found is None:
        # a player's seat as service.create takes it: {"player": ID} (its name is the player's)
        # and the entropy the player brought
        seats = [{k: v for k, v in s.items() if k in ("player", entries.ENTROPY)} if "player" in s else s
                 for s in record["seats"]]
        try:
            service.create(record["game"], seats, record["options"], record["spectators"],
                           rated=record["rated"], game_id=record["id"], admin_hash=record["admin_hash"],
                           secret=record.get("secret"))
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
    entry = entries.parse_player({"name": body.get("name") or f"{body['bot']} bot", "bot": body["bot"]}, None,
                                 where="")  # refusals name the body's own fields
    for _ in range(50):
        record, text = read(service, game_id)
        _admin(record, token)
        if record["status"] != "open":
            raise NotOpen(f"the game is {record['status']}: no seat is open", field="game_id")
        if not isinstance(seat, int) or not 0 <= seat < len(record["seats"]):
            raise MalformedMove(f"seat must be a number from 0 to {len(record['seats']) - 1}", field="seat")
        if not free(record["seats"][seat]):
            raise SeatTaken(f"seat {seat} is taken", field="seat")
        seats = [{"name": entry["name"], "bot": entry["bot"]} if i == seat else s
                 for i, s in enumerate(record["seats"])]
        full = not any(free(s) for s in seats)
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
    withdraw(service, record, {seat})  # the seat's invitation, if it kept one, is withdrawn
    out = {"id": game_id, "seat": seat, "bot": entry["bot"], "status": "open", "receipt": None}
    if full:
        out.update(start(service, fresh))
        receipted(service, out, game_id)
    return out


def cancel(service, game_id: str, token: str | None) -> dict:
    """The admin cancels an open game: out of the lobby, nobody can join."""
    _token_given(token)
    for _ in range(50):
        record, text = read(service, game_id)
        _admin(record, token)
        if record["status"] != "open":
            raise GameOver(f"the game is {record['status']}: too late to cancel it (abort it instead)")
        if players_of(service).open_swap(game_id, text, {**record, "status": "cancelled"}):
            withdraw(service, record)
            return {"id": game_id, "status": "cancelled"}
    raise VersionConflict("the game kept changing; try again")  # pragma: no cover

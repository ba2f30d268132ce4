"""A player's answer to an open game: take a seat (``join``), or refuse the one kept
for them (``decline``), by their token or by the code their invitation's message
carries; and the invitations a player has not answered yet (``/me``).

Taking a seat is a compare-and-set on the open game's stored text: of two players
joining for the last seat at once, one writes and the other reads again, finds no
seat, and gets 409. The join that fills the game marks it ``starting`` in that same
write and creates it (referee/players/lobby.py ``start``). Declining cancels the
game: nothing was dealt, nothing is rated, nobody can join it any more.
"""

from __future__ import annotations

import json

from referee import entropy
from referee.entries import ENTROPY, check_unique
from referee.errors import NoSuchGame, VersionConflict
from referee.games import engine as engine_by_name
from referee.games.base import MalformedMove
from referee.players import accounts, invitations, lobby, seating
from referee.players import invitation_mail as mailing
from referee.players.confirmation import address_key
from referee.players.lobby import AlreadyJoined, NotInvited, NotOpen, SeatTaken
from referee.players.store import players_of


def _open(service, game_id: str) -> tuple[dict, str]:
    """The open game and its stored text; 409 ``not-open`` for a game whose seats
    are all taken or that was cancelled."""
    try:
        record, text = lobby.read(service, game_id)
    except NoSuchGame:
        if isinstance(game_id, str) and len(game_id) <= 100 and service.store.record(game_id) is not None:
            raise NotOpen("the game is not open: its seats are all taken", field="game_id") from None
        raise
    if record["status"] != "open":
        raise NotOpen(f"the game is {record['status']}: no seat is open", field="game_id")
    return record, text


def _seat_for(record: dict, player: dict, seat) -> int:
    kept = lobby.kept_seat(record, player)
    if seat is None:
        if kept is not None:
            return kept
        anyone = [i for i, s in enumerate(record["seats"]) if "open" in s]
        if not anyone:
            raise SeatTaken("no seat of this game is open to you", field="seat")
        return anyone[0]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(record["seats"]):
        raise MalformedMove(f"seat must be a number from 0 to {len(record['seats']) - 1}", field="seat")
    if kept is not None and seat != kept:
        raise SeatTaken(f"seat {kept} is kept for you: take that one, or decline it", field="seat")
    if not lobby.free(record["seats"][seat]):
        raise SeatTaken(f"seat {seat} is taken", field="seat")
    if seat != kept and "open" not in record["seats"][seat]:
        raise NotInvited("this seat is kept for an invited player: only they may take it", field="seat")
    return seat


def join(service, game_id: str, token: str | None, body: dict | None) -> dict:
    """Take a seat of an open game with a player token: ``{seat?, entropy?}``."""
    player = accounts.authenticate(service, token)
    body = body or {}
    if not isinstance(body, dict) or set(body) - {"seat", ENTROPY}:
        raise MalformedMove("the body is {seat?, entropy?}", field=sorted(set(body) - {"seat", ENTROPY})[0]
                            if isinstance(body, dict) else "body")
    return take(service, game_id, player, body.get("seat"), given_entropy(body.get(ENTROPY)))


def given_entropy(value) -> str | None:
    """A joiner's contribution to the seed checked (400 naming ``entropy``), or None."""
    return None if value is None else entropy.check(value, ENTROPY)


def _takes(record: dict, contribution: str | None) -> None:
    """400 naming ``entropy`` for a contribution to a game dealt from a given seed or
    deck: its deal is chosen already."""
    if contribution is not None and lobby.stacked(record["options"]):
        raise MalformedMove("a game dealt from a given seed or deck takes no entropy: its deal is "
                            "chosen already", field=ENTROPY)


def take(service, game_id: str, player: dict, seat=None, contribution: str | None = None) -> dict:
    """Seat ``player`` in the open game: the seat kept for them, the one asked, or the
    first open one, with the player's ``contribution`` to the seed, kept unseen until
    the game's first event records it. Of two joiners racing for the last seat, one
    takes it; the other gets 409."""
    for _ in range(50):
        record, text = _open(service, game_id)
        _takes(record, contribution)
        if any(s.get("player") == player["id"] for s in record["seats"]):
            raise AlreadyJoined("you hold a seat of this game already", field="player")
        chosen = _seat_for(record, player, seat)
        # a joiner's name is checked as at creation: notices and results speak of players by name
        check_unique(player["name"], {i: s["name"] for i, s in enumerate(record["seats"])
                                      if i != chosen and s.get("name")}, "player")
        mine = {"player": player["id"], "name": player["name"],
                **({ENTROPY: contribution} if contribution is not None else {})}
        seats = [mine if i == chosen else s for i, s in enumerate(record["seats"])]
        full = not any(lobby.free(s) for s in seats)
        fresh = {**record, "seats": seats, "status": "starting" if full else "open"}
        if players_of(service).open_swap(game_id, text, fresh):
            break
    else:  # pragma: no cover - fifty joins in a row won every race
        raise VersionConflict("others kept joining first; try again")
    invitations.withdraw(service, player["id"], lobby.what(game_id))  # answered
    out = {"id": game_id, "seat": chosen, "player": player["id"], "status": "open", "receipt": None}
    if full:
        created = lobby.start(service, fresh)
        out.update(status=created["status"], version=created["version"])
        lobby.receipted(service, out, game_id)
    return out


def decline(service, game_id: str, token: str | None) -> dict:
    """Refuse the seat an open game keeps for the caller (player token): the game is
    cancelled."""
    return refuse(service, game_id, accounts.authenticate(service, token))


def refuse(service, game_id: str, player: dict | None, seat: int | None = None) -> dict:
    """Cancel the open game for the seat kept for ``player`` (or, answering by a
    mailed code, for ``seat``): nothing dealt, nothing rated."""
    for _ in range(50):
        record, text = _open(service, game_id)
        kept = lobby.kept_seat(record, player) if player is not None else seat
        if kept is None:
            raise NotInvited("no seat of this game is kept for you: only an invited player may decline",
                             field="game_id")
        fresh = {**record, "status": "cancelled", "declined": kept}
        if players_of(service).open_swap(game_id, text, fresh):
            break
    else:  # pragma: no cover
        raise VersionConflict("the game kept changing; try again")
    lobby.withdraw(service, record)  # every invitation of a cancelled game is withdrawn
    out = {"id": game_id, "seat": kept, "status": "cancelled"}
    if player is not None:
        out["player"] = player["id"]
    return out


def invitations_of(service, player: dict) -> list[dict]:
    """The open games keeping a seat for the player, by id or by the player's
    confirmed address, oldest first: ``{id, game, title, seat, created_at, players,
    stacked, inviter}`` each (``players``: each seat's holder by name, "" for a seat nobody
    holds yet; ``inviter``: the inviting player's name, or null)."""
    players = players_of(service)
    ids = [w.partition(":")[2] for w in invitations.pending(service, player["id"]) if w.startswith("game:")]
    email = invitations.confirmed_email(player)
    if email:  # the latest 100 invitations of the address
        ids += players.invited(address_key(email))
    out = []
    for gid in dict.fromkeys(ids):
        text = players.open_get(gid)
        record = json.loads(text) if text else None
        seat = lobby.kept_seat(record, player) if record is not None and record["status"] == "open" else None
        if seat is None:
            continue
        shown = lobby.shown(service, record)
        out.append({"id": gid, "game": record["game"], "title": engine_by_name(record["game"]).title,
                    "seat": seat, "created_at": record["created"], "players": shown["players"],
                    "stacked": shown["stacked"],
                    "inviter": mailing.inviter_name(players, record)})
    out.sort(key=lambda i: (i["created_at"], i["id"]))
    return out


# ---- answering by the message's code (the invitation's page) -----------------------------

def by_code(service, game_id: str, seat, code) -> tuple[dict, dict | None]:
    """The open game and the player a mailed code answers for (None: an address
    nobody has confirmed yet, who registers on answering). 403 ``not-invited`` for
    a code that is not the one mailed for that seat."""
    record, _ = _open(service, game_id)
    if not mailing.code_holds(service, record, seat, code):
        raise NotInvited("this link is not one the referee mailed for a seat of this game", field="code")
    kept = record["seats"][seat]
    pid = kept.get(seating.INVITE_PLAYER) or mailing.confirmed_owner(players_of(service), kept["invite"])
    return record, players_of(service).get(pid) if pid else None


def accept_by_code(service, game_id: str, seat, code, name, contribution: str | None = None) -> dict:
    """Take the seat a mailed code is for: as the invited player, or as the player
    who has the invited address confirmed, or as a new player registered now with
    ``name`` and that address (confirmed by the code), with the player's
    ``contribution`` to the seed (checked as ``given_entropy`` checks it). The
    answer has the new player's ``token``, shown this once, when one was registered."""
    contribution = given_entropy(contribution)  # refused before anyone is registered
    record, player = by_code(service, game_id, seat, code)
    _takes(record, contribution)
    token = None
    if player is None:
        made = accounts.register(service, {"name": name if isinstance(name, str) else ""})
        address = record["seats"][seat]["invite"]
        players_of(service).update(made["id"], {"email": address, "email_confirmed": True}, None)
        players_of(service).own_address(address_key(address), made["id"])
        player, token = players_of(service).get(made["id"]), made["token"]
    out = take(service, game_id, player, seat, contribution)
    return {**out, "name": player["name"], **({"token": token} if token else {})}


def decline_by_code(service, game_id: str, seat, code) -> dict:
    by_code(service, game_id, seat, code)
    return refuse(service, game_id, None, seat)

"""Who may seat a player: only the player, by their own act.

In ``POST /v1/games`` a seat given as a player is one of two things:

- ``{"player": ID}``: the creator's own seat. ID must be the player whose token
  authorises the request (``Authorization: Bearer <player token>``); anyone else's
  id is 403 ``forbidden``, and nothing is created, kept or mailed. Player ids are
  public (the lobby, leagues, profiles): an id is no one's consent.
- ``{"invite_player": ID}``: a seat kept for that player, who takes it (``POST
  /v1/games/{id}/join``) or refuses it (``POST /v1/games/{id}/decline``); the game
  is open until then (referee/players/lobby.py). A bot player, which plays whenever
  it is asked, takes its seat at once; so does the creator, inviting themself.

Seats given by name, bots by name, ``{"open": true}`` and ``{"invite": ADDRESS}``
seats are as they always were, with or without a token.
"""

from __future__ import annotations

from referee.entries import ENTROPY
from referee.errors import Forbidden, MalformedMove, Unauthenticated
from referee.players import accounts
from referee.players.store import player_of_token, players_of

INVITE_PLAYER = "invite_player"


def creator(service, token: str | None) -> dict | None:
    """The player whose token authorises a creation, or None (no token, or a token
    that is no player's: a seat given by name needs none)."""
    if not token or player_of_token(token) is None:
        return None
    try:
        return accounts.authenticate(service, token)
    except Unauthenticated:
        return None


def invited_player(service, entry: dict, i: int) -> dict:
    """``{"invite_player": ID}`` checked: the invited player's record. 400 naming
    the field for anything else."""
    field = f"players[{i}].{INVITE_PLAYER}"
    if ENTROPY in entry:  # the seed's contributions are the seats' own: the player's, when joining
        raise MalformedMove("an invited player brings their own entropy when they join (POST "
                            "/v1/games/{id}/join {\"entropy\": ...})", field=f"players[{i}].{ENTROPY}")
    if len(entry) != 1:
        raise MalformedMove("an invited player is {\"invite_player\": ID} alone", field=field)
    pid = entry[INVITE_PLAYER]
    found = players_of(service).get(pid) if isinstance(pid, str) and 0 < len(pid) <= 100 else None
    if found is None:
        raise MalformedMove(f"no player {pid!r}", field=field)
    return found


def seats(service, players, me: dict | None) -> list:
    """The creation's seats as the game is to be made, once each player seat is one
    its player chose: 403 ``forbidden`` for ``{"player": ID}`` of anyone but ``me``;
    an invited bot player (or ``me``) as ``{"player": ID}``, seated now."""
    if not isinstance(players, list):
        return players  # refused with its field where the seats are read
    out = []
    for i, entry in enumerate(players):
        if isinstance(entry, dict) and "player" in entry:
            pid = entry["player"]
            if me is None or pid != me["id"]:
                raise Forbidden(
                    "a player is seated only by their own act: {\"player\": ID} is the seat of the player "
                    "whose token authorises the request (Authorization: Bearer <player token>); seat anyone "
                    "else as {\"invite_player\": ID}, and they take the seat or decline it",
                    field=f"players[{i}].player")
        elif isinstance(entry, dict) and INVITE_PLAYER in entry:
            found = invited_player(service, entry, i)
            if found["bot"] or (me is not None and found["id"] == me["id"]):
                entry = {"player": found["id"]}  # a bot plays whenever asked; the creator asks themself
        out.append(entry)
    return out


def invitations(players) -> int:
    """How many invitations a creation's seats send (each rate-limited): the seats
    kept for an invited player or address."""
    if not isinstance(players, list):
        return 0
    return sum(1 for p in players if isinstance(p, dict) and (INVITE_PLAYER in p or "invite" in p))

"""The league endpoints' JSON shapes (validation and the OpenAPI document).

Only the body's shape is checked here; the terms themselves (game, format, sizes,
points) are checked by ``setup.league_terms``, whose refusals name their field."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate

from referee.entries import check_name
from referee.errors import MalformedMove
from schemas import Strict


def plain_name(value: str) -> None:
    """A new league's name holds no control or bidirectional formatting character
    (referee/entries.py ``check_name``). Checked where a league is asked for, not in
    ``setup.league_terms``, which the audit runs over leagues logged before the rule."""
    try:
        check_name(value, "name")
    except MalformedMove as err:
        raise ValidationError(err.detail) from None


class LeagueCreate(Strict):
    name = fields.String(required=True, validate=plain_name, metadata={
        "description": "1 to 100 characters, no control or bidirectional formatting character"})
    game = fields.String(required=True, metadata={"description": "a game id"})
    options = fields.Dict(metadata={"description": "the game's options, the same for every game"})
    format = fields.String(required=True, metadata={"description": "round-robin, swiss or tables"})
    players = fields.List(fields.Raw(allow_none=True, metadata={"type": "string"}), required=True,
                          metadata={"description": "registered player ids (POST /v1/players), each "
                                                   "invited (the organiser's own id: the organiser plays; "
                                                   "a bot player joins at once)"})
    entry = fields.String(metadata={"description": "invited (the default: only those listed may join) "
                                                   "or open (any player may join)"})
    rounds = fields.Raw(metadata={"description": "swiss and tables: 1 to 100"})
    table_size = fields.Raw(metadata={"description": "tables: seats per table"})
    cycles = fields.Raw(metadata={"description": "round-robin: 1 to 4 (2: home and away)"})
    clock = fields.Dict(allow_none=True, metadata={"description": "every game's clock (docs/clock.md); "
                                                                 "null or left out: none"})
    points = fields.Dict(metadata={"description": "{win, draw, loss}, default {1, 0.5, 0}"})


class LeagueJoin(Strict):
    entropy = fields.String(validate=validate.Length(min=1, max=256), metadata={
        "description": "your contribution to the league's lots (docs/leagues.md, \"The lots\"): 1 to 256 "
                       "characters, letters, marks, numbers, punctuation, symbols and the space; unseen by "
                       "anyone until the league's start records it"})


class Standing(Schema):
    rank = fields.Integer()
    player = fields.String()
    name = fields.String()
    points = fields.Float()
    tiebreaks = fields.Dict(keys=fields.String(), values=fields.Float())
    played = fields.Integer()
    won = fields.Integer()
    withdrawn = fields.Boolean()


class LeagueGame(Schema):
    game = fields.String(metadata={"description": "the game's id (GET /v1/games/{id})"})
    seats = fields.List(fields.String(), metadata={"description": "player ids in seat order"})
    placings = fields.List(fields.Integer(), allow_none=True,
                           metadata={"description": "each seat's place once recorded, else null"})
    withdrew = fields.List(fields.String(), metadata={
        "description": "players of this game who have withdrawn from the league (the referee resigned "
                       "their seats: they lost it)"})


class LeagueRound(Schema):
    round = fields.Integer()
    closed = fields.Boolean()
    byes = fields.List(fields.String())
    games = fields.List(fields.Nested(LeagueGame))


class LeaguePlayer(Schema):
    player = fields.String()
    name = fields.String()
    withdrawn = fields.Boolean()


class CrossRow(Schema):
    player = fields.String()
    name = fields.String()
    results = fields.List(fields.Raw(allow_none=True, metadata={
        "type": "array", "items": {"type": "number"},
        "description": "against each player, in the rows' order: the points of each game they "
                       "played (one per cycle; none yet: []); null against oneself"}))


class Invited(Schema):
    player = fields.String()
    name = fields.String()


class League(Schema):
    id = fields.String()
    name = fields.String()
    game = fields.String()
    format = fields.String()
    status = fields.String(metadata={"description": "waiting (players join until its organiser "
                                                    "starts it), running or finished"})
    league_version = fields.Integer(metadata={
        "description": "2: created with invitations and started by its organiser; 1: created, "
                       "before, with every player in"})
    entry = fields.String(metadata={"description": "invited or open (any player may join)"})
    organiser = fields.String(allow_none=True, metadata={
        "description": "the organising player's id (null: a league of version 1)"})
    invited = fields.List(fields.Nested(Invited), metadata={
        "description": "invited players who have not answered yet (empty once it has started)"})
    version = fields.Integer(metadata={"description": "the league log's length"})
    created_at = fields.String()
    seed_commitment = fields.String()
    players = fields.List(fields.Nested(LeaguePlayer))
    standings = fields.List(fields.Nested(Standing))
    rounds = fields.List(fields.Nested(LeagueRound))
    crosstable = fields.List(fields.Nested(CrossRow), metadata={"description": "round-robin only"})
    receipt = fields.Nested("Receipt", metadata={
        "description": "in the answer of a call that appended to the league's log (its creation, a "
                       "join, a decline, its start, a withdrawal): the receipt of the league's event at `version` (`game` is the league's id)"})


class LeagueCreated(League):
    admin_token = fields.String(metadata={"description": "the league's admin token: shown once"})


class LeagueRow(Schema):
    organiser = fields.String(allow_none=True, metadata={
        "description": "the organising player's id (null: a league of version 1)"})
    id = fields.String()
    name = fields.String()
    game = fields.String()
    format = fields.String()
    created_at = fields.String()
    status = fields.String()
    version = fields.Integer()


class LeagueList(Schema):
    leagues = fields.List(fields.Nested(LeagueRow))


class LeagueListArgs(Strict):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))

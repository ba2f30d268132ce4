"""The player endpoints' JSON shapes (validation and the OpenAPI document)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from referee.players import finding
from referee.players.current import MAX_PAGE, PAGE, WAITING
from schemas import Strict


class PlayerRegister(Strict):
    name = fields.String(required=True, validate=validate.Length(min=1, max=100),
                         metadata={"description": "the player's name, 1 to 100 characters, no control or "
                                                  "bidirectional formatting character (public)"})
    email = fields.String(metadata={"description": "an address: mailed one confirmation message, and "
                                                   "nothing else until it is confirmed (private)"})
    webhook = fields.String(metadata={"description": "http(s) URL for the player's notices; loopback and "
                                                     "private addresses refused (private)"})
    bot = fields.String(validate=validate.OneOf(["random", "basic"]),
                        metadata={"description": "a bot player, played by the referee (no contacts)"})


class PlayerRegistered(Schema):
    id = fields.String()
    name = fields.String()
    token = fields.String(metadata={"description": "the player's bearer token, across games: shown once"})
    bot = fields.String()
    email = fields.String()
    email_confirmed = fields.Boolean()
    webhook_secret = fields.String(metadata={"description": "signs the player's webhooks: shown once"})


class PlayerRating(Schema):
    mu = fields.Float()
    sigma = fields.Float()
    ordinal = fields.Float(metadata={"description": "mu - 3 sigma: the number tables sort by"})
    games = fields.Integer(metadata={"description": "rated games behind it"})


class PlayerTally(Schema):
    played = fields.Integer()
    won = fields.Integer()


class PlayerGame(Schema):
    id = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "the game's name, as players say it"})
    players = fields.List(fields.String(), metadata={"description": "who holds each seat, seat order"})
    seat = fields.Integer(metadata={"description": "the player's seat"})
    status = fields.String(metadata={"description": "active or settling"})
    version = fields.Integer()
    created = fields.String()
    waiting = fields.Boolean(metadata={"description": "the player's seat is to act"})


class PlayerGamesArgs(Strict):
    after = fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "the cursor: the `current_games_next` of the page before"})
    limit = fields.Integer(load_default=PAGE, validate=validate.Range(min=1, max=MAX_PAGE), metadata={
        "description": f"at most this many current games (1-{MAX_PAGE}, default {PAGE})"})


class PlayerWaiting(Schema):
    id = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "the game's name, as players say it"})
    players = fields.List(fields.String(), metadata={"description": "who holds each seat, seat order"})
    seat = fields.Integer()
    version = fields.Integer()
    created = fields.String()
    deadline = fields.String(allow_none=True, metadata={"description": "the seat's deadline, if a clock runs"})


class PlayerProfile(Schema):
    id = fields.String()
    name = fields.String()
    bot = fields.String(allow_none=True)
    created = fields.String()
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(PlayerRating),
                          metadata={"description": "by game id (king-of-danger, ...)"})
    games = fields.Dict(keys=fields.String(), values=fields.Nested(PlayerTally),
                        metadata={"description": "finished games played and won, by game id"})
    played = fields.Integer()
    won = fields.Integer()
    current_games = fields.List(fields.Nested(PlayerGame), metadata={
        "description": f"a page of the games the player holds a seat in that have not ended (at most "
                       f"`limit`, {PAGE} by default): those waiting on the player's move first, then the "
                       "others, each the oldest first"})
    current_games_next = fields.String(allow_none=True, metadata={
        "description": "pass as `after` for the next page of current games; null on the last page"})
    leagues = fields.List(fields.Dict(), metadata={
        "description": "the leagues the player joined or organises, the newest first (at most 20): "
                       "{id, name, game, format, created_at, status, version, organiser}"})
    moves = fields.Integer(metadata={"description": "moves the player made in every game that has ended "
                                                    "(not those the referee made for them after a timeout)"})
    timeouts = fields.Integer(metadata={"description": "the player's timeouts in every game that has ended"})
    on_time = fields.Float(allow_none=True, metadata={
        "description": "moves made in time / (moves + timeouts), 4 decimals; null before any"})
    on_vacation_until = fields.String(allow_none=True, metadata={
        "description": "the last day (UTC date) of the player's vacation under way; null when they are "
                       "not away (nothing of bookings to come is shown)"})


class PlayerContacts(Schema):
    email = fields.String(allow_none=True)
    email_confirmed = fields.Boolean()
    confirmation_mailed = fields.Boolean(metadata={
        "description": "an unconfirmed address's confirmation message was sent (false: the address had "
                       "one within the window, so none was)"})
    webhook = fields.String(allow_none=True)


class PlayerInvitation(Schema):
    id = fields.String(metadata={"description": "the open game (POST /v1/games/{id}/join, or .../decline)"})
    game = fields.String()
    title = fields.String(metadata={"description": "the game's name, as players say it"})
    seat = fields.Integer(metadata={"description": "the seat kept for the player (invited by id or address)"})
    created_at = fields.String()
    players = fields.List(fields.String(), metadata={
        "description": "who holds or is invited to each seat, by name; \"\" for a seat nobody holds yet"})
    inviter = fields.String(allow_none=True, metadata={
        "description": "the inviting player's name; null where no player invited (a client address did)"})
    stacked = fields.Boolean(metadata={
        "description": "dealt from a given seed or deck: a join to it takes no entropy"})


class PlayerLeagueInvitation(Schema):
    id = fields.String(metadata={"description": "the league (POST /v1/leagues/{id}/join, or .../decline)"})
    name = fields.String()
    game = fields.String()
    title = fields.String(metadata={"description": "the game's name (King of Danger...)"})
    format = fields.String()
    created_at = fields.String()
    organiser = fields.String(allow_none=True, metadata={"description": "the organising player's name"})


class CalendarSettings(Schema):
    """A player's calendar settings (docs/players.md, "Calendar settings")."""

    timezone = fields.String(metadata={"description": "the player's IANA time zone (default UTC): their "
                                                      "weekends and digest hour are in it"})
    weekends_off = fields.Boolean(metadata={"description": "the player's own clock stops on Saturday and "
                                                           "Sunday, their local time (default false)"})
    auto_vacation = fields.Boolean(metadata={"description": "a deadline about to pass draws on the vacation "
                                                            "allowance first, a day at a time, before the seat "
                                                            "times out (default true)"})
    notices = fields.String(allow_none=True, metadata={
        "enum": ["each", "turns", "daily", None],
        "description": "which notices the player is sent: each (every one), turns (their turns, game "
                       "results and league rounds only) or daily (one digest a day at digest_hour); null: the defaults, "
                       "each outside leagues and turns in a league game"})
    digest_hour = fields.Integer(metadata={"description": "the local hour (0-23) of the daily digest "
                                                          "(default 8)"})
    calendar_url = fields.String(metadata={
        "description": "the player's deadlines as an iCalendar feed, behind a secret of its own that reads "
                       "that feed and nothing else (POST /v1/players/me/calendar/reset makes a new one)"})
    vacation_days_left = fields.Integer(metadata={"description": "days of this calendar year's vacation "
                                                                 "allowance left (GET /v1/players/me)"})
    vacations = fields.List(fields.Dict(), metadata={
        "description": "the player's vacations not yet over, {from, to} (UTC dates), the earliest first"})


class PlayerMe(PlayerProfile, CalendarSettings):
    contacts = fields.Nested(PlayerContacts)
    waiting = fields.List(fields.Nested(PlayerWaiting), metadata={
        "description": f"the games waiting on this player's move (at most {WAITING}): nearest deadline "
                       "first, then oldest"})
    invitations = fields.List(fields.Nested(PlayerInvitation), metadata={
        "description": "GET only: the open games keeping a seat for the player (invited by id, or by the "
                       "player's confirmed address), oldest first"})
    league_invitations = fields.List(fields.Nested(PlayerLeagueInvitation), metadata={
        "description": "GET only: the leagues inviting the player that have not started, oldest first"})
    webhook_secret = fields.String(metadata={"description": "after a new webhook URL: its secret, shown once"})


class PlayerContactChange(Strict):
    email = fields.String(allow_none=True, metadata={"description": "a new address (unconfirmed until its "
                                                                    "code comes back); null removes it"})
    webhook = fields.String(allow_none=True, metadata={"description": "a new URL (a new secret is returned); "
                                                                      "null removes it"})
    # the calendar's settings: checked by referee/calendar, which names a bad value's field
    timezone = fields.Raw(metadata={"type": "string", "description": "an IANA time zone name, e.g. "
                                                                     "Europe/Paris"})
    weekends_off = fields.Raw(metadata={"type": "boolean"})
    auto_vacation = fields.Raw(metadata={"type": "boolean"})
    notices = fields.Raw(allow_none=True, metadata={"type": "string", "nullable": True, "enum": ["each", "turns", "daily", None],
                                   "description": "each, turns, or null for the defaults (daily: not "
                                                  "offered yet, refused 400)"})
    digest_hour = fields.Raw(metadata={"type": "integer", "minimum": 0, "maximum": 23})


class PlayerConfirm(Strict):
    code = fields.String(required=True, validate=validate.Length(min=1, max=64),
                         metadata={"description": "the code from the confirmation message"})


class PlayerConfirmed(Schema):
    id = fields.String()
    email_confirmed = fields.Boolean()


class PlayerHistoryArgs(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=100),
                         metadata={"description": "the game id whose rating history to read"})
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1),
                           metadata={"description": "the cursor: the `next` of the page before"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class PlayerPictureArgs(Strict):
    game = fields.String(required=True, validate=validate.Length(min=1, max=100),
                         metadata={"description": "the game id whose rating to draw"})


class PlayerHistoryEntry(Schema):
    n = fields.Integer(metadata={"description": "the player's nth rated game of this kind"})
    game_id = fields.String()
    ended_at = fields.String()
    order = fields.Integer(metadata={"description": "the game's place in the order games were rated"})
    place = fields.Integer()
    left_at = fields.String(metadata={"description": "when the player left the game while the others "
                                                     "played on (house rule on_resign); absent if they did not"})
    before = fields.Nested(PlayerRating)
    after = fields.Nested(PlayerRating)


class PlayerHistory(Schema):
    id = fields.String()
    game = fields.String()
    rating = fields.Nested(PlayerRating, metadata={"description": "the rating now"})
    history = fields.List(fields.Nested(PlayerHistoryEntry), metadata={"description": "oldest first"})
    next = fields.Integer(allow_none=True, metadata={"description": "pass as `after` for the next page"})


class JoinGame(Strict):
    seat = fields.Integer(metadata={"description": "the seat to take (else the one kept for you, invited by id "
                                                   "or confirmed address, or the first open one)"})
    entropy = fields.String(validate=validate.Length(min=1, max=256), metadata={
        "description": "your contribution to the game's seed (docs/log-format.md, \"The seed\"): 1 to 256 "
                       "characters, letters, marks, numbers, punctuation, symbols and the space; unseen by "
                       "anyone until the game's first event records it. 400 beside a given seed or deck"})


class FillSeat(Strict):
    bot = fields.String(required=True, validate=validate.OneOf(["random", "basic"]))
    name = fields.String(validate=validate.Length(min=1, max=100), metadata={
        "description": "the bot's name, 1 to 100 characters, no control or bidirectional formatting character"})


class Joined(Schema):
    id = fields.String()
    seat = fields.Integer()
    player = fields.String()
    bot = fields.String()
    status = fields.String(metadata={"description": "open while seats remain; then the created game's "
                                                    "(settling or active); cancelled (by its admin, or an "
                                                    "invited player's decline)"})
    version = fields.Integer(metadata={"description": "the created game's version, once every seat is taken"})
    receipt = fields.Nested("Receipt", allow_none=True, metadata={
        "description": "a join's or fill's: the receipt of the created game's first event, when this call "
                       "took the last seat; null when seats remain (nothing is appended)"})


class PlayerSearchArgs(Strict):
    q = fields.String(required=True, validate=validate.Length(min=1, max=finding.WIDTH), metadata={
        "description": "the start of a word of the name, any case: `ann` finds Ann, Anna Smith and Mary-Ann"})
    after = fields.String(validate=validate.Length(min=1, max=1000), metadata={
        "description": "the cursor: the `next` of the page before, asked with the same `q`"})
    limit = fields.Integer(load_default=finding.PAGE, validate=validate.Range(min=1, max=finding.MAX_PAGE),
                           metadata={"description": f"at most this many players (1-{finding.MAX_PAGE}, "
                                                    f"default {finding.PAGE})"})


class PlayerFound(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    bot = fields.String(required=True, allow_none=True, metadata={"description": "random or basic: a bot player"})


class PlayersFound(Schema):
    players = fields.List(fields.Nested(PlayerFound), required=True, metadata={
        "description": "in the order of the word that matched, then the id; each player once"})
    next = fields.String(required=True, allow_none=True, metadata={
        "description": "the cursor of the next page (`after`); null on the last"})


class PlayerRecover(Strict):
    email = fields.String(required=True, validate=validate.Length(min=1, max=320), metadata={
        "description": "the player's confirmed address: a new token is mailed there, and only there"})


class PlayerRecoverAsked(Schema):
    detail = fields.String(required=True, metadata={
        "description": "the same words for every address, known or not (nobody learns whose it is)"})

"""The JSON shapes of the public API (docs/api.md), as marshmallow schemas.

They validate request bodies and describe every request and answer in the
OpenAPI document. Engine-specific parts (a move, a view) are open objects here:
each game's docs page describes them.
"""

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

GAMES = ["king-of-danger", "castle-danger", "king-of-the-castle", "kings-keys"]


class Strict(Schema):
    class Meta:
        unknown = RAISE


class PlayerEntry(fields.Field):
    """A player: a name, or an object {name, email, webhook}; the service checks
    each key (referee/mail/contacts.py) and refuses unknown ones by name."""

    def __init__(self, **kw):
        super().__init__(metadata={"oneOf": [
            {"type": "string", "minLength": 1, "maxLength": 100},
            {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 100},
                "email": {"type": "string", "format": "email", "nullable": True},
                "webhook": {"type": "string", "format": "uri", "nullable": True,
                            "description": "http(s); loopback and private addresses refused"},
                "bot": {"type": "string", "enum": ["random", "basic"], "nullable": True,
                        "description": "the referee plays this seat itself (docs/bots.md)"}}},
            {"type": "object", "required": ["player"], "additionalProperties": False, "properties": {
                "player": {"type": "string", "description": "a player's id (docs/players.md): the seat "
                           "takes the player's name and contacts, and the player's token acts for it"}}},
            {"type": "object", "required": ["open"], "additionalProperties": False, "properties": {
                "open": {"type": "boolean", "enum": [True], "description": "a seat any player may take "
                         "(POST /v1/games/{id}/join): the game is open until every seat is taken"}}},
            {"type": "object", "required": ["invite"], "additionalProperties": False, "properties": {
                "invite": {"type": "string", "format": "email", "description": "a seat kept for the "
                           "player whose confirmed address this is (docs/players.md, open games)"}}}]},
            **kw)

    def _deserialize(self, value, attr, data, **kw):
        if isinstance(value, str) and 1 <= len(value) <= 100:
            return value
        if isinstance(value, dict):  # its keys are checked by the service, each by name
            return value
        raise ValidationError("a player is a name of 1 to 100 characters or an object {name, email, webhook}")


class Contact(Schema):
    seat = fields.Integer()
    name = fields.String()
    email = fields.String(allow_none=True)
    webhook = fields.String(allow_none=True)
    webhook_secret = fields.String(metadata={"description": "signs this seat's webhooks (Standard "
                                                            "Webhooks): shown only when a webhook is set"})
    player = fields.String(metadata={"description": "the player seated here: their contacts are "
                                                    "theirs, shown only to them (GET /v1/players/me)"})


class SpectatorsHook(Schema):
    webhook = fields.String(allow_none=True, metadata={"description": "the spectators' webhook URL"})
    webhook_secret = fields.String(metadata={"description": "signs the spectators' webhooks: shown once, "
                                                            "when a URL is set"})


class SpectatorsChange(Strict):
    webhook = fields.String(required=True, allow_none=True,
                            metadata={"description": "new URL (a new secret is returned); null stops it"})


class Contacts(Schema):
    id = fields.String()
    contacts = fields.List(fields.Nested(Contact))
    spectators = fields.Nested(SpectatorsHook, metadata={"description": "the admin only"})


class ContactChange(Strict):
    email = fields.String(allow_none=True, metadata={"description": "new address; null clears it"})
    webhook = fields.String(allow_none=True, metadata={"description": "new URL (a new secret is returned); "
                                                                      "null clears it"})


class Notice(Schema):
    id = fields.String(metadata={"description": "GAME.SEAT.VERSION.REASON (and a tag of the mail an answer "
                                                "answers): also the e-mail's Message-ID and the webhook-id"})
    seat = fields.Integer(allow_none=True, metadata={"description": "null for the spectators' webhook"})
    version = fields.Integer(metadata={"description": "the game's version the notice was written at"})
    reason = fields.String(metadata={"description": "start, turn, trick, hand, game-over, reminder, timeout, "
                                                    "or an answer to a mail: applied, refused, show, help"})
    state = fields.String(metadata={"description": "pending or sent"})
    attempts = fields.Integer()
    error = fields.String(allow_none=True, metadata={"description": "the last delivery's failure"})
    created = fields.String()
    next_try = fields.String(allow_none=True)


class Notices(Schema):
    id = fields.String()
    notices = fields.List(fields.Nested(Notice))


class CreateGame(Strict):
    game = fields.String(required=True, validate=validate.OneOf(GAMES),
                         metadata={"description": "which game"})
    players = fields.List(PlayerEntry(), required=True, validate=validate.Length(min=1, max=16),
                          metadata={"description": "clockwise from seat 0: names, or objects "
                                                   "{name, email, webhook} (contacts are private)"})
    options = fields.Dict(keys=fields.String(), load_default=dict,
                          metadata={"description": "the game's options, plus seed, deck..."})
    spectators = fields.Dict(keys=fields.String(), metadata={
        "description": "{webhook}: a URL told of every change as an onlooker sees it (a forum "
                       "bot); private like the seats' contacts"})
    rated = fields.Boolean(load_default=True, truthy={True}, falsy={False}, metadata={
        "description": "false: the game rates nobody, though every seat is a player (docs/players.md)"})


class Seat(Schema):
    seat = fields.Integer()
    name = fields.String()
    token = fields.String(metadata={"description": "bearer token acting as this seat: shown once "
                                                   "(a bot's seat has none: the referee moves for it)"})
    bot = fields.String(metadata={"description": "random or basic: the referee plays this seat"})
    email = fields.String(metadata={"description": "the seat's e-mail address, if given (private)"})
    webhook = fields.String(metadata={"description": "the seat's webhook URL, if given (private)"})
    webhook_secret = fields.String(metadata={"description": "signs this seat's webhooks: shown once"})
    open = fields.Boolean(metadata={"description": "an open game's seat any player may take"})
    invited = fields.Boolean(metadata={"description": "an open game's seat kept for an invited player"})
    player = fields.String(metadata={"description": "the player seated here (given as {player}): "
                                                    "their token acts for the seat, their contacts "
                                                    "get its notices"})


class GameCreated(Schema):
    id = fields.String()
    game = fields.String()
    options = fields.Dict()
    version = fields.Integer()
    status = fields.String(metadata={"description": "open (seats to take: no log yet), settling or active"})
    open_seats = fields.Integer(metadata={"description": "an open game's seats still to take"})
    seats = fields.List(fields.Nested(Seat))
    admin_token = fields.String(metadata={"description": "manages the game and sees everything: shown once"})
    seed_commitment = fields.String(metadata={"description": "SHA-256 of the shuffle seed, revealed at the end"})
    spectators = fields.Nested(SpectatorsHook, metadata={"description": "when a spectators' webhook was "
                                                                        "given: its URL and secret (shown once)"})


def Result(**kw):  # noqa: N802 - reads as a type in the schemas below
    # An open object: every game has winners, reason and scores; some add more
    # (King of the Castle reveals the squires and its scoring table). A nested
    # schema would silently drop those on output.
    return fields.Dict(allow_none=True, metadata={
        "description": "null while the game runs, then {winners: [seat, ...], reason, scores, ...}"}, **kw)


class ClockInForce(Schema):
    move_seconds = fields.Integer()
    remind_seconds = fields.Integer()
    on_timeout = fields.String(metadata={"description": "remind, autoplay or forfeit"})
    paused = fields.Boolean()


class ClockRequest(Schema):
    """Exactly one of the two fields (checked by the service, which names the field)."""

    class Meta:
        unknown = INCLUDE

    clock = fields.Raw(allow_none=True, metadata={
        "description": "the new clock {move_seconds, remind_seconds?, on_timeout?}, or null for none"})
    paused = fields.Raw(metadata={"description": "true to pause the clock, false to resume it"})


class ReplaceSeat(Schema):
    """Checked by the service as a player entry at creation (which names the field)."""

    class Meta:
        unknown = INCLUDE

    name = fields.Raw(metadata={"description": "the new player's name, 1 to 100 characters (required "
                                              "unless `player` is given)"})
    player = fields.Raw(metadata={"description": "a registered player's id, alone: the seat takes the "
                                                "player's name and contacts, and the player's token acts for it"})
    email = fields.Raw(metadata={"description": "the new player's e-mail address (private)"})
    webhook = fields.Raw(metadata={"description": "the new player's webhook URL (private)"})
    bot = fields.Raw(metadata={"description": "random or basic: give the seat to a bot instead of a person"})


class SeatReplaced(Schema):
    seat = fields.Integer()
    name = fields.String()
    token = fields.String(metadata={"description": "the seat's new token (the old one no longer works); "
                                                   "none when the seat is given to a bot"})
    bot = fields.String(metadata={"description": "random or basic: the seat was given to a bot"})
    player = fields.String(metadata={"description": "the registered player now holding the seat"})
    webhook_secret = fields.String(metadata={"description": "the new webhook's secret, when one is given"})
    version = fields.Integer()
    events = fields.List(fields.Raw())


class Deadline(Schema):
    seat = fields.Integer()
    deadline = fields.String(metadata={"description": "UTC, ISO 8601"})
    overdue = fields.Boolean(metadata={"description": "the deadline passed and the seat timed out "
                                       "(on_timeout remind): it is still to act"})


class Summary(Schema):
    id = fields.String()
    game = fields.String()
    options = fields.Dict()
    status = fields.String(metadata={"description": "open, active, settling, finished or aborted "
                                                    "(open, and later cancelled: an open game's, version 0)"})
    version = fields.Integer()
    seats = fields.List(fields.Raw(), metadata={"description": "an open game's seats: open, invited, "
                                                              "a player's, a bot's"})
    to_act = fields.List(fields.Integer())
    players = fields.List(fields.String())
    scores = fields.List(fields.Raw())
    result = Result()
    stacked = fields.Boolean()
    deadline = fields.String(allow_none=True, metadata={
        "description": "the earliest deadline of a seat to act (UTC, ISO 8601); null without a clock"})
    clock = fields.Nested(ClockInForce, allow_none=True, metadata={
        "description": "the clock in force (as last set or changed by the admin) and whether it is "
                       "paused; null without a clock"})
    deadlines = fields.List(fields.Nested(lambda: Deadline()), metadata={
        "description": "each seat to act and its deadline (empty without a clock)"})


class ViewArgs(Strict):
    at = fields.Integer(strict=False, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "the position after event N"})


class View(Schema):
    id = fields.String()
    version = fields.Integer()
    status = fields.String()
    to_act = fields.List(fields.Integer())
    seat = fields.Integer(allow_none=True)
    viewer = fields.String(metadata={"description": "seat, spectator or admin"})
    result = Result()
    view = fields.Dict(metadata={"description": "the game's own view, see its docs page"})
    text = fields.String(metadata={"description": "the position as text, for posts and e-mails"})
    deadline = fields.String(allow_none=True, metadata={
        "description": "the viewing seat's deadline if it is to act (the earliest for the admin or a "
                       "spectator); UTC, ISO 8601; null without a clock"})
    clock = fields.Nested(ClockInForce, allow_none=True, metadata={
        "description": "the clock in force (as last set or changed by the admin) and whether it is "
                       "paused; null without a clock"})
    deadlines = fields.List(fields.Nested(lambda: Deadline()), metadata={
        "description": "each seat to act and its deadline (empty without a clock)"})


class Legal(Schema):
    seat = fields.Integer()
    version = fields.Integer()
    moves = fields.List(fields.Dict(metadata={"oneOf": [{"$ref": "#/components/schemas/Move"}]}),
                        metadata={"description": "every move allowed now, as POST .../moves takes it"})
    text = fields.List(fields.String(), metadata={
        "description": "the same moves in the game's text notation, in the same order"})


class MoveRequest(Strict):
    move = fields.Dict(metadata={"description": "one move (its shape is the game's: see Move)",
                                 "oneOf": [{"$ref": "#/components/schemas/Move"}]})
    moves = fields.List(fields.Dict(), validate=validate.Length(min=1, max=64),
                        metadata={"description": "several, all or nothing (at most 64)"})
    text = fields.String(metadata={"description": "moves in the game's notation, ; or new lines between"})
    expected_version = fields.Integer(strict=True, validate=validate.Range(min=1, max=2**31 - 1),
                                      metadata={"description": "refuse with 409 unless the game is at this version"})


class EventOut(Schema):
    seq = fields.Integer()
    type = fields.String()
    actor = fields.Raw(metadata={"description": "a seat number or \"referee\""})
    at = fields.String()
    payload = fields.Dict()
    prev = fields.String()
    salt = fields.String(allow_none=True, metadata={
        "description": "HMAC of seq keyed by the seed; null for seats and spectators until the game ends"})
    hash = fields.String()


class MoveResult(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventOut))


class InboundNoMove(Schema):
    """A mail that made no move: a command answered, or a robot's mail dropped."""

    answered = fields.String(metadata={"enum": ["show", "help"], "description": "the command answered by e-mail"})
    ignored = fields.String(metadata={"description": "why the mail was dropped unanswered "
                                                     "(an auto-reply, a bounce)"})
    version = fields.Integer(metadata={"description": "the game's version (with answered)"})


class EventsArgs(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=25), metadata={
        "description": "a long poll: answer as soon as there is an event after `after`, or with "
                       "none after this many seconds (0, the default: at once). Past the server's "
                       "bound on waiting requests the answer comes at once, with `Retry-After`"})


class GamesArgs(Strict):
    status = fields.String(validate=validate.OneOf(["open", "active", "settling", "finished", "aborted"]),
                           metadata={"description": "only games with this status (open: the lobby, "
                                                    "oldest first)"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000),
                           metadata={"description": "at most this many games (1-1000, default 100)"})
    after = fields.String(validate=validate.Length(min=1, max=100),
                          metadata={"description": "the cursor: the `next` of the page before"})


class GameRow(Schema):
    id = fields.String()
    game = fields.String()
    created_at = fields.String()
    status = fields.String()
    version = fields.Integer()
    players = fields.List(fields.String())
    seats = fields.List(fields.Raw(), metadata={"description": "an open game's seats (the lobby)"})
    open_seats = fields.Integer(metadata={"description": "an open game's seats still to take"})
    options = fields.Dict(metadata={"description": "an open game's options (never its seed or deck)"})
    rated = fields.Boolean()
    stacked = fields.Boolean()


class Games(Schema):
    games = fields.List(fields.Nested(GameRow), metadata={"description": "newest first"})
    next = fields.String(allow_none=True, metadata={
        "description": "pass as `after` for the next page; null on the last page"})


class Events(Schema):
    version = fields.Integer()
    events = fields.List(fields.Nested(EventOut))


class AbortRequest(Strict):
    reason = fields.String(load_default="aborted by the organiser", validate=validate.Length(max=500))


class AuditError(Schema):
    seq = fields.Integer(allow_none=True)
    code = fields.String()
    detail = fields.String()


class AuditReport(Schema):
    valid = fields.Boolean()
    events = fields.Integer()
    first_error = fields.Nested(AuditError, allow_none=True)
    chain = fields.String(metadata={"description": "ok or broken"})
    seed = fields.String(metadata={"description": "verified, unrevealed or mismatch"})
    result = fields.Dict(allow_none=True)
    status = fields.String()


class Problem(Schema):
    """RFC 9457 problem details. Open: a refusal carries whatever helps (``rule``,
    ``field``, ``index``, ``current_version``, ``limit``, ``accepted``, ``options``...)."""

    class Meta:
        unknown = INCLUDE

    type = fields.String()
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(metadata={"description": "malformed, unauthenticated, not-your-seat, not-your-turn, "
                                                  "forbidden, no-such-game, version-conflict, game-over, "
                                                  "settling, too-large, unsupported-media-type, illegal-move, "
                                                  "idempotency-key-reused, not-found, method-not-allowed, "
                                                  "too-many-requests, store-unavailable, audits-busy, ..."})
    rule = fields.String(metadata={"description": "for illegal-move: the rule broken (each game's docs list them)"})
    field = fields.String(metadata={"description": "for malformed: the field at fault"})
    index = fields.Integer(metadata={"description": "in a batch: the move refused, from 0"})
    current_version = fields.Integer(metadata={"description": "for version-conflict and settling"})
    limit = fields.Integer(metadata={"description": "the limit exceeded"})
    accepted = fields.List(fields.String(), metadata={"description": "for unsupported-media-type: the types taken"})
    retry_after = fields.Integer(metadata={"description": "for audits-busy: seconds to wait (as Retry-After)"})
    options = fields.List(fields.Raw(), metadata={"description": "for an ambiguous move: the choices that would "
                                                                 "make it whole (e.g. the King's Keys cards `take` "
                                                                 "may name)"})

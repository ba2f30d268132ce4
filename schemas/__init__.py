"""The JSON shapes of the public API (docs/api.md), as marshmallow schemas.

They validate request bodies and describe every request and answer in the
OpenAPI document. Every field an answer always has is ``required``, so that a
generated client can rely on it. Values the service checks itself (a game's
options, a move, a clock) are documented by reference to a named shape
(schemas/components.py, schemas/moves.py) with ``ref(...)``; a schema whose
``Meta.openapi`` is set is documented as that instead of its fields (a body that
is exactly one of several shapes: the service checks which, naming the field).
"""

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate

from schemas.base import Strict
from schemas.components import GAMES, HOUSE_RULES, PLAYER, PLAYER_SEAT, STATUSES
from schemas.components import ref as component
from schemas.mail import (  # noqa: F401 - the API's schemas, all read as schemas.X
    Contact,
    ContactChange,
    Contacts,
    DigestReplyGame,
    InboundNoMove,
    Notice,
    Notices,
    OrganiserChange,
    OrganiserContact,
    SpectatorsChange,
    SpectatorsHook,
)
from schemas.trust import Key, Keys, Receipt, ReceiptChecked  # noqa: F401 - read as schemas.X too
from schemas.views import BANKS, Bank, DisputeShown, OpenVote  # noqa: F401 - read as schemas.X too

__all__ = ["GAMES", "HOUSE_RULES", "STATUSES"]

RECEIPT = "the referee's signed receipt of the last event this request wrote (docs/trust.md)"


def ref(name: str, field: type = fields.Raw, **kw) -> fields.Field:
    """A field documented as the component ``name`` (a reference, or when it may be
    null, that reference or null: referee/api/openapi.py); loaded and dumped as
    ``field`` does (``Raw``: unchanged)."""
    metadata = {**kw.pop("metadata", {}), "ref": name}
    return field(metadata=metadata, **kw)



class PlayerEntry(fields.Field):
    """A player: a name, or an object {name, email, webhook, bot}; the service checks
    each key (referee/mail/contacts.py) and refuses unknown ones by name."""

    def __init__(self, **kw):
        super().__init__(metadata={"oneOf": [{"type": "string", "minLength": 1, "maxLength": 100},
                                             component("Player"), component("PlayerSeat"),
                                             component("InvitedPlayerSeat"), component("OpenSeat"),
                                             component("InvitedSeat")]}, **kw)

    def _deserialize(self, value, attr, data, **kw):
        if isinstance(value, str) and 1 <= len(value) <= 100:
            return value
        if isinstance(value, dict):  # its keys are checked by the service, each by name
            return value
        raise ValidationError("a player is a name of 1 to 100 characters or an object {name, email, webhook}")


class CreateGame(Strict):
    game = ref("GameKind", required=True, validate=validate.OneOf(GAMES))
    players = fields.List(PlayerEntry(), required=True, validate=validate.Length(min=1, max=16),
                          metadata={"description": "clockwise from seat 0: names, or objects "
                                                   "{name, email, webhook, bot} (contacts are private); "
                                                   "{player} for the creator's own seat (their token), "
                                                   "{invite_player} for anyone else's, {open} or {invite}"})
    options = ref("NewGameOptions", fields.Dict, keys=fields.String(), load_default=dict)
    spectators = ref("Spectators", fields.Dict, keys=fields.String())
    rated = fields.Boolean(truthy={True}, falsy={False}, metadata={
        "description": "false: the game rates nobody, though every seat is a player "
                       "(docs/players.md); true when left out"})
    organiser = fields.Dict(keys=fields.String(), metadata={
        "description": "{email?, webhook?}: the organiser's contact, told of each seat's timeout, the "
                       "game's end and a notice that cannot be delivered; private like the seats' contacts"})


class Seat(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={
        "description": "who plays the seat (a player's seat: the player's name, also while it is kept for "
                       "them); null for an open game's seat nobody holds yet (open, or kept for an invited "
                       "address: see docs/players.md)"})
    token = fields.String(metadata={"description": "bearer token acting as this seat: shown once "
                                                   "(a bot's seat has none: the referee moves for it)"})
    bot = fields.String(metadata={"enum": ["random", "basic"], "description": "the referee plays this seat"})
    email = fields.String(metadata={"description": "the seat's e-mail address, if given (private)"})
    webhook = fields.String(metadata={"description": "the seat's webhook URL, if given (private)"})
    webhook_secret = fields.String(metadata={"description": "signs this seat's webhooks: shown once"})
    open = fields.Boolean(metadata={"description": "an open game's seat any player may take"})
    invited = fields.Boolean(metadata={"description": "an open game's seat kept for an invited player who "
                                                      "has not yet accepted (named when invited by id)"})
    player = fields.String(metadata={"description": "the player seated here (the creator's {player}, or a "
                                                    "player who joined): their token acts for the seat, their "
                                                    "contacts get its notices; with invited, the player the "
                                                    "seat is kept for"})


VERSION = ("the game's version after this request and every referee step it set off that has "
           "run by the time of the answer: the `expected_version` for the next move. In embedded "
           "mode those steps (a deal, the scoring of a hand, a bot's move, the seed's reveal) have "
           "all run; with workers (RQ) they may still be due: then `status` is `settling`, and the "
           "version to expect is the one `GET /v1/games/{id}` gives once it is `active` again.")


COMMITMENT = ("SHA-256 (hex) of the referee's secret part of the seed, committed before any seat contributes "
              "its entropy (an open game's too); the seed derives from it and the seats' contributions, and "
              "both are revealed at the end (docs/log-format.md, \"The seed\"). In a game dealt from a given "
              "seed or deck, the SHA-256 of that seed. Null only for an open game made before commitments "
              "came first")


class GameCreated(Schema):
    id = fields.String(required=True)
    game = ref("GameKind", required=True)
    options = ref("GameOptions", required=True)
    version = fields.Integer(required=True, metadata={"description": VERSION})
    status = ref("GameStatus", required=True)
    seats = fields.List(fields.Nested(Seat), required=True)
    admin_token = fields.String(required=True, metadata={
        "description": "manages the game: shown once. While the game runs it sees everything in a "
                       "game seated by name, and what a spectator sees in a game of players "
                       "(every seat a player's; docs/api.md, Who sees what)"})
    seed_commitment = fields.String(required=True, allow_none=True, metadata={"description": COMMITMENT})
    spectators = fields.Nested(SpectatorsHook, metadata={
        "description": "when a spectators' webhook was given: its URL and secret (shown once)"})
    organiser = fields.Nested("OrganiserContact", metadata={
        "description": "when the organiser's contact was given: it, and a webhook's secret (shown once)"})
    open_seats = fields.Integer(metadata={"description": "an open game's seats still to take"})
    receipt = fields.Nested(Receipt, required=True, allow_none=True, metadata={
        "description": "the receipt of the game's first event; null for an open game (its log "
                       "starts when the last seat is taken)"})


def Result(**kw):  # noqa: N802 - reads as a type in the schemas below
    # Dumped as it is: every game has winners, reason and scores; some add more
    # (King of the Castle reveals the squires and its scoring table). A nested
    # schema would silently drop those on output.
    return ref("GameResult", required=True, allow_none=True,
               metadata={"description": "null while the game runs"}, **kw)


class ClockInForce(Schema):
    move_seconds = fields.Integer(metadata={"description": "a time a move (no `kind`)"})
    kind = fields.String(metadata={"enum": ["bank"], "description": "a time bank (docs/clock.md)"})
    initial_seconds = fields.Integer(metadata={"description": "a bank's: each seat's bank at the start"})
    increment_seconds = fields.Integer(metadata={"description": "a bank's: gained when a seat's turn ends"})
    max_seconds = fields.Integer(metadata={"description": "a bank's: the most a bank holds"})
    remind_seconds = fields.Integer(required=True)
    on_timeout = fields.Raw(required=True, metadata={
        "oneOf": [{"type": "string", "enum": ["remind", "autoplay", "forfeit"]},
                  {"type": "object", "properties": {"excused": {"type": "integer"},
                                                    "then": {"type": "string", "enum": ["forfeit", "autoplay"]}}}],
        "description": "what a timeout does: remind, autoplay, forfeit, or excused misses {excused, then}"})
    vacation_days = fields.Integer(metadata={"description": "when set (a league's, say): the days of auto "
                                                            "vacation a seat may draw in this game; 0: its clocks "
                                                            "stop for no vacation (docs/clock.md)"})
    paused = fields.Boolean(required=True)


class ClockRequest(Schema):
    """Exactly one of the two fields (checked by the service, which names the field)."""

    class Meta:
        unknown = INCLUDE
        openapi = {"description": "Exactly one of: a new clock (or null for none), or a pause "
                                  "or resume.", "oneOf": [component("ClockChange"), component("ClockPause")]}

    clock = fields.Raw(allow_none=True)
    paused = fields.Raw()


class ReplaceSeat(Schema):
    """Checked by the service as a player entry at creation (which names the field)."""

    class Meta:
        unknown = INCLUDE
        openapi = {"oneOf": [PLAYER, PLAYER_SEAT]}

    name = fields.Raw(metadata={"description": "the new player's name, 1 to 100 characters, no control "
                                              "or bidirectional formatting character (required unless "
                                              "`player` is given)"})
    player = fields.Raw(metadata={"description": "a registered player's id, alone: the seat takes the "
                                                "player's name and contacts, and the player's token acts for it"})
    email = fields.Raw(metadata={"description": "the new player's e-mail address (private)"})
    webhook = fields.Raw(metadata={"description": "the new player's webhook URL (private)"})
    bot = fields.Raw(metadata={"description": "random or basic: give the seat to a bot instead of a person"})


EVENTS = ("the events this request wrote, as the caller may see them (the referee's steps it "
          "set off are not among them: `version` counts them, `GET .../events` lists them)")


class SeatReplaced(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(metadata={"description": "the seat's new token (the old one no longer works); "
                                                   "none when the seat is given to a bot"})
    bot = fields.String(metadata={"enum": ["random", "basic"], "description": "the seat was given to a bot"})
    player = fields.String(metadata={"description": "the registered player now holding the seat"})
    webhook_secret = fields.String(metadata={"description": "the new webhook's secret, when one is given"})
    version = fields.Integer(required=True, metadata={"description": VERSION})
    status = ref("GameStatus", required=True)
    events = fields.List(fields.Nested(lambda: EventOut()), required=True, metadata={"description": EVENTS})
    receipt = fields.Nested(Receipt, required=True, metadata={"description": RECEIPT})


class Deadline(Schema):
    seat = fields.Integer(required=True)
    deadline = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    overdue = fields.Boolean(required=True, metadata={"description": "the deadline passed and the seat timed out "
                                                                     "(on_timeout remind): it is still to act"})


CLOCK = ("the clock in force (as last set or changed by the admin) and whether it is paused; "
         "null without a clock")


class Summary(Schema):
    id = fields.String(required=True)
    game = ref("GameKind", required=True)
    options = ref("GameOptions", required=True)
    status = ref("GameStatus", required=True)
    version = fields.Integer(required=True)
    to_act = fields.List(fields.Integer(), required=True)
    players = fields.List(fields.String(), required=True)
    scores = fields.List(fields.Integer(), required=True, metadata={"description": "by seat"})
    seats = fields.List(fields.Raw(), metadata={"description": "an open game's seats: open, invited, "
                                                              "a player's, a bot's"})
    open_seats = fields.Integer(metadata={"description": "an open game's seats still to take"})
    declined = fields.Integer(metadata={"description": "a cancelled open game: the seat whose invited player "
                                                       "declined"})
    result = Result()
    stacked = fields.Boolean(required=True)
    seed_commitment = fields.String(required=True, allow_none=True, metadata={"description": COMMITMENT})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "description": "the earliest deadline of a seat to act (UTC, ISO 8601); null without a clock"})
    clock = fields.Nested(ClockInForce, required=True, allow_none=True, metadata={"description": CLOCK})
    deadlines = fields.List(fields.Nested(lambda: Deadline()), required=True, metadata={
        "description": "each seat to act and its deadline (empty without a clock)"})
    banks = fields.List(fields.Nested(lambda: Bank()), metadata={"description": BANKS})


class ViewArgs(Strict):
    at = fields.Integer(strict=False, validate=validate.Range(min=1, max=2**31 - 1),
                        metadata={"description": "the position after event N"})


class View(Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = ref("GameStatus", required=True)
    to_act = fields.List(fields.Integer(), required=True)
    seat = fields.Integer(required=True, allow_none=True, metadata={"description": "null unless a seat asks"})
    viewer = fields.String(required=True, metadata={
        "enum": ["seat", "spectator", "admin"],
        "description": "who asked; the admin of a running game of players is shown a spectator's view"})
    result = Result()
    view = fields.Dict(required=True, metadata={"description": "the game's own view, see its docs page"})
    text = fields.String(required=True, metadata={"description": "the position as text, for posts and e-mails"})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "description": "the viewing seat's deadline if it is to act (the earliest for the admin or a "
                       "spectator); UTC, ISO 8601; null without a clock"})
    clock = fields.Nested(ClockInForce, required=True, allow_none=True, metadata={"description": CLOCK})
    deadlines = fields.List(fields.Nested(lambda: Deadline()), required=True, metadata={
        "description": "each seat to act and its deadline (empty without a clock)"})
    banks = fields.List(fields.Nested(lambda: Bank()), metadata={"description": BANKS})
    vote = fields.Nested(OpenVote, required=True, allow_none=True, metadata={
        "description": "the vote under way (null: none)"})
    disputes = fields.List(fields.Nested(DisputeShown), required=True, metadata={
        "description": "every dispute of the game, with its ruling once ruled"})
    paused_by_vote = fields.Boolean(required=True, metadata={
        "description": "a pause the seats voted holds the clocks"})


class Legal(Schema):
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    moves = fields.List(ref("Move"), required=True,
                        metadata={"description": "every move allowed now, as POST .../moves takes it"})
    text = fields.List(fields.String(), required=True, metadata={
        "description": "the same moves in the game's text notation, in the same order"})


class MoveRequest(Strict):
    """Exactly one of move, moves or text (checked by the service, which names the field)."""

    class Meta:
        unknown = RAISE
        openapi = {"description": "Exactly one of `move`, `moves` or `text`, and optionally "
                                  "`expected_version`.",
                   "oneOf": [component("SingleMove"), component("MoveBatch"), component("MoveText")]}

    move = fields.Dict()
    moves = fields.List(fields.Dict(), validate=validate.Length(min=1, max=64))
    text = fields.String()
    expected_version = fields.Integer(strict=True, validate=validate.Range(min=1, max=2**31 - 1))


class EventOut(Schema):
    seq = fields.Integer(required=True)
    type = fields.String(required=True)
    actor = ref("Actor", required=True)
    at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    payload = fields.Dict(required=True, metadata={"description": "the event's own fields, redacted for "
                                                                  "the caller (each game's docs page)"})
    prev = fields.String(required=True)
    salt = fields.String(required=True, allow_none=True, metadata={
        "description": "HMAC of seq keyed by the seed; null for seats and spectators until the game ends"})
    hash = fields.String(required=True)


class MoveResult(Schema):
    version = fields.Integer(required=True, metadata={"description": VERSION})
    status = ref("GameStatus", required=True)
    events = fields.List(fields.Nested(EventOut), required=True, metadata={"description": EVENTS})
    receipt = fields.Nested(Receipt, required=True, metadata={"description": RECEIPT})


class EventsArgs(Strict):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**31 - 1))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = fields.Integer(load_default=0, validate=validate.Range(min=0, max=25), metadata={
        "description": "a long poll: answer as soon as there is an event after `after`, or with "
                       "none after this many seconds (0, the default: at once). Past the server's "
                       "bound on waiting requests the answer comes at once, with `Retry-After`"})


class GamesArgs(Strict):
    status = ref("GameStatus", validate=validate.OneOf(STATUSES), metadata={
        "description": "only games with this status (open: the lobby, oldest first)"})
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000),
                           metadata={"description": "at most this many games (1-1000, default 100)"})
    after = fields.String(validate=validate.Length(min=1, max=100),
                          metadata={"description": "the cursor: the `next` of the page before"})


class GameRow(Schema):
    id = fields.String(required=True)
    game = ref("GameKind", required=True)
    created_at = fields.String(required=True, metadata={"description": "UTC, ISO 8601"})
    status = ref("GameStatus", required=True)
    version = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True)
    moves = fields.Integer(required=True, metadata={
        "description": "how many moves the seats made (events, less the referee's steps and what a "
                       "move brought with it)"})
    to_act = fields.List(fields.Integer(), required=True, allow_none=True, metadata={
        "description": "the seats to act; null for a game not moved since 0.3.0"})
    seats = fields.List(fields.Raw(), metadata={"description": "an open game's seats (the lobby)"})
    open_seats = fields.Integer(metadata={"description": "an open game's seats still to take"})
    options = ref("GameOptions", metadata={"description": "an open game's options (never its seed or deck)"})
    rated = fields.Boolean()
    stacked = fields.Boolean()
    seed_commitment = fields.String(allow_none=True, metadata={"description": "an open game's: " + COMMITMENT})


class Games(Schema):
    games = fields.List(fields.Nested(GameRow), required=True, metadata={"description": "newest first"})
    next = fields.String(required=True, allow_none=True, metadata={
        "description": "pass as `after` for the next page; null on the last page"})


class Events(Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventOut), required=True)


class AbortRequest(Strict):
    # (a default made by a function: documented in words, so that generated clients
    # do not make the field a required one)
    reason = fields.String(load_default=lambda: "aborted by the organiser", validate=validate.Length(max=500),
                           metadata={"description": "why, in the log (default: aborted by the organiser)"})


class AuditError(Schema):
    seq = fields.Integer(required=True, allow_none=True, metadata={"description": "null: not one line's"})
    code = fields.String(required=True, metadata={"description": "docs/auditing.md lists every code"})
    detail = fields.String(required=True)
    where = fields.String(metadata={"description": "a league bundle's audit: the log where it diverges"})


class AuditReport(Schema):
    valid = fields.Boolean(required=True, metadata={"description": (
        "true: the log holds together and was played by the rules (with seed verified, every card "
        "followed from the seed committed to at creation). It does not prove when anything happened "
        "(each event's `at` is taken as logged), that this is the referee's own copy, that the log "
        "is whole to its end, nor who sent each move: docs/auditing.md")})
    events = fields.Integer(required=True, metadata={"description": (
        "the events read and checked: every event of the log, or, when a line cannot be read as the "
        "next event (its first_error is that line's), those before it")})
    first_error = fields.Nested(AuditError, required=True, allow_none=True,
                                metadata={"description": "the first line that does not verify, and why; "
                                                         "null when valid"})
    chain = fields.String(required=True, metadata={"enum": ["ok", "broken"]})
    seed = fields.String(required=True, metadata={
        "enum": ["verified", "unrevealed", "mismatch", "not-reached"],
        "description": "verified: revealed and matching the commitment, every salt checked; unrevealed: "
                       "a running game; mismatch; not-reached: the log could not be read as far as a "
                       "reveal, so whether the game has one is not known (the seed as far as read)"})
    result = Result()
    status = ref("GameStatus", metadata={"description": "the game's status, when valid"})
    games = fields.Integer(metadata={"description": "a league bundle's audit: the games audited"})
    standings = fields.List(fields.Dict(), allow_none=True,
                            metadata={"description": "a league bundle's audit: the standings re-derived"})
    receipts = fields.List(fields.Nested(ReceiptChecked), metadata={
        "description": "with receipts sent beside the log: each one, in the order sent, held or contradicted"})


class Problem(Schema):
    """RFC 9457 problem details. Open: a refusal carries whatever helps (``rule``,
    ``field``, ``index``, ``current_version``, ``limit``, ``accepted``, ``options``...)."""

    class Meta:
        unknown = INCLUDE

    type = fields.String(required=True)
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(required=True, metadata={
        "description": "malformed, unauthenticated, not-your-seat, not-your-turn, forbidden, "
                       "no-such-game, version-conflict, game-over, settling, too-large, "
                       "unsupported-media-type, illegal-move, idempotency-key-reused, not-found, "
                       "method-not-allowed, too-many-requests, store-unavailable, audits-busy, ..."})
    rule = fields.String(metadata={"description": "for illegal-move: the rule broken (each game's docs list them)"})
    field = fields.String(metadata={"description": "for malformed: the field at fault"})
    index = fields.Integer(metadata={"description": "in a batch: the move refused, from 0"})
    current_version = fields.Integer(metadata={"description": "for version-conflict and settling"})
    limit = fields.Integer(metadata={"description": "the limit exceeded"})
    accepted = fields.List(fields.String(), metadata={"description": "for unsupported-media-type: the types taken"})
    retry_after = fields.Integer(metadata={"description": "for audits-busy: seconds to wait (as Retry-After)"})
    options = fields.List(fields.String(), metadata={
        "description": "for an ambiguous move: the choices that would make it whole (the King's Keys "
                       "cards `take` may name)"})

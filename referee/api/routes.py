"""The public endpoints under /v1 (docs/api.md has the contract; /openapi.json describes them)."""

from __future__ import annotations

import functools
import time

from flask import Response, current_app, g, request
from flask_smorest import Blueprint

import schemas as s
from referee import metrics
from referee.api import bodies, lane, limits
from referee.api.openapi import PUBLIC, TOKEN, TOKEN_OR_NONE, binary, refusals
from referee.caller import Caller
from referee.errors import NoSuchGame, Unauthenticated
from referee.games import engine as engine_by_name
from referee.games.base import RefereeError
from referee.players import invitations, lobby, seating  # open games; who may seat whom
from referee.service import GameService
from schemas.moves import request_examples

blp = Blueprint("games", __name__, url_prefix="/v1",
                description="Create games, submit moves, read views and logs, audit exports")


def idempotency_key(description: str) -> dict:
    """The optional Idempotency-Key header, as the document lists it."""
    return {"in": "header", "name": "Idempotency-Key", "required": False,
            "schema": {"type": "string"}, "description": description}

# every move type of every game, titled in the game's notation (/docs offers them)
MOVE_EXAMPLES = request_examples(lambda game, move: engine_by_name(game).format(move))

blp.ARGUMENTS_PARSER = bodies.PARSER  # bodies parsed once; schema refusals are 400


def service() -> GameService:
    return current_app.extensions["referee"]


def bearer() -> str | None:
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthenticated("use the header Authorization: Bearer <token>")
    return token.strip()


def caller(game_id: str, kept: bool = False) -> Caller:
    # a record the rate limiter read for this request in its own round trip (once)
    rec = g.pop("referee_record", None)
    return service().caller(game_id, bearer(), rec, kept)


def timed(endpoint: str):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*a, **kw):
            start = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                metrics.labelled(metrics.requests, endpoint).observe(time.perf_counter() - start)
        return inner
    return wrap


@blp.route("/games", methods=["POST"])
@blp.arguments(s.CreateGame())
@blp.response(201, s.GameCreated)
@blp.doc(operationId="createGame", security=TOKEN_OR_NONE)
@refusals(blp, 400, 401, 403, 413, 415)
@timed("create")
def create_game(args):
    """Create a game: seats with their tokens, the admin token, the seed commitment.

    Options: the game's own (docs/api.md lists them), plus `seed` (a reproducible private
    game) or an explicit deck order, either of which marks the game `stacked`.

    A seat `{"player": ID}` is the creator's own: the request carries that player's token
    (403 `forbidden` for anyone else's id). Anyone else is `{"invite_player": ID}`: the game
    is open until they take the seat or decline it. Rate-limited per client address and
    per token (`REFEREE_CREATE_RATE`), and so are the invitations (`REFEREE_INVITE_RATE`);
    a player with too many invitations pending is 429."""
    svc = service()
    me = seating.creator(svc, bearer())
    players = seating.seats(svc, args["players"], me)  # 403 before anything is counted or kept
    limits.spend("REFEREE_INVITE_RATE", "invitations", seating.invitations(players))
    if lobby.is_open(players):  # seats to take: a record only until they are taken
        return lobby.open_game(svc, args["game"], players, args["options"], args.get("spectators"),
                               args.get("rated", True),
                               inviter=invitations.inviter_of(me and me["id"], request.remote_addr))
    created = svc.create(args["game"], players, args["options"], args.get("spectators"),
                         rated=args.get("rated", True), organiser=args.get("organiser"))
    metrics.games_created.labels(args["game"]).inc()
    return created


@blp.route("/games", methods=["GET"])
@blp.arguments(s.GamesArgs(), location="query")
@blp.response(200, s.Games)
@blp.doc(operationId="listGames", security=PUBLIC)
@refusals(blp, 400)
@timed("games")
def list_games(args):
    """Games, newest first, a page at a time: `?status=S&limit=M&after=CURSOR`.

    Pass the answer's `next` as `after` for the following page (null on the last).
    Games created meanwhile come before the cursor, so paging never skips or
    repeats a game; an unknown cursor gives an empty page."""
    if args.get("status") == "open":  # the lobby: games with seats to take
        return lobby.lobby(service(), args["limit"], args.get("after"))
    return service().list_games(args.get("status"), args["limit"], args.get("after"))


@blp.route("/games/<game_id>", methods=["GET"])
@blp.response(200, s.Summary)
@blp.doc(operationId="getGame", security=PUBLIC)
@refusals(blp, 404)
@timed("summary")
def summary(game_id):
    """The public summary: status, version, whose move, scores, result (an open game:
    its seats, status open or cancelled, version 0)."""
    try:
        return service().summary(game_id)
    except NoSuchGame:
        found = lobby.find(service(), game_id)
        if found is None:
            raise
        if found["status"] != "open" and found["status"] != "cancelled":  # created by that very read
            return service().summary(game_id)
        return {**found, "to_act": [], "players": [s.get("name") for s in found["seats"]]}


@blp.route("/games/<game_id>/view", methods=["GET"])
@blp.arguments(s.ViewArgs(), location="query")
@blp.response(200, s.View)
@blp.doc(operationId="getView", security=TOKEN_OR_NONE)
@refusals(blp, 400, 401, 403, 404, 429)
@timed("view")
def view(args, game_id):
    """The game as the caller may see it; `?at=N` for the position after event N."""
    return service().view(game_id, caller(game_id), args.get("at"))


@blp.route("/games/<game_id>/legal", methods=["GET"])
@blp.response(200, s.Legal)
@blp.doc(operationId="getLegalMoves", security=TOKEN)
@refusals(blp, 401, 403, 404, 429)
@timed("legal")
def legal(game_id):
    """Every move the caller's seat may submit now, in the form POST .../moves takes."""
    return service().legal(game_id, caller(game_id))


@blp.route("/games/<game_id>/moves", methods=["POST"])
@blp.arguments(s.MoveRequest(), examples=MOVE_EXAMPLES)
@blp.response(201, s.MoveResult)
@blp.doc(operationId="submitMoves", security=TOKEN, parameters=[idempotency_key("a retry with the same key gets the first answer "
                                                          "and appends nothing")])
@refusals(blp, 400, 401, 403, 404, 409, 413, 415, 422, 429)
@timed("moves")
def moves(args, game_id):
    """Submit a move, several (all or nothing) or text in the game's notation."""
    met = request.environ.pop(lane.MET, None)
    if met is not None:  # the move lane met it after the move may have been written: answer it
        raise met
    who = caller(game_id, kept=True)  # the record kept from this game's last move may do
    # the rate counters, when the limiter left them to the append (referee/api/limits.py)
    try:
        answer = service().submit(game_id, who, args, request.headers.get("Idempotency-Key"),
                                  g.get("referee_tally"))
    except RefereeError as err:
        in_body(err, args)
        if who.record is not None:  # "it is Bob's turn", as the page and notices say it
            from referee.narration import named

            err.detail = named(err.detail, who.record.players)
        raise
    # The answer has MoveResult's shape already (tests/test_api.py holds it to
    # that over random games): made JSON as flask-smorest would after dumping it
    # through the schema, a walk that changes nothing and is the busiest
    # endpoint's largest piece of serializing.
    response = current_app.json.response(answer)
    response.status_code = 201
    return response


# The fields of a move request itself; any other field a refusal names is a move's own
MOVE_REQUEST = ("move", "moves", "text", "expected_version", "body", "Idempotency-Key")


def in_body(err, body: dict) -> None:
    """Name a refused move's field as a path in the request body, as every refusal
    does: an engine names it inside the move (``card``), the client wrote
    ``move.card`` or, in a batch, ``moves[2].card`` (and a move written as text,
    ``text``)."""
    field = err.extra.get("field")
    if not isinstance(field, str) or not isinstance(body, dict):
        return
    index = err.extra.get("index", 0)
    if field == "move" and "moves" in body:
        err.extra["field"] = f"moves[{index}]"
    elif field.split(".")[0].split("[")[0] in MOVE_REQUEST:
        return
    elif "move" in body:
        err.extra["field"] = f"move.{field}"
    elif "moves" in body:
        err.extra["field"] = f"moves[{index}].{field}"
    elif "text" in body:
        err.extra["field"] = "text"


@blp.route("/games/<game_id>/events", methods=["GET"])
@blp.arguments(s.EventsArgs(), location="query")
@blp.response(200, s.Events, headers={"Retry-After": {
    "description": "only on a long poll answered at once because too many wait already: "
                   "the seconds to wait before asking again", "schema": {"type": "integer"}}})
@blp.doc(operationId="getEvents", security=TOKEN_OR_NONE)
@refusals(blp, 400, 401, 403, 404, 429)
def events(args, game_id):
    """The log as the caller may see it, from `after` (exclusive), at most `limit` events.

    With `wait=S` a long poll: held until the game has an event after `after` (then
    answered at once) or for S seconds (then `events` is empty). Too many waiting
    already: answered at once, as with `wait=0`, with `Retry-After`."""
    from referee import follow

    start, held = time.perf_counter(), follow.Held()
    try:
        who = caller(game_id)  # a bad token or game is refused before any wait
        svc = service()
        held = follow.of(current_app).wait(lambda: svc.store.version(game_id), args["after"], args["wait"])
        if held.waited:
            who = caller(game_id)  # again: the seat may have been given to someone else meanwhile
        answer = svc.events(game_id, who, args["after"], args["limit"])
        return answer, 200, ({"Retry-After": str(follow.BUSY_RETRY)} if held.busy else {})
    finally:
        # a held request's time is mostly waiting: timed apart, not to swell the events' latency
        metrics.requests.labels("events-wait" if held.waited else "events").observe(time.perf_counter() - start)


@blp.route("/games/<game_id>/export", methods=["GET"])
@blp.doc(operationId="exportGame", security=TOKEN_OR_NONE, responses={"200": binary(
    "the whole log, JSON Lines (the answer's type is application/jsonl)",
    {"application/jsonl": {"schema": {"type": "string"}}})})
@refusals(blp, 401, 403, 404, 409, 429)
@timed("export")
def export(game_id):
    """The whole log, nothing hidden: anyone's once the game is over and its seed revealed.

    While it runs: the admin token's in a game seated by name; in a game of players
    (every seat a player's, every league game) nobody's: 409 `game-running`."""
    body = service().export(game_id, caller(game_id))
    return Response(body, mimetype="application/jsonl",
                    headers={"Content-Disposition": f'attachment; filename="{game_id}.jsonl"'})


@blp.route("/games/<game_id>/abort", methods=["POST"])
@blp.arguments(s.AbortRequest(), required=False)
@blp.response(201, s.MoveResult)
@blp.doc(operationId="abortGame", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415, 429)
@timed("abort")
def abort(args, game_id):
    """End a game with no winner (admin token only)."""
    return service().abort(game_id, caller(game_id), args["reason"])


@blp.route("/games/<game_id>/clock", methods=["POST"])
@blp.arguments(s.ClockRequest())
@blp.response(201, s.MoveResult)
@blp.doc(operationId="setClock", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 409, 413, 415, 429)
@timed("clock")
def set_clock(args, game_id):
    """Set, change or remove a game's clock, or pause or resume it (admin token
    only); logged as a `clock-changed` event. Every seat to act then has a full
    `move_seconds` from now."""
    return service().admin_event(game_id, caller(game_id), "change the clock",
                                 lambda table, at, key: table.propose_clock(args, at, salt_key=key))


@blp.route("/games/<game_id>/seats/<int:seat>/replace", methods=["POST"])
@blp.arguments(s.ReplaceSeat())
@blp.response(201, s.SeatReplaced)
@blp.doc(operationId="replaceSeat", security=TOKEN, parameters=[idempotency_key("a retry with the same key replaces the seat once "
                                                          "and gets the same new token back")])
@refusals(blp, 400, 401, 403, 404, 409, 413, 415, 422, 429)
@timed("replace")
def replace_seat(args, game_id, seat):
    """Give a seat to a new player (admin token only): a new token (the old one
    stops working at once), new contacts, and a `seat-replaced` event in the log
    with the new name only."""
    from referee import seats

    return seats.replace(service(), game_id, caller(game_id), seat, args,
                         request.headers.get("Idempotency-Key"))


@blp.route("/audit", methods=["POST"])
@blp.response(200, s.AuditReport)
@blp.doc(operationId="auditLog", security=PUBLIC, requestBody={"required": True, **binary(
    "an exported log, JSON Lines, as `exportGame` answers it; sent as application/jsonl, "
    "application/x-ndjson, text/plain or application/octet-stream. It may begin with receipts "
    "to check against the log, a line `{\"receipt\": {...}}` each (docs/trust.md)")})
@refusals(blp, 400, 413, 415, 429, 503, store=False)
@timed("audit")
def audit(*_):
    """Verify an exported log: chain, every move, every referee event, the seed; or a
    league's export (its bundle: every game, every result, pairing and the standings).

    Audits run in a small pool of low-priority processes beside the API, never on
    the threads that answer moves; when every slot is taken the answer is at once
    503 `audits-busy` with `Retry-After`. With receipt lines `{"receipt": {...}}`
    before the export, the report also says of each receipt whether the log holds its
    event (`held`) or not (`contradicted`); a receipt whose signature does not hold
    under the referee's keys is refused (400, naming it)."""
    from referee import audit_pool
    from referee.leagues import audit_league, is_bundle
    from referee.trust import auditing

    # receipt lines before the export, each one's signature checked (docs/trust.md)
    receipts, text = auditing.receipts_before(service(), request.get_data(as_text=False))
    whole = audit_league if is_bundle(text) else None
    return audit_pool.shared().audit(text, auditing.with_receipts(receipts, whole))


@blp.route("/inbound/email", methods=["POST"])
@blp.response(201, s.MoveResult)
@blp.alt_response(202, schema=s.InboundNoMove, description="a command answered, or a robot's mail dropped")
@blp.doc(operationId="receiveEmail", security=PUBLIC, requestBody={"required": True, **binary(
    "a raw RFC 822 message; sent as message/rfc822, text/plain or application/octet-stream")})
@refusals(blp, 400, 401, 403, 404, 409, 413, 415, 422, 429)
@timed("inbound-email")
def inbound_email(*_):
    """A mail to the referee: moves applied as the seat it comes from, and answered by e-mail.

    Sent to a seat's reply address from a notice, `referee+GAME.SEAT.KEY@...`, it
    needs no token; else the game is named by `referee+GAMEID@...` or `[GAMEID]` in
    the subject and the token is on a line `token: ...`. The moves are the first
    lines, in the game's notation (quoted text and signatures are left out); `#N`
    applies them only at version N. The seat gets an answer on its own channels:
    the moves applied (201 here) or the refusal with its rule (the problem here).
    `show` resends the seat's notice and `help` explains (202, `answered`); an
    auto-reply or a bounce is dropped unanswered (202, `ignored`). A message
    delivered twice (same Message-ID) is applied and answered once."""
    from referee.mail import inbound

    got = inbound.receive(service(), request.get_data())
    if "ignored" in got or "answered" in got:
        from flask import jsonify

        answer = jsonify(s.InboundNoMove().dump(got))  # not a MoveResult: passed through as is
        answer.status_code = 202
        return answer
    return got


@blp.route("/games/<game_id>/contacts", methods=["GET"])
@blp.response(200, s.Contacts)
@blp.doc(operationId="getContacts", security=TOKEN)
@refusals(blp, 401, 403, 404, 429)
@timed("contacts")
def contacts(game_id):
    """The seats' contacts (e-mail, webhook): every seat's for the admin token, its own
    for a seat token. They are private: never in the log, its export or any view."""
    from referee.mail import contacts as contactsmod

    return contactsmod.contacts(service(), game_id, caller(game_id))


@blp.route("/games/<game_id>/contacts/<int:seat>", methods=["PUT"])
@blp.arguments(s.ContactChange())
@blp.response(200, s.Contact)
@blp.doc(operationId="changeContact", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 413, 415, 429)
@timed("contacts")
def change_contact(args, game_id, seat):
    """Change one seat's contacts (admin token only): keys given replace, null clears,
    keys left out stay. A new webhook URL gets a new `webhook_secret`, shown once."""
    from referee.mail import contacts as contactsmod

    return contactsmod.change(service(), game_id, caller(game_id), seat, args)


@blp.route("/games/<game_id>/spectators", methods=["PUT"])
@blp.arguments(s.SpectatorsChange())
@blp.response(200, s.SpectatorsHook)
@blp.doc(operationId="changeSpectators", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 413, 415, 429)
@timed("contacts")
def change_spectators(args, game_id):
    """Set or stop the spectators' webhook (admin token only): a URL told, signed as
    Standard Webhooks, of every change of the game as an onlooker sees it. A new URL
    gets a new `webhook_secret`, shown in this answer once; null stops it."""
    from referee.mail import contacts as contactsmod

    return contactsmod.change_spectators(service(), game_id, caller(game_id), args)


@blp.route("/games/<game_id>/organiser", methods=["PUT"])
@blp.arguments(s.OrganiserChange())
@blp.response(200, s.OrganiserContact)
@blp.doc(operationId="changeOrganiser", security=TOKEN)
@refusals(blp, 400, 401, 403, 404, 413, 415, 429)
@timed("contacts")
def change_organiser(args, game_id):
    """Set or change the organiser's contact (admin token only), as a seat's: keys
    given replace, null clears, keys left out stay. It is told of each seat's
    timeout, the game's end and a notice that cannot be delivered. A new webhook
    URL gets a new `webhook_secret`, shown once."""
    from referee.mail import contacts as contactsmod

    return contactsmod.change_organiser(service(), game_id, caller(game_id), args)


@blp.route("/games/<game_id>/notices", methods=["GET"])
@blp.response(200, s.Notices)
@blp.doc(operationId="getNotices", security=TOKEN)
@refusals(blp, 401, 403, 404, 429)
@timed("notices")
def notices(game_id):
    """The game's notices and their delivery state (admin token only): `pending`
    (with its next try and the last error) or `sent`."""
    from referee.mail import outbox

    return outbox.listing(service(), game_id, caller(game_id))

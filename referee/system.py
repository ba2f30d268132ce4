"""Where the referee is put together: the one place that says who follows whom.

The service leads (referee/service/): it loads games, decides, appends, and
publishes every append (referee/appended.py). Everything else follows it and is
wired here, never named by the service:

* the seat entries' keys and what a new game keeps of them: contacts' ``email``
  and ``webhook`` and the spectators' webhook (referee/mail/contacts.py), bots'
  ``bot`` (referee/bots);
* the referee's own players, handed to the table for bot seats and for the move
  a timeout owes (referee/bots, ``table.use_bots``);
* notices: a reaction that queues the outbox's sweep once a game is at rest
  (referee/mail/outbox.py), and its job;
* clocks: the keeper's ``tick`` job (referee/timeouts.py);
* leagues (referee/leagues/running.py): a league game's end queues the job that
  records its result and pairs the next round;
* receipts (referee/trust): the key ring kept in the store, handed to the
  service, which signs the receipt of every answer that appends;
* the calendar (referee/calendar): the players' settings, handed to the service
  for the players' own record, and which notices each seat's player wants (the
  outbox's sweep asks), the daily digests (one more of the background sender's
  ``senders``) and their reply addresses (``reply_readers``, which the inbound
  mail asks first); a game's start writes its players' weekends into its log,
  and its end counts its players' moves and timeouts for their profiles; the
  players' vacations: the keeper looks at their starts each round, the tick asks
  them before a timeout (auto vacation), a game's start pauses a seat whose
  player is away;
* the transparency log (referee/transparency): every append noted for the
  sequencer, which integrates the events as leaves of one Merkle tree kept in
  the store and signs its checkpoints with the receipt key ring's current key
  (its ``transparency`` job on RQ; a thread of the process embedded);
* votes, disputes and rulings (referee/disputes): their requests, held by the
  service as ``service.disputes``; the table takes their events on itself;
* players (referee/players): a seat given as ``{"player": ID}`` (an entry
  resolver), whether a token no seat of a game holds is a player's (then 403),
  the confirmation messages and open games' invitations the background sender
  retries, each player's index of current games (a reaction on a game's
  creation) and the ``ratings`` job a game's end or a seat's new holder queues.

A new reaction (ratings, a league's next round) is one more ``subscribe`` and,
if it works in a job, one more ``register`` here. The API app, ``referee
worker``'s jobs, the CLI and the tests all build the referee through
``assemble`` (or ``build``, from the configuration), so each process is wired
the same way.
"""

from __future__ import annotations

import functools

from referee import bots, entries, standalone, timeouts
from referee.calendar import punctuality, weeks
from referee.calendar.digest import Digests
from referee.calendar.digest_reply import DigestReplies
from referee.calendar.digest_store import open_digests
from referee.calendar.keeping import open_calendar
from referee.calendar.organiser import Calendar
from referee.calendar.pausing import Vacations
from referee.calendar.vacation_store import open_vacations
from referee.config import Config
from referee.disputes.acting import Disputes
from referee.disputes.standing import open_standing
from referee.leagues import inviting
from referee.leagues import running as leagues
from referee.leagues.keeping import leagues_of
from referee.mail import contacts, links, outbox
from referee.players import accounts, confirmation, due_mail, following, invitation_mail, recovery
from referee.queue import InlineQueue, make_queue
from referee.service import GameService
from referee.store import Store, open_store
from referee.transparency.keeping import tree_of
from referee.transparency.log import TransparencyLog
from referee.trust.keys import ring_of
from referee.trust.receipts import Receipts


def wire() -> None:
    """What every process needs before it reads or audits a game, service or not:
    the entries' keys and the table's bot players (idempotent)."""
    entries.register("email", contacts.check_email)
    entries.register("webhook", contacts.check_webhook)
    entries.register("bot", bots.check_bot)
    entries.register_keeper("contacts", contacts.keep)
    entries.register_resolver("player", accounts.seat_resolver)
    entries.register_on_tokens("links", lambda service, game_id, tokens: (
        {"links": found} if (found := links.for_new_game(service, game_id, tokens)) else {}))
    standalone.wire()  # the table's bot players: all an audit needs (referee/standalone.py)


def assemble(store: Store, queue=None, players: bool = True, **options) -> GameService:
    """A GameService on ``store`` with every reaction following it; ``queue``:
    where jobs go (in this process when None). ``players=False``: without the
    player layer's reactions (benchmarks/players_follow.py measures their cost)."""
    wire()
    queue = queue or InlineQueue()
    queue.register(outbox.NOTICES)
    queue.register(timeouts.TICK)
    queue.register(leagues.RESULT)
    ring = ring_of(store)  # one key ring per service, in the store
    options.setdefault("receipts", Receipts(ring))
    service = GameService(store, queue, **options)
    subscribe_transparency(service, ring)
    service.someones_token = functools.partial(accounts.is_players_token, service)
    service.leagues_of = [leagues.player_leagues]  # a profile's leagues
    service.league_invitations_of = [leagues.invitations_of]  # /me's league invitations
    # what the background sender tries each round beside the notices, not yet sent:
    service.senders = [due_mail.sender([confirmation.DUE,  # players' confirmation messages
                                        invitation_mail.DUE,  # open games' invitations
                                        inviting.DUE,  # leagues' invitations
                                        recovery.DUE])]  # new tokens for lost ones
    calendar_store = open_calendar(store)
    digests = Digests(open_digests(store), calendar_store)  # the daily digests, sent with the rest
    service.senders.append(digests)
    service.reply_readers = [DigestReplies()]  # a digest's reply address, read by the inbound mail
    calendar = Calendar(calendar_store, service, digests)  # players' settings, and the notices they want
    service.player_settings, service.wants_notice = calendar, calendar.wants_notice
    service.followers.subscribe("calendar", weeks.follow(service, calendar.store))
    service.followers.subscribe("punctuality", punctuality.follow(service, calendar.store))
    # vacations: bookings paused into the games, the keeper's look at their starts, and
    # a deadline about to pass asked about first (auto vacation)
    calendar.vacations = away = Vacations(service, open_vacations(store), calendar.store)
    service.before_timeout, service.keeper_rounds = [away.before_timeout], [away.round]
    service.followers.subscribe("vacations", away.follow())
    service.disputes = Disputes(service, open_standing(store))  # and the games with one open
    service.followers.subscribe("notices", outbox.follow(service))
    service.followers.subscribe("leagues", leagues.follow(service))
    if players:
        subscribe_players(service)
    return service


def subscribe_transparency(service: GameService, ring) -> None:
    """The transparency log following games: each append noted and integrated by
    the sequencer (referee/transparency/log.py); the API reads it from
    ``service.transparency``."""
    tlog = TransparencyLog(service.store, leagues_of(service), ring, tree_of(service.store))
    service.transparency = tlog
    service.queue.register(tlog.job())
    service.followers.subscribe("transparency", tlog.follow(service.queue))


def subscribe_players(service: GameService) -> None:
    """The player layer following games: each player's index of current games, and
    a finished game's ratings (referee/players/following.py)."""
    service.queue.register(following.RATINGS)
    service.followers.subscribe("player-seats", following.seats(service))
    service.followers.subscribe("ratings", following.ratings(service))


def build(config: Config | None = None) -> GameService:
    """The referee as configured (REFEREE_STORE, REFEREE_QUEUE, or arguments)."""
    config = config or Config.load()
    return assemble(open_store(config.store), make_queue(config.queue))

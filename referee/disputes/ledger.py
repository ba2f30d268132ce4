"""What a table keeps of its votes, disputes and rulings, and what each of their
events is: pure, like the rules engines (no store, no clock, no Flask).

The seats' own acts (``vote-opened``, ``voted``, ``dispute-opened``) are written
as that seat; what follows from them (``vote-carried``, ``vote-failed``) and a
ruling (``ruled``, on the admin's word) as the referee. The table
(referee/table.py) takes each of them on through ``apply``; the service
(referee/disputes/acting.py) asks ``seat_drafts`` and ``ruling_drafts`` what a
request would write, and the audit asks the same of every logged one, so a
ruling the admin could not have given, or a vote nobody opened, is named there.

A vote or a dispute is called by the ``seq`` of the event that opened it: ids
anyone re-derives from the log.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from referee.clock import format_at, parse_at
from referee.errors import Forbidden, GameOver, MalformedMove, NotYourSeat, RefereeError
from referee.events import Draft

VOTE_OPENED, VOTED, VOTE_CARRIED, VOTE_FAILED = "vote-opened", "voted", "vote-carried", "vote-failed"
DISPUTE_OPENED, RULED = "dispute-opened", "ruled"
# Written as the seat that asked (a seat's own act, but no move of the game).
SEAT_EVENTS = (VOTE_OPENED, VOTED, DISPUTE_OPENED)
# Written as the referee: a vote's end follows from the seats' answers or a move;
# a ruling is the admin's word.
REFEREE_EVENTS = (VOTE_CARRIED, VOTE_FAILED, RULED)
EVENTS = LEDGER_EVENTS = frozenset(SEAT_EVENTS + REFEREE_EVENTS)
# The referee step a vote's end is: owed once the answers (or the next move) decide it.
VOTE_END = "end-vote"

PROPOSALS = ("draw", "cancel", "pause", "resume")
DECISIONS = ("dismiss", "take-back", "void", "award", "extend")
# How long after its end a game may still be disputed.
DISPUTE_WINDOW = timedelta(days=7)
MAX_TEXT = 2000  # a dispute's or a ruling's words
MAX_EXTEND = 90 * 86400  # the most time one ruling may add to a seat's clock


class VoteClosed(RefereeError):
    code, status = "vote-closed", 409


class VoteOpen(RefereeError):
    code, status = "vote-open", 409


class NoSuchVote(RefereeError):
    code, status = "no-such-vote", 404


class NoSuchDispute(RefereeError):
    code, status = "no-such-dispute", 404


class AlreadyRuled(RefereeError):
    code, status = "already-ruled", 409


class TooLate(RefereeError):
    code, status = "dispute-window-closed", 409


@dataclass(frozen=True)
class Ledger:
    """Votes, disputes and rulings as far as the log has gone (replaced, never
    changed in place, so a proposal's table shares nothing with its original)."""

    # the vote under way: {id, proposal, by, yes: [seats], ending: None | "carried"
    # | "no" | "move", no: seat | None}; None when there is none
    vote: dict | None = None
    # every dispute: ({id, seq, text, by, status: "open" | "ruled", ruling}, ...)
    disputes: tuple = ()
    # the seq of the last ``ruled`` event (a take-back may not go back past it)
    last_ruling: int = 0
    # a pause vote carried and no resume yet
    paused: bool = False
    # the ids of the votes that have ended (an answer to one is 409 vote-closed)
    ended_votes: tuple = ()
    # when the game ended (its last event's ``at`` once it was over), for the
    # window in which it may still be disputed
    ended_at: str | None = None

    @property
    def decided(self) -> bool:
        """Whether the vote under way is decided: its end is the referee's next step."""
        return self.vote is not None and self.vote["ending"] is not None

    @property
    def open_disputes(self) -> list[dict]:
        return [d for d in self.disputes if d["status"] == "open"]

    @property
    def held(self) -> bool:
        """Whether the clocks stand still: a dispute is open or the seats paused."""
        return self.paused or any(d["status"] == "open" for d in self.disputes)

    def dispute(self, dispute_id) -> dict | None:
        return next((d for d in self.disputes if d["id"] == dispute_id), None)

    def shown(self) -> dict:
        """What views show of it: the vote under way, every dispute, the pause."""
        vote = None
        if self.vote is not None:
            vote = {k: self.vote[k] for k in ("id", "proposal", "by", "yes")}
        return {"vote": vote, "disputes": [dict(d) for d in self.disputes], "paused_by_vote": self.paused}


def _whole(n) -> bool:
    return isinstance(n, int) and not isinstance(n, bool)


def voters(table) -> list[int]:
    """The seats that vote: every seat but those the referee plays (bots)."""
    return [s for s in range(table.state.players) if s not in table.bots]


def _text(body: dict, field: str = "text") -> str:
    text = body.get(field)
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        raise MalformedMove(f"{field} is the words, 1 to {MAX_TEXT} characters", field=field)
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise MalformedMove(f"{field} holds no control characters", field=field)
    return text


def _only(body, allowed: set) -> dict:
    if not isinstance(body, dict):
        raise MalformedMove("the body must be a JSON object", field="body")
    unknown = set(body) - allowed
    if unknown:
        raise MalformedMove(f"unknown field(s): {', '.join(sorted(unknown))}", field=sorted(unknown)[0])
    return body


# ---- what a seat's request writes -------------------------------------------------


def seat_drafts(table, seat: int, kind: str, body, at: str) -> list[Draft]:
    """The event ``seat`` asking ``kind`` (one of SEAT_EVENTS) with ``body`` writes
    now, or the refusal. ``at``: the moment it is asked (the dispute window)."""
    if not _whole(seat) or not 0 <= seat < table.state.players:
        raise NotYourSeat("votes and disputes are a seat's")
    ledger = table.ledger
    if kind == VOTE_OPENED:
        body = _only(body, {"proposal"})
        proposal = body.get("proposal")
        if proposal not in PROPOSALS:
            raise MalformedMove(f"proposal is one of {', '.join(PROPOSALS)}", field="proposal")
        if table.over:
            raise GameOver("the game is over")
        if seat in table.bots:
            raise NotYourSeat("the referee plays this seat")
        if ledger.vote is not None:
            raise VoteOpen(f"vote {ledger.vote['id']} ({ledger.vote['proposal']}) is under way: "
                           "it ends with an answer of each seat or the next move", vote=ledger.vote["id"])
        if proposal == "pause" and ledger.paused:
            raise MalformedMove("the clocks are paused already", field="proposal")
        if proposal == "resume" and not ledger.paused:
            raise MalformedMove("nothing to resume: no pause was voted", field="proposal")
        return [Draft(VOTE_OPENED, {"proposal": proposal})]
    if kind == VOTED:
        body = _only(body, {"vote", "yes"})
        vote = ledger.vote
        wanted = body.get("vote")
        if not _whole(wanted) or wanted < 1:
            raise NoSuchVote("no such vote", field="vote")
        if vote is None or vote["id"] != wanted:
            if _was_a_vote(table, wanted):
                raise VoteClosed(f"vote {wanted} has ended")
            raise NoSuchVote(f"no vote {wanted} in this game", field="vote")
        if vote["ending"] is not None:
            raise VoteClosed(f"vote {wanted} has ended")
        if not isinstance(body.get("yes"), bool):
            raise MalformedMove("yes is true or false", field="yes")
        if seat not in voters(table):
            raise NotYourSeat("the referee plays this seat")
        if seat in vote["yes"]:
            raise VoteClosed(f"seat {seat} has answered vote {wanted} already")
        return [Draft(VOTED, {"vote": wanted, "yes": body["yes"]})]
    if kind == DISPUTE_OPENED:
        body = _only(body, {"text", "seq"})
        text = _text(body)
        about = body.get("seq")
        if about is not None and (not _whole(about) or not 1 <= about <= table.seq):
            raise MalformedMove(f"seq is an event of this game, 1 to {table.seq} (or none: the game "
                                "as a whole)", field="seq")
        if table.over and ledger.ended_at is not None and at > _later(ledger.ended_at, DISPUTE_WINDOW):
            raise TooLate("a game may be disputed while it runs and for 7 days after its end")
        if table.aborted and not table.over:
            raise GameOver("the game was aborted")
        return [Draft(DISPUTE_OPENED, {"dispute": table.seq + 1, "by": seat, "seq": about, "text": text})]
    raise MalformedMove(f"no such request {kind!r}", field="type")


def _was_a_vote(table, vote_id: int) -> bool:
    return vote_id in table.ledger.ended_votes


def _later(at: str, delta: timedelta) -> str:
    return format_at(parse_at(at) + delta)


# ---- what a ruling writes -----------------------------------------------------------


def ruling_drafts(table, body, history: list | None = None) -> list[Draft]:
    """The ``ruled`` event the admin's ruling ``body`` writes now (checked against
    the table, whose ``seq`` is the game's version, and for a take-back the log so
    far, ``history``), or the refusal naming the field."""
    version = table.seq
    body = _only(body, {"dispute", "decision", "text"})
    wanted = body.get("dispute")
    found = table.ledger.dispute(wanted) if _whole(wanted) else None
    if found is None:
        raise NoSuchDispute(f"no dispute {wanted!r} in this game", field="dispute")
    if found["status"] != "open":
        raise AlreadyRuled(f"dispute {wanted} was ruled already", field="dispute")
    decision = body.get("decision")
    if not isinstance(decision, dict) or decision.get("kind") not in DECISIONS:
        raise MalformedMove(f"decision is an object whose kind is one of {', '.join(DECISIONS)}",
                            field="decision.kind")
    text = _text(body)
    kind = decision["kind"]
    fields = {"dismiss": set(), "void": set(), "take-back": {"to"}, "award": {"winners"},
              "extend": {"seat", "seconds"}}[kind]
    unknown = set(decision) - fields - {"kind"}
    if unknown:
        raise MalformedMove(f"a {kind} takes {', '.join(sorted(fields)) or 'nothing more'}",
                            field=f"decision.{sorted(unknown)[0]}")
    players = table.state.players
    if kind != "dismiss" and table.over:
        # the game's end stands once it is over (its cards are open, its ratings
        # made): a ruling after the end may only dismiss
        raise GameOver("the game is over: a ruling on it now can only dismiss the dispute")
    if kind == "take-back":
        to = decision.get("to")
        low = max(table.ledger.last_ruling, 1)
        if not _whole(to) or not low <= to < version:
            raise MalformedMove(f"decision.to is an event from {low} (the last ruling, or the start) "
                                f"to {version - 1}, before the game's version {version}", field="decision.to")
        if history is None or len(history) < version:
            raise MalformedMove("a take-back needs the log", field="decision.to")
        if within_one_append(history[to - 1], history[to]):
            raise MalformedMove(f"decision.to: event {to} is in the middle of a move or a referee step (event "
                                f"{to + 1} belongs to it): take back to the end of one", field="decision.to")
        out = {"kind": kind, "to": to}
    elif kind == "award":
        winners = decision.get("winners")
        if (not isinstance(winners, list) or not winners or len(set(map(repr, winners))) != len(winners)
                or not all(_whole(s) and 0 <= s < players for s in winners)):
            raise MalformedMove(f"decision.winners is a list of seats, 0 to {players - 1}, each once",
                                field="decision.winners")
        out = {"kind": kind, "winners": sorted(winners)}
    elif kind == "extend":
        seat, seconds = decision.get("seat"), decision.get("seconds")
        if not _whole(seat) or not 0 <= seat < players:
            raise MalformedMove(f"decision.seat is a seat, 0 to {players - 1}", field="decision.seat")
        if not _whole(seconds) or not 1 <= seconds <= MAX_EXTEND:
            raise MalformedMove(f"decision.seconds is 1 to {MAX_EXTEND}", field="decision.seconds")
        if table.clock is None:
            raise MalformedMove("this game has no clock to extend", field="decision.kind")
        if seat not in table.to_act():  # only a seat on the clock has time to be given
            raise MalformedMove(f"seat {seat} is not to act now: its clock is not running", field="decision.seat")
        out = {"kind": kind, "seat": seat, "seconds": seconds}
    else:
        out = {"kind": kind}
    return [Draft(RULED, {"dispute": wanted, "decision": out, "text": text, "by": "admin"})]


def within_one_append(ev, after) -> bool:
    """Whether ``after`` (the event right after ``ev``) was written by the same move
    or referee step: the same actor at the same moment (one append's events share
    their ``at``), and not the start of a seat's next move (which records its move)."""
    return (after.actor == ev.actor and after.at == ev.at
            and not (isinstance(after.payload, dict) and "move" in after.payload))


def check_admin(viewer) -> None:
    """A ruling is the admin's (the game's admin token; a league game's is the
    league's), never a seat's."""
    if viewer != "admin":
        raise Forbidden("only the game's admin token (a league game's: the league's) may rule")


# ---- a vote's end, the referee's step ------------------------------------------------


def end_drafts(table) -> list[Draft]:
    """The vote's end now owed (``VOTE_END``): carried, or failed on a no or a move."""
    vote = table.ledger.vote
    p = {"vote": vote["id"], "proposal": vote["proposal"]}
    if vote["ending"] == "carried":
        if vote["proposal"] == "draw":
            seats = list(range(table.state.players))
            p["result"] = {"winners": seats, "reason": "a draw agreed by every seat",
                           "scores": list(table.engine.scores(table.state))}
        return [Draft(VOTE_CARRIED, p)]
    if vote["ending"] == "no":
        p["reason"] = f"seat {vote['no']} said no"
    else:
        p["reason"] = "a move was made before every seat answered"
    return [Draft(VOTE_FAILED, p)]


# ---- taking events on ----------------------------------------------------------------


def taken_on(ledger: Ledger, ev, voting: list[int]) -> Ledger:
    """The ledger after ``ev`` (one of EVENTS); ``voting``: the seats that vote."""
    p = ev.payload
    if ev.type == VOTE_OPENED:
        vote = {"id": ev.seq, "proposal": p["proposal"], "by": ev.actor, "yes": [ev.actor],
                "ending": None, "no": None}
        return replace(ledger, vote=_decided(vote, voting))
    if ev.type == VOTED:
        vote = dict(ledger.vote)
        if p["yes"]:
            vote["yes"] = sorted({*vote["yes"], ev.actor})
            vote = _decided(vote, voting)
        else:
            vote["ending"], vote["no"] = "no", ev.actor
        return replace(ledger, vote=vote)
    if ev.type in (VOTE_CARRIED, VOTE_FAILED):
        paused = ledger.paused
        if ev.type == VOTE_CARRIED and p["proposal"] in ("pause", "resume"):
            paused = p["proposal"] == "pause"
        return replace(ledger, vote=None, paused=paused, ended_votes=(*ledger.ended_votes, p["vote"]))
    if ev.type == DISPUTE_OPENED:
        dispute = {"id": ev.seq, "seq": p.get("seq"), "text": p["text"], "by": p["by"], "at": ev.at,
                   "status": "open", "ruling": None}
        return replace(ledger, disputes=(*ledger.disputes, dispute))
    if ev.type == RULED:
        ruling = {"seq": ev.seq, "decision": p["decision"], "text": p["text"], "at": ev.at}
        disputes = tuple({**d, "status": "ruled", "ruling": ruling} if d["id"] == p["dispute"] else d
                         for d in ledger.disputes)
        return replace(ledger, disputes=disputes, last_ruling=ev.seq)
    return ledger


def _decided(vote: dict, voting: list[int]) -> dict:
    if vote["ending"] is None and all(s in vote["yes"] for s in voting):
        return {**vote, "ending": "carried"}
    return vote


def moved(ledger: Ledger) -> Ledger:
    """A seat's move while a vote is under way ends it: the next step owed is its failure."""
    if ledger.vote is not None and ledger.vote["ending"] is None:
        return replace(ledger, vote={**ledger.vote, "ending": "move"})
    return ledger

"""The requests of votes, disputes and rulings, made through the service's one
way of appending (``GameService.write_proposal``): the caller checked here, the
events decided by the table (referee/disputes/ledger.py), compare-and-set, each
answer with its receipt.

Every answer names the vote or dispute by what the log says of it: the seat's
own words and the seats' answers, never a card (a ruling's or a vote's answer
shows the events as the caller may see them, redacted like every other).
"""

from __future__ import annotations

import time

from referee.caller import Caller, token_hash
from referee.disputes import ledger as ledgermod
from referee.disputes import standing
from referee.errors import MalformedMove, NotYourSeat, Unauthenticated
from referee.games import engine as engine_by_name
from referee.games.base import ADMIN

LEAGUE_MARK = "league"
VOTE_WINDOW = 200  # events read to tell a vote's state  # the key of a league game's private record naming its league


class Disputes:
    """Votes, disputes and rulings of the games ``service`` keeps (made in
    referee/system.py and held by the service as ``service.disputes``)."""

    def __init__(self, service, standing):
        self.service = service
        self.standing = standing  # the games with a dispute open (referee/disputes/standing.py)

    def _seat(self, caller: Caller, what: str) -> int:
        if caller.viewer is None:
            raise Unauthenticated(f"{what}: send Authorization: Bearer <a seat's token>")
        if caller.seat is None:
            raise NotYourSeat(f"{what} is a seat's: the admin token rules, it does not vote or dispute")
        return caller.seat

    def _once(self, caller: Caller, idempotency_key: str | None, kind: str, body):
        """The key that makes a seat's request idempotent (a mail's: referee/mail/asking.py)."""
        return self.service.once(caller, idempotency_key, {"request": kind, "body": body})

    def open_vote(self, game_id: str, caller: Caller, body, idempotency_key: str | None = None) -> dict:
        seat = self._seat(caller, "a vote")
        answer = self.service.write_proposal(game_id, caller, lambda table, at, key: table.propose_seat(
            seat, ledgermod.VOTE_OPENED, body, at, key),
            once=self._once(caller, idempotency_key, ledgermod.VOTE_OPENED, body))
        vote_id = answer["events"][0]["seq"]
        return {**answer, "vote": self.vote(game_id, vote_id)}

    def answer_vote(self, game_id: str, caller: Caller, vote_id, body, idempotency_key: str | None = None) -> dict:
        seat = self._seat(caller, "an answer to a vote")
        if not isinstance(body, dict):
            raise MalformedMove("the body must be a JSON object", field="body")
        asked = {**body, "vote": vote_id}
        answer = self.service.write_proposal(game_id, caller, lambda table, at, key: table.propose_seat(
            seat, ledgermod.VOTED, asked, at, key), once=self._once(caller, idempotency_key, ledgermod.VOTED, asked))
        return {**answer, "vote": self.vote(game_id, vote_id)}

    def vote(self, game_id: str, vote_id: int) -> dict:
        """``{id, proposal, by, state, yes}``: ``state`` is ``open``, ``carried`` or
        ``failed``, as the log says now."""
        # a vote ends a few events after it opens (each seat's answer, then its end;
        # a move ends it at once): its window of the log is enough
        events = self.service.store.events(game_id, after=vote_id - 1, limit=VOTE_WINDOW)
        opened = events[0].payload
        out = {"id": vote_id, "proposal": opened["proposal"], "by": events[0].actor, "state": "open",
               "yes": [events[0].actor]}
        for ev in events[1:]:
            p = ev.payload
            if not isinstance(p, dict) or p.get("vote") != vote_id:
                continue
            if ev.type == ledgermod.VOTED and p.get("yes"):
                out["yes"] = sorted({*out["yes"], ev.actor})
            elif ev.type == ledgermod.VOTE_CARRIED:
                out["state"] = "carried"
            elif ev.type == ledgermod.VOTE_FAILED:
                out["state"] = "failed"
                out["reason"] = p.get("reason")
        return out

    def open_dispute(self, game_id: str, caller: Caller, body, idempotency_key: str | None = None) -> dict:
        seat = self._seat(caller, "a dispute")
        self.standing.mark(game_id)  # first: a process killed after the append leaves it marked
        answer = self.service.write_proposal(game_id, caller, lambda table, at, key: table.propose_seat(
            seat, ledgermod.DISPUTE_OPENED, body, at, key), while_over=True,
            once=self._once(caller, idempotency_key, ledgermod.DISPUTE_OPENED, body))
        p = answer["events"][0]["payload"]
        dispute = {"id": p["dispute"], "seq": p["seq"], "text": p["text"], "by": p["by"], "status": "open"}
        return {**answer, "dispute": dispute}

    def rule(self, game_id: str, caller: Caller, body) -> dict:
        ledgermod.check_admin(caller.viewer)
        service = self.service

        def propose(table, at, key):
            history = None
            decision = body.get("decision") if isinstance(body, dict) else None
            if isinstance(decision, dict) and decision.get("kind") == "take-back":
                history = service.store.events(game_id)  # the log the take-back goes back into
            return table.propose_ruling(body, at, key, history=history)

        answer = service.write_proposal(game_id, caller, propose, while_over=True)
        if not service.load(game_id).ledger.open_disputes:
            self.standing.unmark(game_id)
        p = answer["events"][0]["payload"]
        return {**answer, "ruling": {"dispute": p["dispute"], "decision": p["decision"], "text": p["text"],
                                     "seq": answer["events"][0]["seq"]}}

    def of_organiser(self, token: str | None) -> dict:
        """The open disputes of every game whose admin token is ``token`` (a league's
        admin token is every one of its games'), the latest disputed game first:
        ``{disputes: [{game, title, players, league, status, dispute}]}``. Only the
        games marked as having a dispute open are read (referee/disputes/standing.py)."""
        if not token:
            raise Unauthenticated("send Authorization: Bearer <a game's or a league's admin token>")
        wanted, out = token_hash(token), []
        store, now = self.service.store, time.time()
        for game_id, since in self._marked():
            rec = store.record(game_id)
            if rec is None:
                continue
            table = self.service.load(game_id, rec)
            if not table.ledger.open_disputes:
                if now - since > standing.SETTLED:  # a mark too many: a ruling or a refusal left it
                    self.standing.unmark(game_id)
                continue
            if rec.tokens.get(wanted) != ADMIN:
                continue
            view = self.service.view(rec.id, Caller(ADMIN, wanted, rec))
            for d in view["disputes"]:
                if d["status"] == "open":
                    out.append({"game": rec.id, "title": engine_by_name(rec.game).title, "players": rec.players,
                                "league": rec.extra.get(LEAGUE_MARK), "status": view["status"], "dispute": d})
        return {"disputes": out}

    def _marked(self) -> list[tuple[str, float]]:
        """The marked games; a store from before the marks first marks the open
        disputes among its newest games (once)."""
        if not self.standing.backfilled():
            for row in self.service.store.games(limit=standing.BACKFILL):
                table = self.service.load(row["id"])
                if table.ledger.open_disputes:
                    self.standing.mark(row["id"])
            self.standing.note_backfilled()
        return self.standing.games()

"""Votes and disputes by e-mail: a reply whose first own line is ``propose draw``
(cancel, pause, resume), ``vote yes`` / ``vote no`` or ``dispute …`` asks, as its
seat, what the votes and disputes of the HTTP API do (referee/disputes/acting.py),
and is answered on the seat's channels as a mailed move is
(referee/mail/inbound.py ``_answer``): what was done, or the refusal with its rule.

A mail delivered twice is acted on once: the mail's key is the request's
idempotency key (as a mailed move's is), so the second delivery gets the first
one's answer, writes nothing, and its answer is the first one's notice again
(named by the event the mail wrote), which the outbox keeps once.
"""

from __future__ import annotations

import re

from referee.disputes.ledger import VOTED, NoSuchVote
from referee.errors import MalformedMove, RefereeError
from referee.narration import named

# The first word of a mail's first own line that makes it a request, not moves
# (no game's notation has a move that starts so)
WORDS = ("propose", "vote", "dispute")
# "dispute #12 …": the event disputed
DISPUTED_EVENT = re.compile(r"^#(\d{1,10})(?=\s|$)")
PROPOSED = {"draw": "a draw", "cancel": "to cancel the game", "pause": "to pause the clocks",
            "resume": "to resume the clocks"}


def asked(text: str) -> str | None:
    """The request a mail's own lines make (by their first word), or None: moves."""
    first = text.split("\n", 1)[0].split(None, 1)
    word = first[0].lower() if first else ""
    return word if word in WORDS else None


def request(text: str, version: int | None) -> tuple[str, dict]:
    """(word, body) of the mail's request as the HTTP API takes it, or the refusal
    naming what is wrong (nothing written)."""
    first, _, below = text.partition("\n")
    parts = first.split(None, 1)
    word, rest = parts[0].lower(), (parts[1] if len(parts) > 1 else "").strip()
    if version is not None:
        raise MalformedMove("a line #N goes with moves only: votes and disputes are not tied to a "
                            "version (write 'dispute #N …' to name event N)", field="version")
    if word == "dispute":
        body = {}
        found = DISPUTED_EVENT.match(rest)
        if found:
            body["seq"] = int(found.group(1))
            rest = rest[found.end():].strip()
        words = "\n".join(x for x in (rest, below.strip()) if x)
        if not words:
            raise MalformedMove("write your complaint after 'dispute' (on that line and the lines "
                                "below): the organiser rules on your words", field="text")
        return word, {**body, "text": words}
    if below.strip():
        # the lines below might be moves the seat meant: nothing is done rather than half
        raise MalformedMove(f"a mail that says '{word}' holds that one line: send your moves in a mail "
                            "of their own", field="body")
    if word == "propose":
        return word, {"proposal": rest.lower()}
    if rest.lower() not in ("yes", "no"):
        raise MalformedMove("answer a vote with 'vote yes' or 'vote no'", field="yes")
    return word, {"yes": rest.lower() == "yes"}


def act(service, who, text: str, version: int | None, key: str, mid: str | None, answer) -> dict:
    """Do what the mail asks as the seat ``who`` and answer it (``answer``:
    inbound's ``_answer``); a refusal is raised, ``answered`` on it saying whether
    the seat was told. Returns ``{"answered": word, "version", "vote"|"dispute"}``."""
    game_id, once = who.record.id, "mail:" + key
    try:
        word, body = request(text, version)
        if word == "propose":
            got = service.disputes.open_vote(game_id, who, body, once)
            vote = got["vote"]
            note = (f"Proposed {PROPOSED[vote['proposal']]} (vote {vote['id']}): every other player "
                    "answers by replying 'vote yes' or 'vote no'; one no or the next move ends it.")
        elif word == "vote":
            vote_id = _vote_of(service, who, once)
            got = service.disputes.answer_vote(game_id, who, vote_id, body, once)
            vote = got["vote"]
            note = f"Voted {'yes' if body['yes'] else 'no'} on vote {vote_id} ({vote['proposal']}): " + {
                "carried": "carried, every player said yes.",
                "failed": f"it failed ({named(vote.get('reason') or '', who.record.players)}).",
            }.get(vote["state"], "it waits for the other players' answers.")
        else:
            got = service.disputes.open_dispute(game_id, who, body, once)
            dispute = got["dispute"]
            about = f"event {dispute['seq']}" if dispute["seq"] is not None else "the game as a whole"
            note = (f"Disputed {about} (dispute {dispute['id']}): the clocks stand still until the "
                    "organiser rules; every player reads your words.")
    except RefereeError as err:
        rule = err.extra.get("rule") or err.extra.get("field") or err.code
        note = f"Refused ({rule}): {named(err.detail, who.record.players)}"
        err.answered = answer(service, who, "request-refused", note, key, mid)
        raise
    # named by the event the mail wrote: a second delivery's answer is the same notice
    answer(service, who, "request-taken", note, key, mid, version=got["events"][0]["seq"])
    # the game's version now, as a command's answer gives it (a delivery again gets
    # the first answer, whose version was before the vote's end)
    out = {"answered": word, "version": service.summary(game_id)["version"]}
    out.update({k: got[k] for k in ("vote", "dispute") if k in got})
    return out


def _vote_of(service, who, once: str) -> int:
    """The vote a ``vote yes|no`` mail answers: the one it answered already, when
    it is delivered again (that vote may have ended since), else the one under way
    (the vote the game's view shows)."""
    earlier = service.store.answer(who.record.id, service.once(who, once, {})[0])
    if earlier is not None:
        ev = earlier["answer"]["events"][0]
        if ev["type"] == VOTED:
            return ev["payload"]["vote"]
    under_way = service.load(who.record.id).ledger.vote
    if under_way is None:
        raise NoSuchVote("no vote is under way: 'propose draw' (or cancel, pause, resume) opens one")
    return under_way["id"]

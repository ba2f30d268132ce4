"""A mail to the referee, however it came (``POST /v1/inbound/email`` or
``referee mail-gateway``): read it, apply it as its seat, and answer by e-mail.

The order matters:

1. A robot's mail (an auto-reply, a bounce: ``referee.mail.loops``) is dropped
   first: nothing read, nothing changed, no answer.
2. The seat is the one the reply address names (its key checked), or the one whose
   token the mail carries. A mail that names no seat of a game, or a forged or
   outdated key, is refused and gets no answer: the referee only ever writes to
   the addresses it was given, never to a From line that anyone can forge.
3. ``show`` resends the seat's notice; ``help`` explains how to reply.
4. A first line ``propose …``, ``vote yes|no`` or ``dispute …`` asks for a vote,
   answers one or opens a dispute (referee/mail/asking.py).
5. Otherwise the lines are the seat's moves. Applied or refused, the seat gets an
   answer on its own channels: the moves applied, or the refusal with its rule,
   then its view and legal moves.

Each answer is a notice like any other (exactly once, retried, listed for the
admin), named after the mail it answers: a mail delivered twice is applied once
and answered once.
"""

from __future__ import annotations

import hashlib
import re

from referee.errors import Unauthenticated
from referee.games import engine as engine_by_name
from referee.games.base import MalformedMove, RefereeError
from referee.mail import asking, loops, outbox, reading, sending
from referee.narration import named

HELP = ("Reply to a notice with your moves on the first lines, in the game's notation, one "
        "move per line; your legal moves are listed in each notice. Everything under your "
        "moves is left alone: the quoted notice, your signature. A line #N (N the version "
        "in the notice) applies the moves only if nothing has happened since. Write 'show' "
        "to have your notice sent again, 'help' for this. 'propose draw' (or cancel, pause, resume) "
        "asks the other players to agree; 'vote yes' or 'vote no' answers the vote under way; "
        "'dispute' followed by your words (and the lines below) asks the organiser to rule, "
        "'dispute #N …' about event N. Only replies to your own reply "
        "address count; answers go to the address the organiser registered for you.")


# A Message-ID fit to be quoted back in In-Reply-To (anything else is not echoed)
MESSAGE_ID = re.compile(r"^<[!-;=?-~]{1,900}>$")


def mail_key(msg_id: str | None, raw: bytes) -> str:
    """What names a mail: its Message-ID, else its bytes (hashed: ids can be long)."""
    return hashlib.sha256(msg_id.encode() if msg_id else raw).hexdigest()


def seat_of(service, got: dict):
    """The caller the mail speaks for (raises Unauthenticated / NoSuchGame)."""
    if got["key"] is not None and got["token"] is None:
        return sending.caller_by_reply_key(service, got["game"], got["seat"], got["key"])
    if got["token"] is None:
        raise Unauthenticated("reply to a notice (its reply address names your seat), "
                              "or give your seat's token on a line 'token: …'")
    return service.caller(got["game"], got["token"])


def _answer(service, who, reason: str, note: str, key: str, msg_id: str | None,
            version: int | None = None) -> bool:
    """Queue the answer to one mail, named after it (so at most one per mail;
    ``version``: the version naming it, when not the game's now); False when the
    seat has no channel to answer on."""
    if str(who.seat) not in who.record.extra.get("contacts", {}):
        return False  # the HTTP caller has the answer, nobody else
    outbox.queue_notice(service, who.record.id, who.seat, reason, note, version=version, tag=key[:16],
                        in_reply_to=msg_id)
    return True


def which_line(engine, text: str, index) -> str | None:
    """Of a mail of several moves, which one was refused and what became of the
    others: "Line 2 of 3, "play W1", was refused; the line before it was not
    applied either (a mail's moves are applied all together or not at all). "
    None for a mail of one move (its refusal says it all) or a refusal of the
    mail as a whole (a stale #N, a game over)."""
    try:
        parts = engine.lines(text)
    except Exception:  # the text is the mail's own: a courtesy, never a second failure
        return None
    if len(parts) < 2 or not isinstance(index, int) or not 0 <= index < len(parts):
        return None
    line = f"Line {index + 1} of {len(parts)}, \"{parts[index][:80]}\", was refused"
    if index == 0:
        rest = "nothing was applied"
    elif index == 1:
        rest = "the line before it was not applied either"
    else:
        rest = f"the {index} lines before it were not applied either"
    return f"{line}; {rest} (a mail's moves are applied all together or not at all).\n"


def receive(service, raw: bytes, recipients: list[str] | None = None, mail_from: str | None = None) -> dict:
    """Handle one mail. Returns ``{"ignored": why}`` for a robot's mail,
    ``{"answered": "show"|"help", ...}`` for a command, ``{"answered":
    "propose"|"vote"|"dispute", ...}`` for a vote's or a dispute's mail, or the move's result
    (``{version, events}``). A refusal is raised; ``answered`` on it says whether
    the seat was told by an answer of its own (else only the caller can tell it:
    the mail named no seat, or the seat has no channel)."""
    msg = reading.parse(raw)
    why = loops.automatic(msg, mail_from)
    if why is not None:
        if why.startswith("bounce"):  # one of our notices came back: the organiser hears of it
            try:
                sending.bounced(service, raw)
            except Exception:  # a courtesy: the bounce is dropped all the same
                pass
        return {"ignored": why}
    for reader in getattr(service, "reply_readers", ()):  # a digest's address (referee/system.py)
        answered = reader.receive(service, raw, msg, recipients)
        if answered is not None:
            return answered
    got = reading.read(raw, recipients, msg=msg)
    who = seat_of(service, got)
    game_id = got["game"]
    key = mail_key(got["message_id"], raw)
    mid = got["message_id"] if got["message_id"] and MESSAGE_ID.match(got["message_id"]) else None
    if got["command"] == "show":
        _answer(service, who, "show", None, key, mid)
        return {"answered": "show", "version": service.summary(game_id)["version"]}
    if got["command"] == "help":
        _answer(service, who, "help", HELP, key, mid)
        return {"answered": "help", "version": service.summary(game_id)["version"]}
    if asking.asked(got["text"]):
        return asking.act(service, who, got["text"], got["version"], key, mid, _answer)
    return apply_mail(service, who, got["text"], got["version"], key, mid)


def apply_mail(service, who, text: str, version: int | None, key: str, mid: str | None,
               aside: str | None = None) -> dict:
    """Apply a mail's moves ``text`` as the seat ``who`` (at ``version`` only, if
    given) and answer on the seat's channels, the mail named by ``key``: applied,
    or refused with its rule (raised; ``answered`` on it says whether the seat was
    told). A digest's reply (referee/calendar/digest_reply.py) calls it once per
    game it names, so each game's moves are checked and answered as a reply to
    that game's own notice is; ``aside``: a line the answer adds about the rest
    of the mail."""
    game_id = who.record.id
    body = {"text": text}
    if version is not None:
        body["expected_version"] = version
    try:
        if not text:
            raise MalformedMove("the mail holds no move: write your moves on its first lines "
                                "('help' explains)", field="body")
        result = service.submit(game_id, who, body, "mail:" + key)
    except RefereeError as err:
        rule = err.extra.get("rule") or err.extra.get("field") or err.code
        said = named(err.detail, who.record.players)  # "it is Bob's turn", not "seat 1's"
        note = f"Refused ({rule}): {said}" + (f"\n{aside}" if aside else "")
        which = which_line(engine_by_name(who.record.game), text, err.extra.get("index"))
        err.answered = _answer(service, who, "refused", f"{which}{note}" if which else note, key, mid)
        raise
    engine = engine_by_name(who.record.game)
    try:
        said = "; ".join(engine.format(m) for m in engine.parse(text))
    except Exception:  # applied, so it parsed: this is only the echo
        said = text
    _answer(service, who, "applied", f"Applied: {said}" + (f"\n{aside}" if aside else ""), key, mid)
    return result

"""Every refusal the referee answers with, at the bottom of the house.

Anything may import this module and it imports nothing of the referee: the
engines refuse moves with these, the service refuses callers, the reactions
(notices, seats, clocks) refuse requests. Each class carries what its
problem+json answer says: ``code`` and ``status``, a ``detail`` in words, and
``extra`` fields such as ``rule``, ``field`` or ``current_version``
(referee/api/problems.py turns them into the answer).
"""

from __future__ import annotations


class RefereeError(Exception):
    """A refusal the client caused; carries what the problem+json answer says."""

    code = "malformed"
    status = 400

    def __init__(self, detail: str, **extra):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra


class MalformedMove(RefereeError):
    """Not a move of this game at all: unknown type, bad card code, missing field."""

    code, status = "malformed", 400

    def __init__(self, detail: str, field: str = "move", **extra):
        super().__init__(detail, field=field, **extra)


class BadOptions(RefereeError):
    """Options or players a game cannot be created with."""

    code, status = "malformed", 400

    def __init__(self, detail: str, field: str = "options", **extra):
        super().__init__(detail, field=field, **extra)


class IllegalMove(RefereeError):
    """A well-formed move the rules do not allow now. ``rule`` is a short slug
    naming the rule broken (``follow-suit``, ``no-moves-left``...), documented in
    the game's docs page."""

    code, status = "illegal-move", 422

    def __init__(self, rule: str, detail: str, **extra):
        super().__init__(detail, rule=rule, **extra)
        self.rule = rule


class NotYourTurn(RefereeError):
    code, status = "not-your-turn", 403


class GameOver(RefereeError):
    code, status = "game-over", 409


# ---- refusals of the caller and of the log (the service's) ----------------------------

class NoSuchGame(RefereeError):
    code, status = "no-such-game", 404


class Unauthenticated(RefereeError):
    code, status = "unauthenticated", 401


class NotYourSeat(RefereeError):
    code, status = "not-your-seat", 403


class VersionConflict(RefereeError):
    code, status = "version-conflict", 409


class IdempotencyMismatch(RefereeError):
    code, status = "idempotency-key-reused", 422


class Forbidden(RefereeError):
    code, status = "forbidden", 403


class GameRunning(RefereeError):
    """What only the end may show (a game of players' export) asked for while it runs."""

    code, status = "game-running", 409

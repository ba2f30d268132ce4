"""Receipts of what the service appends: signed by what the referee was put
together with (``referee.system.assemble`` hands ``GameService`` its
``receipts``: referee/trust/receipts.py), never named here. A bare service signs
nothing, and its answers carry no receipt."""

from __future__ import annotations

from referee.caller import Caller
from referee.errors import MalformedMove, RefereeError
from referee.service.shared import MAX_VERSION


class Unsigned(RefereeError):
    """A referee put together without receipts has none to give."""

    code, status = "not-found", 404


class Receipting:
    """GameService's part that adds receipts to answers (see __init__.py); its
    ``receipts`` (``Receipts.of(game_id, event)``) is set by ``GameService``."""

    def receipted(self, answer: dict, game_id: str, event) -> dict:
        """``answer`` with the receipt of ``event`` (the last the request wrote),
        signed once for the request; as it was when nothing signs."""
        if self.receipts is not None:
            answer["receipt"] = self.receipts.of(game_id, event)
        return answer

    def receipt(self, game_id: str, caller: Caller, seq) -> dict:
        """The receipt of event ``seq``: every caller may read every event (redacted
        for it: its hash, its time), so every caller may have its receipt."""
        if self.receipts is None:
            raise Unsigned("this referee signs no receipts")
        if caller.record is None or caller.record.id != game_id:
            self.record(game_id)  # NoSuchGame
        found = (self.store.events(game_id, after=seq - 1, limit=1)
                 if isinstance(seq, int) and not isinstance(seq, bool) and 1 <= seq <= MAX_VERSION else [])
        if not found:
            raise MalformedMove(f"seq must be an event number from 1 to {self.store.version(game_id)}",
                                field="seq")
        return self.receipts.of(game_id, found[0])

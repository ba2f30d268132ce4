"""Votes, disputes and rulings in words, one line an event, seats by number
(``narration.named`` gives them names): for the log in words, pages and notices."""

from __future__ import annotations

_PROPOSED = {"draw": "a draw", "cancel": "to cancel the game", "pause": "to pause the clocks",
             "resume": "to start the clocks again"}


def words(ev) -> str | None:
    """One line for each of these events, seats by number (``narration.named``
    gives them names); None for any other event."""
    p = ev.payload if isinstance(ev.payload, dict) else {}
    if ev.type == "vote-opened":
        return f"seat {ev.actor} proposes {_PROPOSED.get(p.get('proposal'), p.get('proposal'))} (vote {ev.seq})"
    if ev.type == "voted":
        return f"seat {ev.actor} votes {'yes' if p.get('yes') else 'no'} (vote {p.get('vote')})"
    if ev.type == "vote-carried":
        then = {"draw": "the game is drawn", "cancel": "the game is cancelled, unrated",
                "pause": "the clocks stop", "resume": "the clocks start again"}.get(p.get("proposal"), "")
        return f"vote {p.get('vote')} carried: {then}"
    if ev.type == "vote-failed":
        return f"vote {p.get('vote')} failed: {p.get('reason', '')}"
    if ev.type == "dispute-opened":
        about = f"event {p['seq']}" if p.get("seq") else "the game as a whole"
        return f"seat {p.get('by')} disputes {about} (dispute {p.get('dispute')}): \u201c{p.get('text')}\u201d"
    if ev.type == "ruled":
        return f"the organiser rules on dispute {p.get('dispute')}: {decision_words(p.get('decision'))}" \
               f" \u2014 \u201c{p.get('text')}\u201d"
    return None


def decision_words(decision) -> str:
    d = decision if isinstance(decision, dict) else {}
    kind = d.get("kind")
    if kind == "dismiss":
        return "dismissed, play goes on"
    if kind == "take-back":
        return f"taken back to the position after event {d.get('to')}"
    if kind == "void":
        return "the game is void, without a result, unrated"
    if kind == "award":
        winners = d.get("winners") or []
        return "awarded to " + (f"seat {winners[0]}" if len(winners) == 1
                                else "seats " + ", ".join(map(str, winners[:-1])) + f" and {winners[-1]}")
    if kind == "extend":
        return f"seat {d.get('seat')} gets {_time(d.get('seconds'))} more on the clock"
    return str(kind)


def _time(seconds) -> str:
    """"1 hour", "90 seconds", "2 days 3 hours": the largest two units that are whole."""
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 1:
        return f"{seconds} seconds"
    parts = []
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {unit}{'' if n == 1 else 's'}")
    return " ".join(parts[:2])

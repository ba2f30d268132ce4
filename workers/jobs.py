"""The referee's background jobs. Each one re-reads the log and acts only if its
step is still due, so duplicates and retries are harmless."""

from __future__ import annotations

_service = None


def service():
    """The service of this worker process, configured from REFEREE_STORE/REFEREE_QUEUE."""
    global _service
    if _service is None:
        from referee.config import build_service

        _service = build_service()
    return _service


def settle(game_id: str) -> int:
    """Deal, score a hand, end the game, reveal the seed: whatever is due."""
    from referee import logs

    with logs.job("settle", game_id, mode="rq") as line:
        line["appended"] = service().settle(game_id)
    return line["appended"]


def notices(game_id: str) -> int:
    """Write the notices the game's log makes due into the outbox."""
    from referee import logs
    from referee.mail import outbox

    with logs.job("notices", game_id, mode="rq") as line:
        line["queued"] = len(outbox.sweep(service(), game_id))
    return line["queued"]


def tick(game_id: str) -> dict:
    """Fire a game's due reminder or timeout (referee/timeouts.py)."""
    from referee import logs, timeouts

    svc = service()
    try:
        with logs.job("tick", game_id, mode="rq") as line:
            line.update(timeouts.tick(svc, game_id))
    finally:  # the keeper may queue this game's next tick at once
        svc.queue.redis.delete(f"{{g:{game_id}}}:tick")
    return line

"""The referee's background jobs. Each one re-reads the log and acts only if its
step is still due, so duplicates and retries are harmless."""

from __future__ import annotations

_service = None


def service():
    """The service of this worker process, configured from REFEREE_STORE/REFEREE_QUEUE."""
    global _service
    if _service is None:
        from referee import system

        _service = system.build()
    return _service


def settle(game_id: str) -> int:
    """Deal, score a hand, end the game, reveal the seed: whatever is due."""
    from referee import logs

    with logs.job("settle", game_id, mode="rq") as line:
        line["appended"] = service().settle(game_id)
    return line["appended"]


def run(kind: str, game_id: str):
    """A reaction's job of ``kind`` (registered in referee/system.py) for a game."""
    from referee import queue

    svc = service()
    k = svc.queue.kind(kind)
    try:
        line = queue.run_job(k, svc, game_id, "rq")
    finally:  # one waiting job at a time per game: the next may be queued now
        if k.once_within is not None:
            svc.queue.redis.delete(queue.once_key(kind, game_id))
    return line


# Jobs queued by name before reactions had kinds: run as the kinds they are now.
def notices(game_id: str):
    return run("notices", game_id)


def tick(game_id: str):
    return run("tick", game_id)

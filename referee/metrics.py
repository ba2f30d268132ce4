"""Prometheus metrics (prometheus_client: the standard exposition, and gunicorn's
multi-process mode when PROMETHEUS_MULTIPROC_DIR is set)."""

import functools

from prometheus_client import Counter, Histogram

moves = Counter("referee_moves_accepted_total", "Moves accepted", ["game"])
refusals = Counter("referee_refusals_total", "Requests refused", ["code"])
requests = Histogram("referee_request_seconds", "Time to answer a request", ["endpoint"])
games_created = Counter("referee_games_created_total", "Games created", ["game"])


@functools.lru_cache(maxsize=256)
def labelled(metric, value: str):
    """``metric.labels(value)``, kept: the lookup takes a lock and builds a key each
    time, on every move. (A child made before gunicorn forks still counts in the
    worker that uses it: prometheus_client notices the new process id.)"""
    return metric.labels(value)

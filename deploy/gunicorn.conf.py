# gunicorn -c deploy/gunicorn.conf.py 'referee.wsgi:app'
# The store and queue come from REFEREE_STORE / REFEREE_QUEUE (docs/running.md).
import multiprocessing
import os
import tempfile

bind = os.environ.get("REFEREE_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("REFEREE_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
worker_class = "gthread"
threads = int(os.environ.get("REFEREE_THREADS", 8))
timeout = 30
graceful_timeout = 20
# The app writes one JSON line per request itself (referee/logs.py; off with
# REFEREE_ACCESS_LOG=0); gunicorn's own access log would repeat it.
accesslog = None
errorlog = "-"
# gunicorn's control socket (gunicornc, from 25.1) is one path per user by default
# ($XDG_RUNTIME_DIR/gunicorn.ctl), which every instance on the host would share: a
# second instance takes it from the first, and a command meant for one reaches the
# other. The referee needs none (systemd's signals reload and stop it): off.
control_socket_disable = True

# REFEREE_PIN_WORKERS=1: each worker kept on one CPU of its own, in turn (as
# `referee serve --pin-workers`; docs/scaling.md says when it pays).
# Read here, not through referee.cli, so the server's own process imports nothing
# of the referee unless pinning is asked for.
if os.environ.get("REFEREE_PIN_WORKERS", "0").lower() in ("1", "true", "yes", "on"):
    from referee.cli import pin_worker as post_fork  # noqa: F401  (gunicorn's hook, by its name)

# /metrics must add up every worker process: prometheus_client's multi-process
# mode, chosen before the app (and so prometheus_client) is imported in a worker.
# An operator may point PROMETHEUS_MULTIPROC_DIR at a folder of their own; it is
# emptied at start, as prometheus_client requires.
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="referee-metrics-")


def on_starting(server):
    folder = os.environ["PROMETHEUS_MULTIPROC_DIR"]
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.endswith(".db"):
            os.remove(os.path.join(folder, name))


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_worker_init(worker):
    # Long polls (referee/follow.py) end at once when the worker is asked to stop.
    from referee import follow

    follow.on_worker_start(worker)

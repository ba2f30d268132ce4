# gunicorn -c deploy/gunicorn.conf.py 'referee.wsgi:app'
# The store and queue come from REFEREE_STORE / REFEREE_QUEUE.
import multiprocessing
import os

bind = os.environ.get("REFEREE_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("REFEREE_WORKERS", min(4, multiprocessing.cpu_count() * 2)))
worker_class = "gthread"
threads = 8
timeout = 30
graceful_timeout = 20
accesslog = "-"
# Metrics from every worker process: point PROMETHEUS_MULTIPROC_DIR at an empty
# folder that exists before gunicorn starts.


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

"""gunicorn settings for the echo kept on one CPU, as `referee serve --pin-workers`
keeps each of its processes (benchmarks/run.py compares the two pinned)."""

from referee.cli import pin_worker as post_fork  # noqa: F401  (gunicorn's hook, by its name)

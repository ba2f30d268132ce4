"""The referee as `referee serve` builds it (referee.system.build, the API app with
the move lane), signing receipts or, with ``REFEREE_BENCH_UNSIGNED=1``, not: the
two sides of benchmarks/receipts.py, served by the same gunicorn set-up."""

import os

from referee.api import create_app
from referee.system import build

service = build()
if os.environ.get("REFEREE_BENCH_UNSIGNED") == "1":
    service.receipts = None  # a referee that signs nothing: its answers carry no receipt
app = create_app(service)

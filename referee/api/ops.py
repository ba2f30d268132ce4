"""Liveness, metrics and the offline API docs."""

from __future__ import annotations

import os

from flask import Blueprint, Response, current_app, send_from_directory
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

ops = Blueprint("ops", __name__)


@ops.get("/healthz")
def healthz():
    from referee.store import StoreUnavailable

    try:
        ok = current_app.extensions["referee"].store.ping()
    except StoreUnavailable:
        ok = False
    if ok:
        return {"status": "ok"}
    return {"status": "store unreachable"}, 503, {"Retry-After": "5"}


@ops.get("/metrics")
def metrics():
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        data = generate_latest(registry)
    else:
        data = generate_latest()
    return Response(data, mimetype=CONTENT_TYPE_LATEST)


@ops.get("/docs-assets/<path:name>")
def docs_assets(name):
    # Swagger UI's files come from the swagger-ui-bundle package, so /docs works
    # with no network at all.
    import swagger_ui_bundle

    return send_from_directory(swagger_ui_bundle.swagger_ui_path, name)

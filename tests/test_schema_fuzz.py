"""Property-based fuzzing of the whole API from its own OpenAPI document
(schemathesis): whatever a client sends, never a 5xx, every answer as documented
(status, media type, body schema), and a refused request changes nothing.

Requests are aimed at live games of every kind, as a seat, the admin or nobody,
so the fuzzer reaches the rules and not only 404s. Bounded to about a minute;
`python benchmarks/fuzz_campaign.py` runs a long campaign on demand."""

from __future__ import annotations

import os
import random
import tempfile

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from referee import follow
from referee.api import create_app
from referee.games.base import ADMIN
from referee.service import Caller
from referee.store.sqlite import SqliteStore
from referee.system import assemble

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
EXAMPLES = int(os.environ.get("REFEREE_FUZZ_EXAMPLES", "100"))
# The long campaign (benchmarks/fuzz_campaign.py) asks for a tally of what was sent.
TALLY: dict[str, dict[str, int]] = {}

LIVE = [("king-of-danger", ["Ann", "Bob", "Cy"]), ("castle-danger", ["Ann", "Bob"]),
        ("king-of-the-castle", ["Ann", "Bob", "Cy"]), ("kings-keys", ["Ann", "Bob", "Cy"])]


def build():
    folder = tempfile.mkdtemp(prefix="referee-fuzz-")
    service = assemble(SqliteStore(f"/{folder}/fuzz.db"))
    os.environ.setdefault("REFEREE_MOVE_RATE", "100000/minute")  # the fuzzer is no flood
    os.environ.setdefault("REFEREE_AUTH_FAIL_RATE", "100000/minute")
    os.environ.setdefault("REFEREE_AUDIT_RATE", "100000/minute")
    app = create_app(service)
    # Long polls (`events?wait=S`) are held a moment at most, so generated waits keep the run short.
    app.extensions["referee-waiters"] = follow.Waiters(longest=0.02)
    games = []
    for game, players in LIVE:
        created = service.create(game, players, {"seed": f"fuzz-{game}"})
        tokens = [s["token"] for s in created["seats"]] + [created["admin_token"], None]
        games.append((created["id"], tokens))
    return service, app, games


SERVICE, APP, GAMES = build()


schema = schemathesis.openapi.from_wsgi("/openapi.json", APP)


def log_of(game_id: str) -> list[str]:
    return SERVICE.store.raw_events(game_id)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=list(HealthCheck))
def test_the_api_holds_against_generated_requests(case):
    rnd = random.Random(case.id if hasattr(case, "id") else repr(case))
    target = None
    if "game_id" in (case.path_parameters or {}):
        if rnd.random() < 0.9:
            target, tokens = rnd.choice(GAMES)
            case.path_parameters["game_id"] = target
            token = rnd.choice(tokens)
            case.headers = dict(case.headers or {})
            if token is not None:
                case.headers["Authorization"] = f"Bearer {token}"
    before = log_of(target) if target else None
    row = TALLY.setdefault(f"{case.method} {case.path}", {"requests": 0, "5xx": 0, "changed": 0})
    row["requests"] += 1
    response = case.call()
    row["5xx"] += response.status_code >= 500
    if target and response.status_code >= 400 and log_of(target) != before:
        row["changed"] += 1
        raise AssertionError(f"a refused {case.method} {case.path} changed the log")
    if TALLY_FILE and sum(r["requests"] for r in TALLY.values()) % 50 == 0:
        save_tally()  # a campaign cut short still reports what it sent
    case.validate_response(response, checks=CHECKS)


def test_the_live_games_are_still_sound():
    """Whatever the fuzzer did to them, every live game's log still audits."""
    from referee.audit import audit

    for game_id, _ in GAMES:
        assert audit(SERVICE.export(game_id, Caller(ADMIN)))["valid"]


TALLY_FILE = os.environ.get("REFEREE_FUZZ_TALLY")


def save_tally():
    import json

    with open(TALLY_FILE + ".part", "w") as fh:
        json.dump(TALLY, fh, indent=1, sort_keys=True)
    os.replace(TALLY_FILE + ".part", TALLY_FILE)


@pytest.fixture(scope="module", autouse=True)
def _tally():
    yield
    if TALLY_FILE:
        save_tally()


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

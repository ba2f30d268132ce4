"""The OpenAPI document through the JavaScript tools clients are made with.

Redocly's recommended lint finds no error in the served document; and a strict
TypeScript client (tests/typescript/play_a_game.ts), typed only by what
openapi-typescript generates from the document and calling through openapi-fetch,
compiles with `tsc --strict` without a single cast, then plays a whole game
against a live server, exports it and audits it.

The tools come from the npm registry at test time, at the versions pinned below,
into a temporary folder (nothing of them is kept in the project). Skipped only
where npm is not installed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

NPM = shutil.which("npm")
pytestmark = pytest.mark.skipif(NPM is None, reason="npm is not installed (node's package manager)")

TOOLS = ["@redocly/cli@2.77.0", "openapi-typescript@7.13.0", "openapi-fetch@0.17.0",
         "typescript@5.9.3", "@types/node@20"]
SCRIPT = Path(__file__).parent / "typescript" / "play_a_game.ts"
QUIET = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
         "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false", "npm_config_fund": "false",
         "npm_config_audit": "false"}
# The only warnings of the recommended rules left: the operational endpoints give
# no 4xx answer (there is none they can give).
OPS = {"/healthz", "/metrics", "/openapi.json", "/docs"}


def run(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=QUIET, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    from referee.api import create_app
    from referee.service import GameService
    from referee.store.sqlite import SqliteStore

    folder = tmp_path_factory.mktemp("ts-server")
    http = make_server("127.0.0.1", 0, create_app(GameService(SqliteStore(f"/{folder}/referee.db"))),
                       threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    quiet = logging.getLogger("werkzeug")
    level, _ = quiet.level, quiet.setLevel(logging.WARNING)
    yield f"http://127.0.0.1:{http.server_port}"
    quiet.setLevel(level)
    http.shutdown()


@pytest.fixture(scope="module")
def tools(tmp_path_factory, server):
    """A folder with the tools installed and the served document in it."""
    import httpx

    folder = tmp_path_factory.mktemp("ts")
    (folder / "package.json").write_text(json.dumps({"private": True, "type": "module"}))
    run([NPM, "install", "--no-save", *TOOLS], folder, timeout=600)
    (folder / "openapi.json").write_text(httpx.get(f"{server}/openapi.json").text)
    return folder


def test_the_recommended_lint_finds_no_error(tools):
    # exits non-zero on an error; warnings are listed in the JSON
    found = json.loads(run(["node_modules/.bin/redocly", "lint", "--extends=recommended",
                            "--format=json", "openapi.json"], tools).stdout)
    assert found["totals"]["errors"] == 0, found
    left = [(p["ruleId"], p["location"][0]["pointer"]) for p in found["problems"]]
    assert all(rule == "operation-4xx-response" and any(f"/{op.replace('/', '~1')}/" in where for op in OPS)
               for rule, where in left), left


def test_no_cast_in_the_typescript_client():
    text = SCRIPT.read_text()
    code = re.sub(r"//.*", "", text)
    assert not re.search(r"\bas\s+(?!const\b)[A-Za-z_{(\[]|<any>|:\s*any\b|@ts-|\!\.", code), \
        "the client must compile on the generated types alone"


def test_a_strict_typescript_client_compiles_and_plays_a_whole_game(tools, server):
    shutil.copy(SCRIPT, tools / SCRIPT.name)
    run(["node_modules/.bin/openapi-typescript", "openapi.json", "-o", "api.d.ts"], tools)
    run(["node_modules/.bin/tsc", "--strict", "--target", "es2022", "--module", "nodenext",
         "--moduleResolution", "nodenext", "--types", "node", SCRIPT.name], tools)
    played = json.loads(run(["node", SCRIPT.name.replace(".ts", ".js"), server], tools).stdout)
    assert played["moves"] > 10 and played["audit"] == "verified", played
    assert played["version"] > played["moves"] and played["referee"] > 0, played

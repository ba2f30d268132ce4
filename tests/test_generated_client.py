"""A client generated from the served /openapi.json plays whole games.

openapi-python-client (from PyPI, in the `test` extra) generates a Python client
from the document the server serves; the generator must say nothing (a warning
is a piece of the API left out). The client then plays a whole game of each kind
against a real server over HTTP: every answer it reads must give back exactly the
JSON the server sent when dumped again (so no field is dropped or changed on the
way), every legal move must do the same, each move is sent as the client's own
model with the `expected_version` of the answer before it, and the game's export
and audit go through the client too. The next mismatch between the document and
the server fails here.
"""

from __future__ import annotations

import importlib
import io
import json
import logging
import random
import subprocess
import sys
import threading

import pytest

PACKAGE = "castle_referee_client"  # from the document's title, castle-referee

GAMES = [("king-of-danger", 3, {"target": 12}),
         ("castle-danger", 2, {"variant": "hidden-danger", "turn_limit": 6}),
         ("king-of-the-castle", 3, {"squires": "choose"}),
         ("kings-keys", 3, {"wild_cards": True})]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store.sqlite import SqliteStore
    from referee.system import assemble

    folder = tmp_path_factory.mktemp("client")
    service = assemble(SqliteStore(f"/{folder}/referee.db"), InlineQueue())  # receipts and all
    http = make_server("127.0.0.1", 0, create_app(service), threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    quiet = logging.getLogger("werkzeug")
    level, _ = quiet.level, quiet.setLevel(logging.WARNING)  # a line per request is noise here
    yield f"http://127.0.0.1:{http.server_port}", service
    quiet.setLevel(level)
    http.shutdown()


@pytest.fixture(scope="module")
def client_package(server, tmp_path_factory):
    """The generated package, imported; generated from the document as served."""
    import httpx

    base, _ = server
    folder = tmp_path_factory.mktemp("generated")
    document = folder / "openapi.json"
    document.write_text(httpx.get(f"{base}/openapi.json").text)
    config = folder / "config.json"  # (YAML reads JSON) no formatting of the output: not needed
    config.write_text(json.dumps({"post_hooks": []}))
    out = folder / "client"
    run = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document),
                          "--output-path", str(out), "--config", str(config), "--meta", "none"],
                         capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert run.returncode == 0, said
    assert "warning" not in said.lower(), said
    sys.path.insert(0, str(folder))
    out.rename(folder / PACKAGE)
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


class Api:
    """The generated modules at hand, and the checks every answer passes."""

    def __init__(self, package, base: str):
        self.m = importlib.import_module(f"{PACKAGE}.models")
        self.games = importlib.import_module(f"{PACKAGE}.api.games")
        self.watching = importlib.import_module(f"{PACKAGE}.api.watching")
        self.types = importlib.import_module(f"{PACKAGE}.types")
        self.base, self.package = base, package
        self.nobody = package.Client(base_url=base, raise_on_unexpected_status=True)

    def op(self, name: str):
        for group in (self.games, self.watching):
            try:
                return importlib.import_module(f"{group.__name__}.{name}")
            except ImportError:
                continue
        raise AssertionError(f"the generated client has no operation {name}")

    def token(self, token: str):
        return self.package.AuthenticatedClient(base_url=self.base, token=token, raise_on_unexpected_status=True)

    def call(self, name: str, status: int = 200, **kw):
        """An operation's parsed answer, checked to dump back to the very JSON sent."""
        response = self.op(name).sync_detailed(**kw)
        assert response.status_code == status, (name, response.status_code, response.content[:300])
        parsed = response.parsed
        if hasattr(parsed, "to_dict"):
            assert parsed.to_dict() == json.loads(response.content), name
        return parsed


def play(api: Api, game: str, players: int, options: dict, rnd: random.Random) -> dict:
    m = api.m
    body = m.CreateGame(game=m.GameKind(game), players=[f"p{i}" for i in range(players)],
                        options=m.NewGameOptions.from_dict(options))
    created = api.call("create_game", 201, client=api.nobody, body=body)
    gid = created.id
    seats = {s.seat: api.token(s.token) for s in created.seats}
    admin = api.token(created.admin_token)
    version = created.version  # the version the next move must name: kept from each answer
    moves = 0
    while True:
        summary = api.call("get_game", client=api.nobody, game_id=gid)
        assert summary.version == version, "an answer's version is not the game's"
        if summary.status in (m.GameStatus.FINISHED, m.GameStatus.ABORTED):
            break
        assert summary.status == m.GameStatus.ACTIVE
        seat = rnd.choice(summary.to_act)
        legal = api.call("get_legal_moves", client=seats[seat], game_id=gid)
        # (each move dumps back to what the server listed: checked with the whole answer)
        choices = [mv for mv in legal.moves if mv.type_.value != "resign"]
        plain = [mv for mv in choices if mv.type_.value not in ("offer-draw", "take-back")]
        if plain and rnd.random() < 0.97:
            choices = plain
        move = rnd.choice(choices)
        answer = api.call("submit_moves", 201, client=seats[seat], game_id=gid,
                          body=m.SingleMove(move=move, expected_version=version))
        assert answer.events and answer.events[0].actor == seat
        version, moves = answer.version, moves + 1
    assert moves > 10
    for who in (seats[0], api.nobody, admin):
        api.call("get_view", client=who, game_id=gid)
        api.call("get_log", client=who, game_id=gid, limit=1000)
    events = api.call("get_events", client=api.nobody, game_id=gid, limit=1000)
    assert [e.seq for e in events.events] == list(range(1, version + 1))
    picture = api.call("get_board_svg", client=seats[0], game_id=gid)
    svg = picture.payload.read()
    assert b"<svg" in svg and svg.rstrip().endswith(b"</svg>")
    exported = api.call("export_game", client=admin, game_id=gid).payload.read()
    assert len(exported.splitlines()) == version
    report = api.call("audit_log", client=api.nobody,
                      body=api.types.File(payload=io.BytesIO(exported)))
    assert report.valid and report.status == m.GameStatus.FINISHED and report.first_error is None
    return {"moves": moves, "version": version}


@pytest.mark.parametrize(("game", "players", "options"), GAMES, ids=[g[0] for g in GAMES])
def test_a_generated_client_plays_a_whole_game(server, client_package, game, players, options):
    api = Api(client_package, server[0])
    play(api, game, players, options, random.Random(f"client-{game}"))


def test_a_generated_client_aborts_and_audits(server, client_package):
    """An abort through the client: its answer's version is the game's (the seed's
    reveal that follows is counted), and the log audits as aborted."""
    api = Api(client_package, server[0])
    m = api.m
    created = api.call("create_game", 201, client=api.nobody,
                       body=m.CreateGame(game=m.GameKind.KING_OF_DANGER, players=["a", "b"]))
    admin = api.token(created.admin_token)
    done = api.call("abort_game", 201, client=admin, game_id=created.id)
    summary = api.call("get_game", client=api.nobody, game_id=created.id)
    assert (done.version, done.status) == (summary.version, summary.status) == (4, m.GameStatus.ABORTED)
    exported = api.call("export_game", client=api.nobody, game_id=created.id).payload.read()
    report = api.call("audit_log", client=api.nobody, body=api.types.File(payload=io.BytesIO(exported)))
    assert report.valid and report.status == m.GameStatus.ABORTED

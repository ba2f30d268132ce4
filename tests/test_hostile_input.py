"""Hostile bodies: integers too long for Python to read, audit lines nested past
any parser, and bodies over their cap sent in chunks. Each gets a clear 4xx (or,
for an audit, its report) and changes nothing."""

from __future__ import annotations

import io
import json
import select
import socket
import threading

import pytest

from referee.leagues.bundle import export
from tests.helpers import Game
from tests.leagues.helpers import Run, players

BIG = "9" * 5000  # Python reads no integer of more than 4,300 digits from text
MiB = 1024 * 1024


@pytest.fixture
def kod(client):
    return Game(client, "king-of-danger", 3, {"seed": "numbers"})


def raw(client, method: str, path: str, text: str, auth: dict | None = None):
    return client.open(path, method=method, data=text.encode(),
                       headers={"Content-Type": "application/json", **(auth or {})})


# ---- integers of more than 4,300 digits ----------------------------------------------------

def test_an_integer_too_long_to_read_is_400_naming_its_field_wherever_it_is(client, kod):
    seat = kod.summary()["to_act"][0]
    game = f"/v1/games/{kod.id}"
    cases = [  # (method, path, body with <N> for the long number, who, the field named)
        ("POST", f"{game}/moves", '{"text": "resign", "expected_version": <N>}', seat, "expected_version"),
        ("POST", f"{game}/moves", '{"text": "resign", "expected_version": -<N>}', seat, "expected_version"),
        ("POST", f"{game}/moves", '{"move": {"type": "play", "card": <N>}}', seat, "move.card"),
        ("POST", f"{game}/moves", '{"moves": [{"type": "resign"}, {"n": <N>}]}', seat, "moves[1].n"),
        ("POST", "/v1/games", '{"game": "kings-keys", "players": ["a", "b", "c"], "options": {"target": <N>}}',
         None, "options.target"),
        ("POST", "/v1/games", '{"game": "kings-keys", "players": ["a", "b", "c"], "options": {"seed": <N>}}',
         None, "options.seed"),
        ("POST", "/v1/games", '{"game": "kings-keys", "players": ["a", <N>, "c"]}', None, "players[1]"),
        ("POST", f"{game}/clock", '{"clock": {"move_seconds": <N>}}', "admin", "clock.move_seconds"),
        ("POST", f"{game}/abort", '{"reason": <N>}', "admin", "reason"),
        ("PUT", f"{game}/contacts/0", '{"email": <N>}', "admin", "email"),
        ("PUT", f"{game}/spectators", '{"webhook": <N>}', "admin", "webhook"),
        ("POST", f"{game}/seats/0/replace", '{"name": <N>}', "admin", "name"),
        # a path's number: past any seat
        ("PUT", f"{game}/contacts/{BIG}", '{"email": "a@example.org"}', "admin", "seat"),
        ("POST", f"{game}/seats/{BIG}/replace", '{"name": "Di"}', "admin", "seat"),
        # not JSON after the long number: a bad body, as any other
        ("POST", "/v1/games", '{"game": "kings-keys", "players": [<N>, "b", "c"], x', None, "body"),
    ]
    before, games = kod.export(), client.get("/v1/games").json["games"]
    for method, path, body, who, field in cases:
        r = raw(client, method, path, body.replace("<N>", BIG), kod.auth(who))
        assert r.status_code == 400, (path, field, r.get_data()[:300])
        assert r.mimetype == "application/problem+json"
        assert r.json["code"] == "malformed" and r.json["field"] == field, (field, r.json)
    assert kod.export() == before
    assert client.get("/v1/games").json["games"] == games
    assert kod.get("/contacts", "admin").json["contacts"][0]["email"] is None


def test_an_integer_too_long_to_read_in_a_query_or_a_mail_is_a_4xx(client, kod):
    for path, field in ((f"/view?at={BIG}", "at"), (f"/events?after={BIG}", "after"),
                        (f"/log?after={BIG}", "after"), (f"/board.svg?at={BIG}", "at")):
        r = client.get(f"/v1/games/{kod.id}{path}", headers=kod.auth(0))
        assert r.status_code == 400 and r.json["field"] == field, (path, r.get_data()[:200])
    mail = (f"From: ann@example.org\r\nTo: referee+{kod.id}@x.org\r\nSubject: move\r\n"
            f"Message-ID: <long@x>\r\n\r\ntoken: {kod.tokens[0]}\r\n#{BIG}\r\nresign\r\n").encode()
    before = kod.export()
    r = client.post("/v1/inbound/email", data=mail, content_type="message/rfc822")
    assert 400 <= r.status_code < 500, r.get_data()[:300]
    assert kod.export() == before


def test_an_audit_line_with_a_long_integer_or_deep_nesting_is_a_report(client, kod):
    lines = kod.export().splitlines()
    for bad in ('{"seq": ' + BIG + "}", "[" * 2000 + "]" * 2000, '{"a":' * 50000 + "1" + "}" * 50000):
        r = client.post("/v1/audit", data="\n".join(lines[:1] + [bad] + lines[1:]) + "\n",
                        content_type="application/jsonl")
        assert r.status_code == 200, r.get_data()[:300]
        assert r.json["valid"] is False
        assert r.json["first_error"]["code"] == "malformed" and r.json["first_error"]["seq"] == 2


DEEP = {  # lines nested past any parser: a bundle's line as the reviewer sent it, an object, an array
    "bundle line": '{"log":"league","event":' + "[" * 200_000,
    "object": '{"a":' * 50_000 + "1" + "}" * 50_000,
    "array": "[" * 2000 + "]" * 2000,
    # the usual bundle line around a deep event: read by cutting first (leagues/bundle.py)
    "usual bundle line": '{"event":' + '{"a":' * 50_000 + "1" + "}" * 50_000 + ',"log":"league"}',
}


@pytest.mark.parametrize("shape", DEEP)
def test_an_audit_whose_first_or_bundle_line_nests_past_any_parser_is_a_report_naming_it(client, kod, shape):
    """Whether the export is a league's bundle is told from its first line: that
    reading, too, meets a line nested past the parser (it was a 500)."""
    deep = DEEP[shape]
    r = client.post("/v1/audit", data="\n".join([deep] + kod.export().splitlines()[1:]) + "\n",
                    content_type="application/jsonl")
    assert r.status_code == 200, r.get_data()[:300]
    assert r.json["valid"] is False and r.json["first_error"] == {
        "seq": 1, "code": "malformed", "detail": "line 1 nests too deeply to be an event"}
    league = Run(name="L", game="castle-danger", format="round-robin", players=players(2))
    r = client.post("/v1/audit", data=export(league.events, {}) + deep + "\n",
                    content_type="application/jsonl")
    assert r.status_code == 200, r.get_data()[:300]
    assert r.json["valid"] is False and r.json["first_error"] == {
        "where": "bundle line 2", "code": "malformed",
        "detail": "bundle line 2 nests too deeply to be a bundle line"}


# ---- bodies over their cap, sent in chunks ---------------------------------------------------

class Endless(io.RawIOBase):
    """A request body that never ends (as a server hands on a chunked one),
    counting what is read of it."""

    def __init__(self, byte: bytes = b" "):
        self.byte, self.read_bytes = byte, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        b[:] = self.byte * len(b)
        self.read_bytes += len(b)
        return len(b)


def chunked_environ(stream) -> dict:
    # what gunicorn and werkzeug's server hand on for Transfer-Encoding: chunked:
    # no CONTENT_LENGTH, the stream de-chunked and ended by the server
    return {"wsgi.input": stream, "wsgi.input_terminated": True}


@pytest.mark.parametrize("path, content_type, cap", [("/v1/games", "application/json", MiB),
                                                     ("/v1/audit", "application/jsonl", 16 * MiB)])
def test_a_chunked_body_over_its_cap_is_413_and_read_no_further(client, path, content_type, cap):
    endless = Endless()
    r = client.post(path, headers={"Content-Type": content_type, "Transfer-Encoding": "chunked"},
                    environ_overrides=chunked_environ(endless))
    assert r.status_code == 413 and r.json["code"] == "too-large" and r.json["limit"] == cap
    assert cap < endless.read_bytes <= cap + 64 * 1024  # one piece past the cap, no more
    # the same size with Content-Length: the same answer, nothing read
    r = client.post(path, data=b" " * (cap + 1), content_type=content_type)
    assert r.status_code == 413 and r.json["code"] == "too-large" and r.json["limit"] == cap


def test_a_chunked_body_within_its_cap_is_read_whole(client):
    body = json.dumps({"game": "kings-keys", "players": ["a", "b", "c"], "pad": "x" * (MiB - 100)}).encode()
    assert len(body) < MiB
    r = client.post("/v1/games", headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
                    environ_overrides=chunked_environ(io.BytesIO(body)))
    assert r.status_code == 400 and r.json["field"] == "pad"  # read whole: its last field judged
    body = json.dumps({"game": "kings-keys", "players": ["a", "b", "c"]}).encode()
    r = client.post("/v1/games", headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
                    environ_overrides=chunked_environ(io.BytesIO(body)))
    assert r.status_code == 201


def post_endless_chunks(port: int, path: str, content_type: str, give_up: int,
                        length: int | None = None) -> tuple[int, bytes]:
    """POST a body that goes on (in chunks, or under a Content-Length of ``length``)
    until the server answers; the bytes sent by then and the answer. Small socket
    buffers, so what was sent is close to what the server took in."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
    framing = "Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}"
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: referee\r\nContent-Type: {content_type}\r\n"
                 f"{framing}\r\n\r\n".encode())
    piece = b" " * 65536
    if length is None:
        piece = b"%x\r\n" % len(piece) + piece + b"\r\n"
    sent, left = 0, memoryview(b"")
    sock.setblocking(False)
    while sent < give_up:
        readable, writable, _ = select.select([sock], [sock], [], 30)
        if readable or not writable:
            break  # the answer came (or nothing moves at all)
        left = left or memoryview(piece)
        try:
            n = sock.send(left)
        except OSError:
            break  # the server closed: its answer is in the buffer
        sent, left = sent + n, left[n:]
    sock.setblocking(True)
    answer = b""
    try:
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
            got = sock.recv(65536)
            if not got:
                break
            answer += got
    finally:
        sock.close()
    return sent, answer


def _length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 1 << 62


def _problem(answer: bytes) -> tuple[int, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), json.loads(body)


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    from tests.test_ops import Served

    server = Served(tmp_path_factory.mktemp("chunks"))
    yield server
    server.stop()


@pytest.mark.parametrize("path, content_type, cap", [("/v1/games", "application/json", MiB),
                                                     ("/v1/audit", "application/jsonl", 16 * MiB)])
def test_gunicorn_answers_413_to_an_endless_chunked_body_having_read_little_past_the_cap(
        gunicorn, path, content_type, cap):
    """`referee serve` (gunicorn): a body that never ends is answered 413 once past
    the cap. Had the server read on, the sender would have sent ``give_up`` bytes
    with no answer."""
    give_up = cap + 48 * MiB
    sent, answer = post_endless_chunks(gunicorn.port, path, content_type, give_up)
    status, problem = _problem(answer)
    assert status == 413 and problem["code"] == "too-large" and problem["limit"] == cap
    assert cap < sent < cap + 8 * MiB  # the cap, plus what sits in the sockets' buffers
    sent, answer = post_endless_chunks(gunicorn.port, path, content_type, give_up, length=give_up)
    status, problem = _problem(answer)
    assert status == 413 and problem["code"] == "too-large"
    assert sent < 8 * MiB  # refused on its Content-Length, before its body


def test_the_development_server_answers_413_to_an_endless_chunked_body(service):
    """`referee serve --dev` (werkzeug's server) de-chunks the body itself."""
    from werkzeug.serving import make_server

    from referee.api import create_app

    server = make_server("127.0.0.1", 0, create_app(service), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        sent, answer = post_endless_chunks(server.server_port, "/v1/games", "application/json", 49 * MiB)
    finally:
        server.shutdown()
    status, problem = _problem(answer)
    assert status == 413 and problem["code"] == "too-large" and problem["limit"] == MiB
    assert MiB < sent < 9 * MiB

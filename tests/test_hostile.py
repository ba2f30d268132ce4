"""Bodies and races a hostile or unlucky client can send: each gets a clear 4xx
(or, for a retry, its first answer) and changes nothing."""

from __future__ import annotations

import json
import threading
from email.message import EmailMessage

import pytest

from tests.helpers import Game, limits_count_together

KOD = "king-of-danger"


def raw_post(client, path, text: str, **headers):
    return client.post(path, data=text.encode("utf-8", "surrogatepass"),
                       headers={"Content-Type": "application/json", **headers})


@pytest.fixture
def kod(client):
    return Game(client, KOD, 3, {"seed": "hostile"})


# ---- idempotent retries racing each other ------------------------------------------------

def race(service, game: Game, seat: int, move: dict, key: str, n: int, services=None):
    from referee.api import create_app

    apps = [create_app(s) for s in (services or [service])]
    answers, barrier = [], threading.Barrier(n)

    def one(i):
        client = apps[i % len(apps)].test_client()
        barrier.wait()
        r = client.post(f"/v1/games/{game.id}/moves", json={"move": move},
                        headers={**game.auth(seat), "Idempotency-Key": key})
        answers.append((r.status_code, r.get_data()))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers


def test_fifty_retries_of_one_move_all_get_its_first_answer(client, service, kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    before = kod.summary()["version"]
    answers = race(service, kod, seat, move, "same-move", 50)
    assert len(answers) == 50
    assert {status for status, _ in answers} == {201}, {status for status, _ in answers}
    assert len({body for _, body in answers}) == 1
    written = json.loads(answers[0][1])
    assert kod.summary()["version"] >= written["version"] > before
    assert [e["seq"] for e in written["events"]][0] == before + 1


def test_retries_through_two_services_on_one_store_get_the_first_answer(store, kod, service):
    from referee.queue import InlineQueue
    from referee.system import assemble

    other = assemble(store, InlineQueue())
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    answers = race(service, kod, seat, move, "two-processes", 30, services=[service, other])
    assert {status for status, _ in answers} == {201}
    assert len({body for _, body in answers}) == 1


# ---- bounded batches ---------------------------------------------------------------------

def test_a_batch_over_the_limit_is_refused_and_writes_nothing(client):
    g = Game(client, "king-of-the-castle", 2, {"seed": "flood"})
    before = g.export()
    seat = 0
    flips = [{"type": "standing", "answer": "pass"}] * 65
    r = g.post(seat, {"moves": flips})
    assert r.status_code == 400 and r.json["field"] == "moves"
    r = g.post(seat, {"text": "\n".join(["resign"] * 65)})
    assert r.status_code == 400 and r.json["field"] == "text" and r.json["limit"] == 64
    assert g.export() == before


# ---- bodies that used to be 500s ---------------------------------------------------------

def test_deeply_nested_json_is_400(client, kod):
    before = kod.export()
    seat = kod.summary()["to_act"][0]
    for body in ("[" * 5000 + "]" * 5000, '{"move": ' + "[" * 40 + "]" * 40 + "}",
                 '{"move": {"type": "play", "x": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}}"):
        r = raw_post(client, f"/v1/games/{kod.id}/moves", body, **kod.auth(seat))
        assert r.status_code == 400 and r.json["code"] == "malformed", r.get_data()[:200]
    r = raw_post(client, "/v1/games", '{"game": "kings-keys", "players": ' + "[" * 3000 + "]" * 3000 + "}")
    assert r.status_code == 400
    assert kod.export() == before


def test_a_lone_surrogate_is_400_naming_the_field(client, kod):
    r = raw_post(client, "/v1/games", '{"game": "kings-keys", "players": ["a", "b\\ud800", "c"]}')
    assert r.status_code == 400 and r.json["field"] == "players[1]"
    seat = kod.summary()["to_act"][0]
    before = kod.export()
    r = raw_post(client, f"/v1/games/{kod.id}/moves", '{"text": "W1 \\udfff"}', **kod.auth(seat),
                 **{"Idempotency-Key": "k1"})
    assert r.status_code == 400 and r.json["field"] == "text"
    r = client.post(f"/v1/games/{kod.id}/moves", json={"text": "W1"},
                    headers={**kod.auth(seat), "Idempotency-Key": "caf\xe9 \x01"})
    assert r.status_code == 400 and r.json["field"] == "Idempotency-Key"
    assert kod.export() == before


@pytest.mark.parametrize("query", [{"after": 2**63 + 5}, {"after": 912014607035971928064},
                                   {"after": 2**63 - 2}, {"limit": 2**70}])
def test_numbers_past_any_store_are_400(client, kod, query):
    r = kod.get("/events", **query)
    assert r.status_code == 400 and r.json["field"] == next(iter(query))


def test_positions_and_versions_out_of_range_are_400(client, kod):
    assert kod.get("/view", at=2**64).json["field"] == "at"
    assert kod.get("/view", at=0).status_code == 400
    seat = kod.summary()["to_act"][0]
    r = kod.post(seat, {"text": "W1", "expected_version": 2**63})
    assert r.status_code == 400 and r.json["field"] == "expected_version"


def test_a_405_names_the_methods_allowed(client, kod):
    r = client.delete(f"/v1/games/{kod.id}/moves")
    assert r.status_code == 405 and r.mimetype == "application/problem+json"
    assert set(r.headers["Allow"].replace(" ", "").split(",")) >= {"POST"}
    r = client.put("/v1/games")
    assert r.status_code == 405 and "POST" in r.headers["Allow"]


# ---- mail --------------------------------------------------------------------------------

def mail(to: str, body: str, subtype: str = "plain", charset: str | None = None, msgid="<h1@x>") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"], msg["Message-ID"] = "ann@example.org", to, "move", msgid
    msg.set_content(body, subtype=subtype)
    raw = msg.as_bytes()
    if charset:
        raw = raw.replace(b'charset="utf-8"', f'charset="{charset}"'.encode()).replace(
            b"charset=utf-8", f"charset={charset}".encode())
    return raw


def inbound(client, raw: bytes):
    return client.post("/v1/inbound/email", data=raw, content_type="message/rfc822")


def test_mail_in_an_unknown_charset_is_400(client, kod):
    seat = kod.summary()["to_act"][0]
    raw = mail(f"referee+{kod.id}@x.org", f"token: {kod.tokens[seat]}\nresign\n", charset="x-no-such-charset")
    assert b"x-no-such-charset" in raw
    r = inbound(client, raw)
    assert r.status_code == 400 and r.json["field"] == "body"
    assert kod.summary()["status"] == "active"


def test_two_token_lines_are_ambiguous(client, kod):
    r = inbound(client, mail(f"referee+{kod.id}@x.org", f"token: {kod.tokens[0]}\ntoken: {kod.tokens[1]}\nresign"))
    assert r.status_code == 400 and r.json["field"] == "token"
    assert kod.summary()["status"] == "active"


def test_html_only_mail_is_read_and_its_quote_left_out(client, kod):
    seat = kod.summary()["to_act"][0]
    move = kod.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    markup = (f"<html><head><style>p {{}}</style></head><body><p>token: {kod.tokens[seat]}</p>"
              f"<div>{text}</div><blockquote><p>resign</p></blockquote></body></html>")
    r = inbound(client, mail(f"referee+{kod.id}@x.org", markup, subtype="html"))
    assert r.status_code == 201, r.json
    assert r.json["events"][0]["payload"]["move"] == move
    assert kod.summary()["status"] == "active"


def test_a_version_line_applies_the_moves_only_at_that_version(client, kod):
    seat = kod.summary()["to_act"][0]
    version = kod.summary()["version"]
    move = kod.legal(seat)[0]
    text = "play " + move["card"] + (" " + move["suit"] if "suit" in move else "")
    r = inbound(client, mail(f"referee+{kod.id}@x.org", f"token: {kod.tokens[seat]}\n#{version - 1}\n{text}",
                             msgid="<old@x>"))
    assert r.status_code == 409 and r.json["current_version"] == version
    r = inbound(client, mail(f"referee+{kod.id}@x.org", f"token: {kod.tokens[seat]}\n#{version}\n{text}",
                             msgid="<now@x>"))
    assert r.status_code == 201


# ---- the store going away ------------------------------------------------------------------

def test_while_redis_is_down_the_api_answers_503_and_recovers(tmp_path):
    """A real redis-server, stopped and started again: every request in between is
    a 503 problem+json with Retry-After (never a 500), /healthz says so, and once
    Redis is back the game goes on by itself."""
    from referee.api import create_app
    from referee.config import Config
    from referee.system import build as build_service
    from tests.conftest import RedisServer

    server = RedisServer(tmp_path)
    try:
        client = create_app(build_service(Config.load(server.url, "inline"))).test_client()
        g = Game(client, "kings-keys", 3, {"seed": "outage"})
        server.stop()
        for r in (g.get(""), g.get("/view", 0), g.post(0, {"text": "resign"}),
                  client.post("/v1/games", json={"game": "kings-keys", "players": ["a", "b", "c"]})):
            assert r.status_code == 503, r.get_data()[:300]
            assert r.mimetype == "application/problem+json" and r.json["code"] == "store-unavailable"
            assert r.headers["Retry-After"] == "5"
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json["status"] == "store unreachable"
    finally:
        server.stop()
    restarted = RedisServer.__new__(RedisServer)
    restarted.__dict__.update(server.__dict__)
    restarted.proc = __import__("subprocess").Popen(
        [server.proc.args[0], "--port", str(server.port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path), "--daemonize", "no"],
        stdout=__import__("subprocess").DEVNULL, stderr=__import__("subprocess").DEVNULL)
    try:
        import time

        import redis

        deadline = time.time() + 20
        while True:
            try:
                redis.Redis(port=server.port).ping()
                break
            except redis.ConnectionError:
                assert time.time() < deadline
                time.sleep(0.05)
        assert client.get("/healthz").status_code == 200
        # the store kept nothing on disk (a test server): a new game plays on
        r = client.post("/v1/games", json={"game": "kings-keys", "players": ["a", "b", "c"]})
        assert r.status_code == 201
    finally:
        restarted.stop()


# ---- rate limits ------------------------------------------------------------------------------

@pytest.fixture
def limited(monkeypatch, service):
    from referee.api import create_app

    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    monkeypatch.setenv("REFEREE_AUDIT_RATE", "2/minute")
    monkeypatch.setenv("REFEREE_AUTH_FAIL_RATE", "2/minute")
    return create_app(service).test_client()


def test_moves_are_limited_per_token(limited):
    g = Game(limited, "castle-danger", 2, {"seed": "limits"})
    seat = g.summary()["to_act"][0]
    for text in ("c1-b1", "b1-a1", "a1-a2"):
        assert g.post(seat, {"text": text}).status_code == 201
    before = g.export()
    r = g.post(seat, {"text": "a2-a3"})
    assert r.status_code == 429 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "too-many-requests" and 0 < int(r.headers["Retry-After"]) <= 60
    assert g.export() == before
    # another token has a counter of its own
    assert g.post(1 - seat, {"text": "resign"}).status_code in (201, 403)


def test_audits_are_limited_per_client(limited):
    g = Game(limited, "kings-keys", 3, {"seed": "limits2"})
    export = g.export()
    for _ in range(2):
        assert limited.post("/v1/audit", data=export, content_type="application/jsonl").status_code == 200
    r = limited.post("/v1/audit", data=export, content_type="application/jsonl")
    assert r.status_code == 429 and "Retry-After" in r.headers
    other = limited.post("/v1/audit", data=export, content_type="application/jsonl",
                         environ_base={"REMOTE_ADDR": "192.0.2.7"})
    assert other.status_code == 200


def test_failed_token_checks_are_limited_per_client(limited):
    g = Game(limited, "kings-keys", 3, {"seed": "limits3"})
    bad = {"Authorization": "Bearer guess"}
    for _ in range(2):
        assert limited.get(f"/v1/games/{g.id}/view", headers=bad).status_code == 401
    r = limited.get(f"/v1/games/{g.id}/view", headers=bad)
    assert r.status_code == 429 and r.json["code"] == "too-many-requests"
    # good requests from that address wait too; liveness never does
    assert limited.get(f"/v1/games/{g.id}").status_code == 429
    assert limited.get("/healthz").status_code == 200
    assert limited.get("/openapi.json").status_code == 200


def test_limits_count_together_across_processes_on_redis(monkeypatch, redis_url):
    """Two API processes on one Redis (two apps here): failed token checks in one
    make the other refuse that address too, and a token's moves count in both."""
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    monkeypatch.setenv("REFEREE_AUTH_FAIL_RATE", "2/minute")
    one, two = (create_app(assemble(open_store(redis_url), InlineQueue())).test_client() for _ in range(2))
    limits_count_together(one, two, "limits4")


def test_limits_on_redis_count_on_after_redis_drops_every_connection(monkeypatch, redis_url, caplog):
    """The counters' round trip runs on each thread's own connection: one the
    server dropped is made again, and the request is still counted."""
    import logging

    import redis

    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    monkeypatch.setenv("REFEREE_MOVE_RATE", "3/minute")
    client = create_app(assemble(open_store(redis_url), InlineQueue())).test_client()
    g = Game(client, "castle-danger", 2, {"seed": "limits5"})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201
    admin = redis.Redis.from_url(redis_url)
    with caplog.at_level(logging.WARNING, logger="referee.limits"):
        for text in ("b1-a1", "a1-a2"):
            admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
            assert g.post(seat, {"text": text}).status_code == 201
        admin.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        assert g.post(seat, {"text": "a2-a3"}).status_code == 429
    assert not [r for r in caplog.records if r.name == "referee.limits"]  # never served unlimited


def test_counters_apart_from_the_store_that_never_answer_hold_no_request_up():
    """Counters in a Redis apart from the store's (the queue's) that accepts the
    connection and never answers: the try gives up within its timeout, and for a
    moment after it none is made (the limiter lets such requests through)."""
    import socket

    import redis

    from referee.api.limits import Paused, RedisCounters

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # the kernel accepts; nobody ever reads or answers
        counters = RedisCounters(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
        outcome = []

        def count():
            try:
                counters.step([("k", 60)], [("h", 60)], 0.0)
            except Exception as err:  # noqa: BLE001 - the test looks at what it was
                outcome.append(err)

        trying = threading.Thread(target=count, daemon=True)
        trying.start()
        trying.join(10)  # a bound on a hang, not a measure of speed
        assert not trying.is_alive() and isinstance(outcome[0], redis.RedisError)
        with pytest.raises(Paused):
            counters.step([("k", 60)], [], 0.0)


def test_refused_moves_count_toward_the_limit_too(limited):
    """A move refused by the rules still counts: a client looping bad moves meets
    the limit as one looping good ones does (on Redis, counted after the refusal,
    since the append that would have counted it never runs)."""
    g = Game(limited, "castle-danger", 2, {"seed": "limits6"})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201
    for _ in range(2):
        r = g.post(seat, {"text": "a9-a1"})
        assert 400 <= r.status_code < 500 and r.status_code != 429, r.json
    before = g.export()
    r = g.post(seat, {"text": "b1-a1"})
    assert r.status_code == 429 and r.json["code"] == "too-many-requests"
    assert g.export() == before


def test_an_address_over_its_failed_checks_cannot_move(limited):
    """Failed token checks bar the address from moves too, also once the process
    keeps the game's record and counts the move with its append."""
    g = Game(limited, "castle-danger", 2, {"seed": "limits7"})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201  # the record kept now
    there = {"REMOTE_ADDR": "192.0.2.50"}
    assert limited.post(f"/v1/games/{g.id}/moves", json={"text": "b1-a1"}, headers=g.auth(seat),
                        environ_base=there).status_code == 201  # kept, from that address
    bad = {"Authorization": "Bearer guess"}
    for _ in range(2):
        assert limited.get(f"/v1/games/{g.id}/view", headers=bad, environ_base=there).status_code == 401
    before = g.export()  # (from another address)
    r = limited.post(f"/v1/games/{g.id}/moves", json={"text": "a1-a2"}, headers=g.auth(seat), environ_base=there)
    assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 60
    assert g.export() == before


def _limiter(app):
    from referee.api.limits import Limiter

    return next(f.__self__ for f in app.before_request_funcs[None] if isinstance(getattr(f, "__self__", None), Limiter))


def test_on_redis_a_kept_move_is_counted_by_its_append_once(monkeypatch, redis_url):
    """Where the counters are in the store's Redis and the game's record is kept,
    the move's counters go with its append: no round trip of their own before it,
    one count even when the append loses a race and is decided again, and after a
    429 the flood is refused before its moves are judged."""
    import redis

    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble

    monkeypatch.setenv("REFEREE_MOVE_RATE", "4/minute")
    one, two = (create_app(assemble(open_store(redis_url), InlineQueue())) for _ in range(2))
    g = Game(one.test_client(), "castle-danger", 2, {"seed": "limits8"})
    seat = g.summary()["to_act"][0]
    assert g.post(seat, {"text": "c1-b1"}).status_code == 201  # one keeps the record
    # two rewrites the record (a contact, no move): one's copy is stale, so its next
    # append loses its compare-and-set once and is decided again
    r = two.test_client().put(f"/v1/games/{g.id}/contacts/{seat}", json={"email": "p@example.org"},
                              headers=g.auth("admin"))
    assert r.status_code == 200, r.json
    steps = []
    limiter = _limiter(one)
    real_step = limiter.counters.step
    monkeypatch.setattr(limiter.counters, "step", lambda *a, **kw: steps.append(a) or real_step(*a, **kw))
    assert g.post(seat, {"text": "b1-a1"}).status_code == 201
    assert steps == []  # counted by the append, not by a round trip before it
    admin = redis.Redis.from_url(redis_url)
    [key] = [k for k in admin.scan_iter("referee-limits:games.moves:token:*")]
    assert int(admin.get(key)) == 2  # two moves of this token so far, each counted once
    for text in ("a1-a2", "a2-a3"):
        assert g.post(seat, {"text": text}).status_code == 201
    before = g.export()
    assert g.post(seat, {"text": "a3-a4"}).status_code == 429  # the fifth: refused by the append
    judged = []
    service = one.extensions["referee"]
    real_submit = service.submit
    monkeypatch.setattr(service, "submit", lambda *a, **kw: judged.append(a) or real_submit(*a, **kw))
    r = g.post(seat, {"text": "a3-a4"})
    assert r.status_code == 429 and judged == []  # refused before it was judged
    assert g.export() == before


@pytest.mark.parametrize(("game", "players", "options", "field"), [
    ("castle-danger", 2, {"turn_limit": 2**63}, "options.turn_limit"),
    ("castle-danger", 2, {"turn_limit": 10_001}, "options.turn_limit"),
    ("king-of-danger", 2, {"target": 10**30}, "options.target"),
    ("king-of-the-castle", 2, {"first_player": 2**64}, "options.first_player"),
    ("kings-keys", 3, {"first_dealer": -2**70}, "options.first_dealer"),
])
def test_option_numbers_out_of_range_are_400_naming_the_option(client, game, players, options, field):
    r = client.post("/v1/games", json={"game": game, "players": [f"p{i}" for i in range(players)],
                                       "options": options})
    assert r.status_code == 400 and r.json["field"] == field, r.json


# ---- the hostile shapes, generated -------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Integers on both sides of every store's and engine's range, text with lone
# surrogates (sent as raw JSON escapes), and values nested far deeper than any move.
huge_ints = st.integers(-(2**80), 2**80) | st.sampled_from([2**63 - 2, 2**63 - 1, 2**63, 2**64, -(2**63) - 1])
# One surrogate alone (two in a row may make a valid pair, which is ordinary text).
lone = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
hostile_text = st.builds(lambda a, s, b: a + s + b, st.text(max_size=4), lone, st.text(max_size=4))
leaves = huge_ints | hostile_text | st.text(max_size=6) | st.none()
nested = st.builds(lambda depth, leaf: "[" * depth + json.dumps(leaf) + "]" * depth,
                   st.integers(100, 6000), st.integers(0, 9))


def encode(value) -> str:
    """JSON text that keeps lone surrogates as \\u escapes (what a hostile client sends)."""
    return json.dumps(value, ensure_ascii=True)


hostile_bodies = st.one_of(
    st.builds(lambda v: encode({"move": {"type": "play", "card": v}}), leaves),
    st.builds(lambda v: encode({"text": v}), hostile_text),
    st.builds(lambda v, m: encode({"move": m, "expected_version": v}), huge_ints,
              st.fixed_dictionaries({"type": st.just("play")})),
    st.builds(lambda v: encode({"moves": [{"type": "play", "seq": v}]}), huge_ints),
    st.builds(lambda n: '{"move": ' + n + "}", nested),
    nested,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=hostile_bodies, key=st.none() | hostile_text | st.text(max_size=8))
def test_generated_hostile_moves_get_a_clear_4xx_and_change_nothing(client, kod, body, key):
    seat = kod.summary()["to_act"][0]
    before = kod.export()
    headers = kod.auth(seat)
    if key is not None:
        # A header is Latin-1 on the wire; a surrogate cannot even be sent, so it is
        # replaced the way a careless client library would.
        # (No client can put a line break in a header: it would end the header.)
        wire = key.encode("utf-8", "surrogatepass").decode("latin-1")
        headers["Idempotency-Key"] = wire.replace("\r", "").replace("\n", "")
    r = raw_post(client, f"/v1/games/{kod.id}/moves", body, **headers)
    assert 400 <= r.status_code < 500, (r.status_code, r.get_data()[:300])
    assert r.mimetype == "application/problem+json" and r.json["code"]
    assert kod.export() == before


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(field=st.sampled_from(["after", "limit", "at"]), value=huge_ints | hostile_text)
def test_generated_query_numbers_are_checked_before_any_store(client, kod, field, value):
    path = "/view" if field == "at" else "/events"
    r = kod.get(path, **{field: value.encode("utf-8", "surrogatepass").decode("latin-1")
                         if isinstance(value, str) else value})
    if r.status_code == 200:  # a number inside the range is an ordinary read
        assert isinstance(value, int) and 0 <= value < 2**62
    else:
        assert r.status_code == 400 and r.mimetype == "application/problem+json"
        assert r.json["field"] == field


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=hostile_text, seed=huge_ints)
def test_generated_hostile_creations_are_400(client, name, seed):
    body = encode({"game": "kings-keys", "players": ["Ann", name, "Cy"]})
    r = raw_post(client, "/v1/games", body)
    assert r.status_code == 400 and r.json["field"] == "players[1]", r.get_data()[:300]
    r = raw_post(client, "/v1/games", encode({"game": "kings-keys", "players": ["A", "B", "C"],
                                              "options": {"turn_limit": seed}}))
    assert r.status_code in (201, 400), r.get_data()[:300]
    if r.status_code == 400:
        assert r.json["field"]

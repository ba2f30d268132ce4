"""What an operator relies on: JSON request and job logs, metrics that add up
across gunicorn processes, and a CLI that behaves in pipes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest

from referee.audit import audit
from tests.conftest import free_port


def referee(*args, **kw):
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          timeout=120, **kw)


class Served:
    """`referee serve --workers 2` on SQLite, its stderr kept in a file."""

    def __init__(self, tmp_path, *extra: str):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.err_path = tmp_path / "serve.err"
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "--store", f"sqlite:///{tmp_path}/r.db",
             "--port", str(self.port), "--workers", "2", "--threads", "2", *extra],
            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=open(self.err_path, "wb"), env=env)
        deadline = time.time() + 60
        while True:
            try:
                if self.call("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.time() < deadline and self.proc.poll() is None, self.err_path.read_text()
            time.sleep(0.1)

    def call(self, method, path, body=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                return r.status, r.read(), r.headers
        except urllib.error.HTTPError as err:
            return err.code, err.read(), err.headers

    def workers(self) -> list[int]:
        """The gunicorn worker processes' ids (the children of the server's)."""
        got = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True)
        return [int(pid) for pid in got.stdout.split()]

    def log_lines(self) -> list[dict]:
        out = []
        for line in self.err_path.read_text().splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    server = Served(tmp_path_factory.mktemp("served"))
    yield server
    server.stop()


def metric(text: str, name: str, **labels) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{{want}}} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_every_process(served):
    """Each request may land on either gunicorn process; /metrics must add them up
    (prometheus multi-process mode), whichever process answers."""
    created = 0
    for _ in range(24):
        status, _, _ = served.call("POST", "/v1/games", {"game": "king-of-danger", "players": ["a", "b"]})
        assert status == 201
        created += 1
    readings = set()
    for _ in range(8):
        status, body, _ = served.call("GET", "/metrics")
        assert status == 200
        readings.add(metric(body.decode(), "referee_games_created_total", game="king-of-danger"))
    assert readings == {float(created)}


def test_every_request_is_one_json_line_without_secrets(served):
    status, body, _ = served.call("POST", "/v1/games", {"game": "castle-danger", "players": ["Ann", "Bob"]})
    game = json.loads(body)
    token = game["seats"][0]["token"]
    status, _, headers = served.call(
        "POST", f"/v1/games/{game['id']}/moves", {"text": "c1-b1"},
        headers={"Authorization": f"Bearer {token}", "X-Request-ID": "league-7.move-1"})
    assert headers["X-Request-ID"] == "league-7.move-1"
    status, _, headers = served.call("GET", f"/v1/games/{game['id']}/view",
                                     headers={"X-Request-ID": "bad id {\"level\": \"forged\"}"})
    fresh = headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", fresh)  # an id that could forge a log line is replaced
    time.sleep(0.5)
    lines = served.log_lines()
    access = [x for x in lines if x.get("logger") == "referee.access"]
    move = [x for x in access if x.get("request_id") == "league-7.move-1"]
    assert len(move) == 1
    assert move[0]["method"] == "POST" and move[0]["path"] == f"/v1/games/{game['id']}/moves"
    assert move[0]["game"] == game["id"] and move[0]["status"] in (201, 422)
    assert isinstance(move[0]["duration_ms"], float) and move[0]["level"] == "INFO"
    assert [x for x in access if x.get("request_id") == fresh][0]["status"] == 200
    text = served.err_path.read_text()
    assert token not in text and game["admin_token"] not in text


def test_the_access_line_is_the_json_loggers_line_and_other_lines_keep_their_fields():
    """The access line, made straight from its fields, is the text python-json-logger
    makes of the same record; any record that is not exactly that line (another
    logger, a field more, an exception) is the library's own line."""
    import logging

    from pythonjsonlogger.json import JsonFormatter

    from referee import logs

    ours = logs.formatter()
    library = JsonFormatter("{asctime}{levelname}{name}{message}", style="{",
                            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})
    fields = {"method": "POST", "path": "/v1/games/g\u00e9\"x/moves", "status": 201, "game": None,
              "duration_ms": 1.25, "request_id": "r-1", "remote": "192.0.2.1"}

    def record(name=logs.access.name, msg="request", extra=fields, exc_info=None):
        return logging.getLogger(name).makeRecord(name, logging.INFO, __file__, 1, msg, (), exc_info,
                                                  extra=dict(extra))

    access_line = record()
    line = ours.format(access_line)
    assert "asctime" not in access_line.__dict__  # made from the fields: the library's path was not taken
    assert line == library.format(access_line)
    assert list(json.loads(line)) == ["time", "level", "logger", "message", *logs.ACCESS_FIELDS]
    try:
        raise ValueError("boom")
    except ValueError:
        failed = record(exc_info=sys.exc_info())
    others = [record(extra={**fields, "more": 7}), record(name="referee.jobs"), failed,
              record(extra={k: v for k, v in fields.items() if k != "remote"}),
              record(extra={k: v for k, v in fields.items() if k != "remote"} | {"other": 1})]
    for r in others:
        assert ours.format(r) == library.format(r)
    assert json.loads(ours.format(others[0]))["more"] == 7
    assert "boom" in json.loads(ours.format(failed))["exc_info"]


def test_every_referee_job_is_one_json_line(served):
    status, body, _ = served.call("POST", "/v1/games", {"game": "kings-keys", "players": ["a", "b", "c"]})
    gid = json.loads(body)["id"]
    time.sleep(0.5)
    jobs = [x for x in served.log_lines() if x.get("logger") == "referee.jobs" and x.get("game") == gid]
    assert len(jobs) == 1  # the deal: one job wrote it
    assert jobs[0]["job"] == "settle" and jobs[0]["outcome"] == "done" and jobs[0]["appended"] >= 1


# ---- the CLI in pipes -------------------------------------------------------------------

@pytest.fixture
def stored_game(tmp_path):
    from referee.config import Config
    from referee.system import build as build_service

    url = f"sqlite:///{tmp_path}/cli.db"
    svc = build_service(Config.load(url))
    gid = svc.create("king-of-danger", ["Ann", "Bob", "Cy"], {"seed": "pipes"})["id"]
    return url, gid


def test_audit_reads_standard_input(stored_game):
    url, gid = stored_game
    export = referee("export", gid, "--store", url).stdout
    r = referee("audit", "-", input=export)
    assert r.returncode == 0 and json.loads(r.stdout)["valid"] is True
    r = referee("audit", "-", input=export.replace(b'"hand-dealt"', b'"hand-dealT"', 1))
    assert r.returncode == 1 and json.loads(r.stdout)["valid"] is False


def test_a_closed_pipe_is_no_traceback(tmp_path):
    import random

    from referee.api import create_app
    from referee.config import Config
    from referee.system import build as build_service
    from tests.helpers import Game

    url = f"sqlite:///{tmp_path}/long.db"
    app = create_app(build_service(Config.load(url)))
    game = Game(app.test_client(), "king-of-danger", 2, {"seed": "a long game"})
    game.play_random(random.Random(5))  # an export far larger than a pipe's buffer
    gid = game.id
    assert len(game.export()) > 100_000  # a pipe buffer holds 64 KiB
    # head -c 1 closes the pipe at once, long before the export is written
    cmd = f"{sys.executable} -m referee.cli export {gid} --store {url} | head -c 1"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, timeout=120)
    assert b"Traceback" not in r.stderr and b"BrokenPipe" not in r.stderr, r.stderr
    assert audit(referee("export", gid, "--store", url).stdout)["valid"]


def test_games_lists_with_a_header_and_names(stored_game):
    url, gid = stored_game
    r = referee("games", "--store", url)
    lines = r.stdout.decode().splitlines()
    assert lines[0].split()[:5] == ["ID", "GAME", "STATUS", "VERSION", "CREATED"]
    row = [x for x in lines if x.startswith(gid)][0]
    assert "king-of-danger" in row and "Ann, Bob, Cy" in row


def test_the_deploy_gunicorn_config_serves_and_passes_the_image_health_check(tmp_path):
    """deploy/gunicorn.conf.py with the app as the Dockerfile runs it: two processes,
    /metrics adding both up, and the image's HEALTHCHECK command passing."""
    import shlex

    from tests.conftest import repo_root

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    run = tmp_path / "run"  # where gunicorn's control socket would go, shared by every instance
    run.mkdir()
    env.update(REFEREE_BIND=f"127.0.0.1:{port}", REFEREE_WORKERS="2", REFEREE_THREADS="2",
               REFEREE_STORE=f"sqlite:///{tmp_path}/d.db", PYTHONPATH=str(repo_root()),
               XDG_RUNTIME_DIR=str(run), HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(repo_root() / "deploy/gunicorn.conf.py"),
                             "referee.wsgi:app"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        dockerfile = (repo_root() / "deploy/Dockerfile").read_text()
        check = json.loads(re.search(r"HEALTHCHECK [^\n]*\\\n\s*CMD (\[[^\n]*\])", dockerfile).group(1))
        assert check[0] == "python"
        check = [sys.executable] + [a.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for a in check[1:]]
        deadline = time.time() + 60
        while subprocess.run(check, capture_output=True).returncode != 0:
            assert time.time() < deadline and proc.poll() is None, "gunicorn did not come up"
            time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        for _ in range(12):
            req = urllib.request.Request(base + "/v1/games", method="POST", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"game": "kings-keys", "players": ["a", "b", "c"]}).encode())
            assert urllib.request.urlopen(req, timeout=20).status == 201
        seen = {metric(urllib.request.urlopen(base + "/metrics", timeout=20).read().decode(),
                       "referee_games_created_total", game="kings-keys") for _ in range(6)}
        assert seen == {12.0}, shlex.join(check)
        # no control socket: its one path per user would be every instance's
        assert list(run.iterdir()) == [] and not (tmp_path / ".gunicorn").exists()
    finally:
        proc.terminate()
        proc.wait(20)


def test_referee_serve_opens_no_control_socket_another_instance_would_share(tmp_path):
    from tests.conftest import repo_root

    port = free_port()
    run = tmp_path / "run"
    run.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(XDG_RUNTIME_DIR=str(run), HOME=str(tmp_path), PYTHONPATH=str(repo_root()))
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--port", str(port),
                             "--store", f"sqlite:///{tmp_path}/s.db"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).status == 200:
                    break
            except OSError:
                pass
            assert time.time() < deadline and proc.poll() is None, "referee serve did not come up"
            time.sleep(0.2)
        assert list(run.iterdir()) == [] and not (tmp_path / ".gunicorn").exists()
    finally:
        proc.terminate()
        proc.wait(20)


def test_behind_a_reverse_proxy_the_client_is_the_forwarded_one(monkeypatch, caplog, service):
    import logging

    from referee.api import create_app

    def remote_seen(**headers):
        # this request's own line, by its request id: a server another test left in
        # this process may log a request of its own meanwhile
        caplog.clear()
        rid = f"proxy-test-{len(headers)}-{id(caplog)}"
        with caplog.at_level(logging.INFO, logger="referee.access"):
            create_app(service).test_client().get("/healthz", headers={**headers, "X-Request-ID": rid},
                                                  environ_base={"REMOTE_ADDR": "10.0.0.2"})
        return [r.remote for r in caplog.records
                if r.name == "referee.access" and getattr(r, "request_id", None) == rid]

    assert remote_seen(**{"X-Forwarded-For": "203.0.113.9"}) == ["10.0.0.2"]  # not trusted by default
    monkeypatch.setenv("REFEREE_PROXY_HOPS", "1")
    assert remote_seen(**{"X-Forwarded-For": "203.0.113.9"}) == ["203.0.113.9"]


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="CPU affinity is Linux's")
def test_pinned_workers_each_keep_to_one_cpu_and_serve(tmp_path, served):
    # Unpinned, every worker may run on every CPU the server may; pinned, each is
    # kept to one CPU, the workers taking the CPUs in turn (different CPUs while
    # there are enough of them), and the threads serving requests are on it too.
    cpus = os.sched_getaffinity(0)
    assert served.workers() and all(os.sched_getaffinity(pid) == cpus for pid in served.workers())
    pinned = Served(tmp_path, "--pin-workers")
    try:
        status, body, _ = pinned.call("POST", "/v1/games", {"game": "castle-danger", "players": ["Ann", "Bob"]})
        assert status == 201, body
        # One worker answering says nothing of the other: it may still be starting.
        deadline = time.time() + 30
        while True:
            workers = pinned.workers()
            kept = [os.sched_getaffinity(pid) for pid in workers]
            if len(workers) == 2 and all(len(k) == 1 for k in kept):
                break
            assert time.time() < deadline, (workers, kept)
            time.sleep(0.1)
        assert all(k <= cpus for k in kept), kept
        if len(cpus) >= 2:
            assert kept[0] != kept[1], kept
        for pid in workers:  # every thread of the worker, not only its first
            for tid in os.listdir(f"/proc/{pid}/task"):
                assert os.sched_getaffinity(int(tid)) == kept[workers.index(pid)]
    finally:
        pinned.stop()

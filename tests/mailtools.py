"""Real mail and HTTP endpoints for tests: an aiosmtpd SMTP server that keeps what
it receives (and can be told to refuse), and a threaded HTTP receiver."""

from __future__ import annotations

import asyncio
import email
import email.policy
import http.server
import json
import socket
import threading
import time

from aiosmtpd.controller import Controller


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Inbox:
    """aiosmtpd handler: every accepted message, parsed; ``failing`` refuses all."""

    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        self.failing = False
        self.delay = 0.0  # seconds each message is held before the answer (a slow server)
        self.in_data = 0  # messages being held now
        # called once with the message just kept, before the 250 goes out: a test kills
        # the sender here, the moment "the server took it, the sender never heard"
        self.on_accept = None
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's name
        if self.delay:
            self.in_data += 1
            try:
                await asyncio.sleep(self.delay)
            finally:
                self.in_data -= 1
        if self.failing:
            return "451 4.3.0 try again later"
        msg = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(msg)
        if self.on_accept is not None:
            hook, self.on_accept = self.on_accept, None
            hook(msg)
        return "250 OK"

    def to(self, address: str) -> list:
        with self.lock:
            return [m for m in self.messages if address in str(m["To"])]

    def since(self, n: int) -> list:
        """The messages kept after the first ``n``, in the order they came."""
        with self.lock:
            return self.messages[n:]

    def wait(self, count: int, timeout: float = 20.0) -> list:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.messages) >= count:
                    return list(self.messages)
            time.sleep(0.05)
        raise AssertionError(f"{len(self.messages)} message(s) arrived, not {count}")


class SmtpServer:
    def __init__(self):
        self.inbox = Inbox()
        self.port = free_port()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.controller.stop()

    def start(self) -> None:
        """Up again on the same port (after ``stop``: the server was down)."""
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()


class HookReceiver:
    """A threaded http.server on a free loopback port keeping every POST."""

    def __init__(self, status: int = 200):
        self.requests: list[dict] = []
        self.status = status
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                self.send_response(outer.status)
                self.end_headers()

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def json(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

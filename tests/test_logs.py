"""The referee's log lines written in batches (referee/logs.py's Batches)."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import time

import pytest

from referee import logs
from tests.conftest import repo_root


def handler(interval: float = 0.05) -> tuple[logs.Batches, io.StringIO, logging.Logger]:
    out = io.StringIO()
    h = logs.Batches(out, interval)
    h.setFormatter(logs.formatter())
    log = logging.getLogger(f"referee.test-batches.{time.perf_counter_ns()}")
    log.addHandler(h)
    log.setLevel(logging.INFO)
    log.propagate = False
    return h, out, log


def messages(out: io.StringIO) -> list[str]:
    return [json.loads(line)["message"] for line in out.getvalue().splitlines()]


def test_lines_are_written_together_within_the_interval_in_order():
    h, out, log = handler(0.05)
    for i in range(50):
        log.info(f"line {i}")
    assert out.getvalue() == ""  # kept, not written by the callers
    deadline = time.time() + 5
    while len(messages(out)) < 50:
        assert time.time() < deadline, messages(out)
        time.sleep(0.01)
    assert messages(out) == [f"line {i}" for i in range(50)]


def test_a_warning_is_written_at_once_after_every_line_before_it():
    h, out, log = handler(60)  # the writer thread would wait a minute
    log.info("first")
    log.info("second")
    log.warning("trouble")
    assert messages(out) == ["first", "second", "trouble"]
    log.info("after")
    h.flush()
    assert messages(out) == ["first", "second", "trouble", "after"]


def test_what_is_left_is_written_at_exit_and_a_forked_child_neither_repeats_it_nor_waits(tmp_path):
    script = (
        "import logging, os, sys\n"
        "from referee import logs\n"
        "logs.configure()\n"
        "logging.getLogger('referee.jobs').info('parent before the fork')\n"
        "h = logging.getLogger('referee').handlers[0]\n"
        "h._writing.acquire()  # as if its writer thread were writing at the fork\n"
        "pid = os.fork()\n"
        "if pid: h._writing.release()\n"
        "logging.getLogger('referee.jobs').info('child' if pid == 0 else 'parent after the fork')\n"
        "if pid: os.waitpid(pid, 0)\n"
    )
    env = {**os.environ, "REFEREE_LOG_INTERVAL": "60", "PYTHONPATH": str(repo_root())}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = sorted(json.loads(line)["message"] for line in done.stderr.splitlines())
    assert got == ["child", "parent after the fork", "parent before the fork"]


def test_an_interval_of_0_writes_each_line_at_once_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.setenv("REFEREE_LOG_INTERVAL", "0")
    assert logs.log_interval() == 0
    for bad in ("soon", "-1", "nan", "61"):
        monkeypatch.setenv("REFEREE_LOG_INTERVAL", bad)
        with pytest.raises(ValueError, match="REFEREE_LOG_INTERVAL"):
            logs.log_interval()

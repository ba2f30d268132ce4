"""Audits run off the request threads, in a bounded pool: a full pool refuses at
once with 503 problem+json and Retry-After; the reports are the audit's own."""

from __future__ import annotations

import os
import threading
import time

import pytest

from referee import audit as auditmod
from referee import audit_pool
from referee.audit_pool import AuditPool, AuditsBusy
from referee.autoplay import new_table


def long_log(n: int) -> str:
    table, log = new_table("castle-danger", 2, {}, "pool")
    i = 0
    while len(log) < n:
        seat = table.to_act()[0]
        legal = [m for m in table.engine.legal(table.state, seat) if m["type"] in ("move", "end")]
        events, fork = table.propose(seat, [legal[(i * 7919) % len(legal)]], seed="pool")
        table.commit(fork)
        log += events
        i += 1
    return "".join(ev.to_json() + "\n" for ev in log)


@pytest.fixture(scope="module")
def text():
    return long_log(3000)


def test_the_pool_gives_the_audits_own_report_from_another_process(text):
    pool = AuditPool(workers=1, waiting=0)
    try:
        assert pool.audit(text) == auditmod.audit(text)
        assert pool.audit(b"not json\n") == auditmod.audit(b"not json\n")
        pids = [p.pid for p in pool._executor._processes.values()]
        assert pids and os.getpid() not in pids
    finally:
        pool.close()


def test_a_full_pool_refuses_at_once(text):
    pool = AuditPool(workers=1, waiting=0)
    done = {}
    try:
        pool.audit("")  # the worker process is up before the race starts
        big = text
        t = threading.Thread(target=lambda: done.setdefault("report", pool.audit(big)))
        t.start()
        while pool._slots._value != 0 and t.is_alive():
            time.sleep(0.001)
        t0 = time.perf_counter()
        with pytest.raises(AuditsBusy) as busy:
            pool.audit(big)
        assert time.perf_counter() - t0 < 0.5  # refused, not queued behind the running audit
        assert busy.value.status == 503 and busy.value.extra["retry_after"] == 5
        t.join()
        assert done["report"]["valid"]
        assert pool.audit("")["valid"] is False  # the slot is free again
    finally:
        pool.close()


def test_the_api_answers_503_problem_json_with_retry_after_when_full(client, monkeypatch):
    full = AuditPool(workers=1, waiting=0)
    full._slots.acquire()  # the one slot is taken by an audit in progress
    monkeypatch.setattr(audit_pool, "_shared", full)
    r = client.post("/v1/audit", data=b"{}\n", content_type="application/jsonl")
    assert r.status_code == 503 and r.content_type.startswith("application/problem+json")
    assert r.get_json()["code"] == "audits-busy" and r.headers["Retry-After"] == "5"

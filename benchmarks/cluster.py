"""The referee on a Redis Cluster: its speed against one plain Redis, what a move
writes, play while the queue's Redis is down, and moves kept through a failover.

    python benchmarks/cluster.py [--quick]

Everything runs on this machine: real redis-server processes (a three-master
cluster; a three-master, three-replica one for the failover; plain Redis for the
queue and for the one-Redis side) and real `referee serve` servers (gunicorn,
gthread, one process, 8 threads, as benchmarks/run.py starts them), played by
benchmarks/run.py's eight keep-alive client threads, each with a Castle Danger
game of its own that never ends. Prints figures; asserts nothing.

1. moves/s and p99 latency, cluster ÷ one plain Redis: the two servers side by
   side, in interleaved rounds (the side going first alternating), the median of
   the per-round ratios;
2. the hash slots and nodes a move writes: MONITOR on every node while one client
   makes moves one at a time, each move's commands told apart by a marker sent to
   every node after it (it should be one slot, one node);
3. moves and creations refused while the queue's Redis is down (killed -9): it
   should be 0;
4. with REFEREE_WAIT_REPLICAS=1, moves acknowledged before a master's kill -9 and
   missing after its replica took over (it should be 0), and moves/s with WAIT 1 ÷
   without, two servers on the same cluster in interleaved rounds.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import redis  # noqa: E402

from benchmarks.cluster_nodes import Cluster, redis_binary, wait, writes_per_move  # noqa: E402
from benchmarks.run import (  # noqa: E402
    CHILD_ENV,
    GAME,
    SERVER_ENV,
    free_port,
    http_round,
    peaceful_moves,
    start_redis,
    stop,
    wait_healthy,
)


def serve(store: str, queue: str, workdir: str, **env) -> tuple:
    """`referee serve` of the code beside this script on ``store``, jobs to ``queue``."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "serve", "--store", store, "--queue", queue,
                             "--port", str(port), "--workers", "1", "--threads", "8"],
                            cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**CHILD_ENV, **SERVER_ENV, **env}, start_new_session=True)
    wait_healthy(port)
    return proc, port


def side_by_side(ports: dict, rounds: int, seconds: float, moves: list) -> dict:
    """Interleaved rounds of http_round on each server, the side going first
    alternating; each side's rounds and the per-round ratios of the first side
    named to the second."""
    (a, pa), (b, pb) = ports.items()
    got = {a: [], b: []}
    for r in range(rounds):
        order = [(a, pa), (b, pb)] if r % 2 == 0 else [(b, pb), (a, pa)]
        for name, port in order:
            got[name].append(http_round(port, 8, seconds, moves))
    each = {k: [x[k] / y[k] for x, y in zip(got[a], got[b], strict=True)] for k in ("rate", "p99", "p50")}
    ratio = {k: statistics.median(v) for k, v in each.items()}
    spread = {k: (min(v), max(v)) for k, v in each.items()}
    return {"sides": got, "ratio": ratio, "spread": spread}


def summary(rounds: list[dict]) -> str:
    return (f"{statistics.median(r['rate'] for r in rounds):7.0f} moves/s, "
            f"p50 {statistics.median(r['p50'] for r in rounds) * 1000:5.1f} ms, "
            f"p99 {statistics.median(r['p99'] for r in rounds) * 1000:5.1f} ms, "
            f"refused {sum(r['refused'] for r in rounds)}")


# ---- 3. play while the queue's Redis is down ----------------------------------------------

def outage_round(port: int, clients: int, seconds: float, moves: list) -> dict:
    """``clients`` clients each create a King of Danger game (its deal owed to the
    queue) and a Castle Danger game, then play the latter for ``seconds``: every
    creation and move answered other than 201 is counted refused."""
    counts = {"created": 0, "moves": 0, "refused": 0, "kod": []}
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        made = {}
        for game in ("king-of-danger", GAME):
            conn.request("POST", "/v1/games", json.dumps({"game": game, "players": ["a", "b"], "options": {}}),
                         {"Content-Type": "application/json"})
            r = conn.getresponse()
            body = json.loads(r.read())
            with lock:
                counts["created" if r.status == 201 else "refused"] += 1
            made[game] = body
        if "id" in made["king-of-danger"]:
            with lock:
                counts["kod"].append(made["king-of-danger"]["id"])
        game = made[GAME]
        if "id" not in game:
            return
        tokens = [s["token"] for s in game["seats"]]
        for seat, move in moves:
            if time.perf_counter() > stop_at:
                break
            conn.request("POST", f"/v1/games/{game['id']}/moves", json.dumps({"move": move}),
                         {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[seat]}"})
            r = conn.getresponse()
            r.read()
            with lock:
                counts["moves" if r.status == 201 else "refused"] += 1

    t0 = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts["rate"] = counts["moves"] / (time.perf_counter() - t0)
    return counts


def queue_down(cluster: Cluster, workdir: str, moves: list, seconds: float) -> dict:
    """A server and a `referee worker` on the cluster with a queue's Redis of their
    own: a round with the queue up, the queue killed -9, a round while it is down,
    the queue started again on its port; seconds until the deals owed are done."""
    from referee.store import open_store

    qdir = Path(workdir) / "queue-down"
    qdir.mkdir()
    qproc, qurl = start_redis(str(qdir))
    qport = int(qurl.rsplit(":", 1)[1].split("/")[0])
    server, port = serve(cluster.url, qurl, workdir)
    worker = subprocess.Popen([sys.executable, "-m", "referee.cli", "worker"], cwd=workdir,
                              env={**CHILD_ENV, "REFEREE_STORE": cluster.url, "REFEREE_QUEUE": qurl},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    store = open_store(cluster.url)
    try:
        up = outage_round(port, 8, seconds, moves)
        qproc.send_signal(signal.SIGKILL)
        qproc.wait(10)
        down = outage_round(port, 8, seconds, moves)
        binary = redis_binary()
        qproc = subprocess.Popen([binary, "--port", str(qport), "--bind", "127.0.0.1", "--save", "",
                                  "--appendonly", "no", "--dir", str(qdir)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        back = time.monotonic()
        wait(lambda: redis.Redis(port=qport).ping(), 20, "the queue's Redis did not start again")
        owed = set(down["kod"])
        wait(lambda: not owed & {r["id"] for r in store.games(status="settling")}, 60,
             "the deals owed were not done")
        return {"up": up, "down": down, "dealt_after": time.monotonic() - back}
    finally:
        stop(server)
        stop(worker)
        qproc.kill()
        qproc.wait(10)


# ---- 4. WAIT 1: its cost, and moves kept through a master's kill -9 ------------------------

def failover_round(cluster: Cluster, port: int, moves: list, seconds: float, lag: float = 0.0) -> dict:
    """Eight clients, a game each, moves with an Idempotency-Key each, a refused one
    sent again as it was until it is answered 201; the master holding the most of
    the games killed -9 a second in. Then each acknowledged move is looked for in
    its game's log as the cluster holds it after the failover. ``lag``: the
    master's replica is stopped (SIGSTOP) and its link cut that many seconds
    before the kill, and let go on right after it, so it lacks what the master took
    meanwhile (on one machine a replica is otherwise never more than a moment
    behind)."""
    from referee.store import open_store

    # game, the seq of its first event, the move, whether a 503 not-replicated came first
    acked: list[tuple[str, int, dict, bool]] = []
    refused = [0]
    lock = threading.Lock()
    games = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(8):
        conn.request("POST", "/v1/games", json.dumps({"game": GAME, "players": ["a", "b"], "options": {}}),
                     {"Content-Type": "application/json"})
        made = json.loads(conn.getresponse().read())
        games.append((made["id"], [s["token"] for s in made["seats"]]))
    stop_at = time.perf_counter() + seconds

    def client(gid: str, tokens: list):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for i, (seat, move) in enumerate(moves):
            unconfirmed = False
            while time.perf_counter() < stop_at:
                try:
                    c.request("POST", f"/v1/games/{gid}/moves", json.dumps({"move": move}),
                              {"Content-Type": "application/json", "Idempotency-Key": f"m{i}",
                               "Authorization": f"Bearer {tokens[seat]}"})
                    r = c.getresponse()
                    body = json.loads(r.read())
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    continue
                if r.status == 201:
                    with lock:
                        acked.append((gid, body["version"] - len(body["events"]) + 1, move, unconfirmed))
                    break
                unconfirmed = unconfirmed or body.get("code") == "not-replicated"
                with lock:
                    refused[0] += 1
                time.sleep(0.05)  # Retry-After's spirit, shortened
            else:
                return

    node_of = {gid: cluster.node_of(f"{{g:{gid}}}:log") for gid, _ in games}
    by_node: dict[int, int] = {}
    for node in node_of.values():
        by_node[node] = by_node.get(node, 0) + 1
    victim = max(by_node, key=by_node.get)
    threads = [threading.Thread(target=client, args=g) for g in games]
    for t in threads:
        t.start()
    time.sleep(1.0)  # play under way before the kill
    if lag:
        # The replica stopped and its link cut: what the master takes from now on
        # stays in the master alone. (A replica only stopped would find it all in
        # its socket's buffer when let go on: a kill -9 does not drop what the
        # kernel holds.)
        for r in cluster.replicas(victim):
            cluster.pause(r, True)
        cluster.node(victim).execute_command("CLIENT", "KILL", "TYPE", "replica")
        time.sleep(lag)
    cluster.kill(victim)
    killed_at = time.monotonic()
    if lag:
        for r in cluster.replicas(victim):
            cluster.pause(r, False)
    alive = [p for p in cluster.ports if p != victim]
    took = wait(lambda: all(b"cluster_state:ok" in cluster.node(p).execute_command("CLUSTER", "INFO")
                            for p in alive) and victim not in [
        int(m[2][1]) for m in cluster.node(alive[0]).execute_command("CLUSTER", "SLOTS")], 60,
        "no failover")
    for t in threads:
        t.join()
    store = open_store("redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in alive))
    logs = {gid: store.events(gid) for gid, _ in games}
    lost = lost_retried = 0
    for gid, seq, move, unconfirmed in acked:
        log = logs[gid]
        if len(log) < seq or log[seq - 1].payload.get("move") != move:
            lost += 1
            lost_retried += unconfirmed
    on_victim = sum(1 for gid, *_ in acked if node_of[gid] == victim)
    return {"acked": len(acked), "lost": lost, "lost_retried": lost_retried,
            "retried": sum(1 for *_, unconfirmed in acked if unconfirmed), "refused": refused[0], "failover_s": took,
            "games_on_killed": by_node[victim], "since_kill": time.monotonic() - killed_at,
            "acked_on_killed": on_victim}


def wait_cost_and_loss(workdir: str, moves: list, rounds: int, seconds: float, wait_ms: str) -> dict:
    """On three-master, three-replica clusters (cluster-node-timeout 1 s): moves/s
    with WAIT 1 against without, side by side; then the loss through a master's
    kill -9, with WAIT 1 and without, its replica up to date and lagging (a fresh
    cluster each time: a failover leaves a master without a replica)."""
    out = {}
    qproc, qurl = start_redis(tempfile.mkdtemp(dir=workdir))
    try:
        for wait_on, lag in (("1", 0.0), ("0", 0.0), ("1", LAG), ("0", LAG)):
            d = tempfile.mkdtemp(dir=workdir)
            cluster = Cluster(d, masters=3, replicas_each=1, node_timeout=1000)
            servers = {}
            try:
                env = {"REFEREE_WAIT_REPLICAS": wait_on, "REFEREE_WAIT_MS": wait_ms}
                if "cost" not in out:
                    servers["wait"] = serve(cluster.url, qurl, d, **env)
                    servers["none"] = serve(cluster.url, qurl, d, REFEREE_WAIT_REPLICAS="0")
                    out["cost"] = side_by_side({k: p for k, (_, p) in servers.items()}, rounds, seconds, moves)
                    stop(servers.pop("none")[0])
                else:
                    servers["side"] = serve(cluster.url, qurl, d, **env)
                (_, port), = servers.values()
                out[(wait_on, lag)] = failover_round(cluster, port, moves, 3.0 + seconds + lag, lag)
            finally:
                for proc, _ in servers.values():
                    stop(proc)
                cluster.stop()
    finally:
        qproc.kill()
        qproc.wait(10)
    return out


LAG = 1.5  # seconds a replica is stopped before its master's kill: longer than REFEREE_WAIT_MS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    ap.add_argument("--parts", default="1234", help="which figures, e.g. 4 (default: 1234)")
    args = ap.parse_args()
    rounds, seconds = (3, 1.5) if args.quick else (7, 3.0)
    _, _, moves = peaceful_moves(6000)
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as workdir:
        if set(args.parts) & set("123"):
            one_cluster(args, workdir, rounds, seconds, moves)
        if "4" in args.parts:
            replicas(workdir, rounds, seconds, moves)
    print(f"\nload after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 0


def one_cluster(args, workdir: str, rounds: int, seconds: float, moves: list) -> None:
    """Figures 1 to 3, on a three-master cluster."""
    if True:
        cluster = Cluster(tempfile.mkdtemp(dir=workdir))
        plain, plain_url = start_redis(tempfile.mkdtemp(dir=workdir))
        queue, queue_url = start_redis(tempfile.mkdtemp(dir=workdir))
        servers = {}
        try:
            servers["cluster"] = serve(cluster.url, queue_url, workdir)
            servers["plain"] = serve(plain_url, plain_url, workdir)
            got = side_by_side({k: p for k, (_, p) in servers.items()}, rounds, seconds, moves)
            print(f"\n1. moves/s over HTTP (gunicorn, 1 process, 8 threads; 8 client threads), "
                  f"{rounds} interleaved rounds of {seconds} s")
            for side, label in (("cluster", "3-master cluster"), ("plain", "one plain Redis")):
                print(f"   {label:17} {summary(got['sides'][side])}")
            r = got["ratio"]
            print(f"   cluster / plain: moves/s {r['rate']:.2f}, p50 {r['p50']:.2f}, p99 {r['p99']:.2f}"
                  f" (median of the rounds' ratios; moves/s {spread(got, 'rate')}, p99 {spread(got, 'p99')})")

            w = writes_per_move(cluster, queue_url, servers["cluster"][1], moves, 60 if args.quick else 240)
            print(f"\n2. what a move writes, MONITOR on every node, {w['moves']} moves one at a time")
            print(f"   distinct slots written per move: {hist(w['slots'])}")
            print(f"   nodes written per move:          {hist(w['nodes'])}")
            print(f"   commands on the queue's Redis per move: {hist(w['queue'])}")
            for key, n in sorted(w["shared"].items()):
                print(f"   written outside the game's slot: {key} by {n} of the {w['moves']} moves")
            for proc, _ in servers.values():
                stop(proc)
            servers = {}

            q = queue_down(cluster, workdir, moves, seconds)
            print("\n3. the queue's Redis killed -9 (8 clients: a King of Danger game, a Castle Danger"
                  " game, its moves)")
            for k in ("up", "down"):
                c = q[k]
                print(f"   queue {k:4}: {c['created']} games and {c['moves']} moves acknowledged, "
                      f"{c['refused']} refused; {c['rate']:.0f} moves/s")
            print(f"   the deals owed, done {q['dealt_after']:.2f} s after the queue's return "
                  "(a real `referee worker`)")
        finally:
            for proc, _ in servers.values():
                stop(proc)
            cluster.stop()
            for p in (plain, queue):
                p.kill()
                p.wait(10)



def replicas(workdir: str, rounds: int, seconds: float, moves: list) -> None:
    """Figure 4, on three-master, three-replica clusters."""
    if True:
        f = wait_cost_and_loss(workdir, moves, rounds, seconds, "1000")
        c = f["cost"]
        print("\n4. 3 masters + 3 replicas, cluster-node-timeout 1000 ms")
        for side, label in (("wait", "WAIT 1"), ("none", "no WAIT")):
            print(f"   {label:8} {summary(c['sides'][side])}")
        print(f"   WAIT 1 / none: moves/s {c['ratio']['rate']:.2f}, p99 {c['ratio']['p99']:.2f} (median; "
              f"moves/s {spread(c, 'rate')}, p99 {spread(c, 'p99')})")
        for key, x in f.items():
            if key == "cost":
                continue
            wait_on, lag = key
            label = "WAIT 1" if wait_on == "1" else "no WAIT"
            replica = f"replica cut off {lag} s before" if lag else "replica up to date"
            print(f"   {label:8} {replica:28} kill -9 of a master ({x['games_on_killed']} of 8 games on it): "
                  f"{x['acked']} moves acknowledged ({x['acked_on_killed']} on its games), "
                  f"{x['lost']} lost after the failover ({x['failover_s']:.1f} s), "
                  f"{x['refused']} answers other than 201 meanwhile")
            if x["retried"]:
                print(f"{'':12}{x['retried']} of the acknowledged were answered 503 not-replicated first "
                      f"and 201 to the same request again; {x['lost_retried']} of those lost")


def spread(got: dict, k: str) -> str:
    low, high = got["spread"][k]
    return f"{low:.2f} to {high:.2f} over the rounds"


def hist(xs: list[int]) -> str:
    """How many moves had each value, e.g. "1 x240"."""
    return ", ".join(f"{v} x{xs.count(v)}" for v in sorted(set(xs)))


if __name__ == "__main__":
    sys.exit(main())

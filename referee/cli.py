"""The `referee` command: serve, worker, mail-gateway, audit, export, replay, games."""

from __future__ import annotations

import os
import sys

from referee import audit_commands  # light: `referee audit FILE...` is read there, without argparse

TYPE_CHECKING = False  # (typing itself is ~2 ms no command needs)
if TYPE_CHECKING:
    from referee.command_line import Parser
    from referee.config import Config


def _config(args) -> Config:
    from referee.config import Config  # a dataclass, ~1 ms: for the commands using a store only
    return Config.load(getattr(args, "store", None), getattr(args, "queue", None))


def _metrics_across_processes() -> str | None:
    """Gunicorn runs several processes; prometheus_client counts across them only in
    its multi-process mode, which must be chosen before it is imported. Without an
    operator's PROMETHEUS_MULTIPROC_DIR, a fresh folder of our own is used."""
    import os
    import tempfile

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    path = tempfile.mkdtemp(prefix="referee-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    return path


def pin_workers_default() -> bool:
    return os.environ.get("REFEREE_PIN_WORKERS", "0").lower() in ("1", "true", "yes", "on")


def pin_worker(server, worker) -> None:
    """gunicorn's post_fork: keep this worker on one CPU, the workers taking the
    CPUs the server may use in turn. A process serves one thread at a time (the
    GIL), and its threads handing the GIL to each other on different cores made
    every request slower: the interpreter's memory moved from core to core with
    each handoff (measured on 2 cores: 1.1 to 2 times the moves/s, docs/scaling.md).
    Before the worker starts its threads, so they all inherit the CPU."""
    if not hasattr(os, "sched_setaffinity"):
        server.log.warning("--pin-workers: this system cannot pin a process to a CPU")
        return
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[(worker.age - 1) % len(cpus)]
    os.sched_setaffinity(0, {cpu})
    server.log.info("worker %s pinned to CPU %s", worker.pid, cpu)


def _start_sender(service) -> None:
    """The notice sender (referee/mail/sending.py) as a thread of this process: in
    embedded mode here, with RQ in `referee worker`. Several senders may run; each
    notice is claimed before it is sent."""
    import os

    from referee.mail import sending

    sending.start_sender(service, float(os.environ.get("REFEREE_SEND_INTERVAL", "1")))


def _start_keeper(service) -> None:
    """The clock keeper (referee/timeouts.py) as a thread of this process: in
    embedded mode here, with RQ in `referee worker`. Several may run; every tick
    is idempotent."""
    import os

    from referee import timeouts

    timeouts.start_keeper(service, float(os.environ.get("REFEREE_KEEPER_INTERVAL", "1")))


def _start_catch_ups(service) -> None:
    """On threads, what a killed process left undone: finished games no ratings job recorded,
    leagues owing a step (then every REFEREE_LEAGUE_HEAL_INTERVAL s, those whose job was lost),
    events not yet in the transparency log (then every REFEREE_TLOG_SWEEP_INTERVAL s, the
    leagues')."""
    from referee.leagues import healing
    from referee.players import following

    following.start_catch_up(service)
    healing.start_healer(service, float(os.environ.get("REFEREE_LEAGUE_HEAL_INTERVAL", "30")))
    # the transparency log's sequencer: every log at start and every REFEREE_TLOG_FULL_SWEEP_INTERVAL
    # seconds, the leagues every few seconds
    if service.transparency is not None:
        seq = service.transparency.sequencer(float(os.environ.get("REFEREE_TLOG_SWEEP_INTERVAL", "5")))
        seq.full_every = float(os.environ.get("REFEREE_TLOG_FULL_SWEEP_INTERVAL", "600"))


def _after_an_outage(service, sweeping) -> None:
    """On a thread, what the API processes could not queue while the queue's Redis
    was down and no referee step brings about: the notices of games left at rest
    (the sender's start-up sweep). The steps are the sweep's (cmd_worker), and a
    game's end is a step (the seed's reveal), whose reaction queues its ratings.
    ``sweeping`` (a lock) keeps a flapping queue from piling sweeps up: one runs
    at a time, and an outage's end while it runs is left to it."""
    import logging
    import threading

    from referee.mail import outbox

    if not sweeping.acquire(blocking=False):
        return

    def run():
        try:
            outbox.sweep_all(service)
        except Exception:  # logged; the next start sweeps again
            logging.getLogger("referee.worker").exception("after the queue's outage: the notices' sweep")
        finally:
            sweeping.release()

    threading.Thread(target=run, name="after-an-outage", daemon=True).start()


def cmd_serve(args) -> int:
    import os
    import shutil

    from referee import logs

    config = _config(args)
    if not args.access_log:
        os.environ["REFEREE_ACCESS_LOG"] = "0"
    # the pages the notices link to are this server's, unless REFEREE_PUBLIC_URL says
    # where players reach it (a proxy, a domain)
    host = "localhost" if args.host in ("0.0.0.0", "::", "") else args.host
    os.environ.setdefault("REFEREE_PUBLIC_URL", f"http://{host}:{args.port}")
    logs.configure()
    if args.dev:
        from referee.api import create_app
        from referee.system import build as build_service

        service = build_service(config)
        app = create_app(service)
        if config.queue == "inline":
            _start_sender(service)
            _start_keeper(service)
            _start_catch_ups(service)
        app.run(host=args.host, port=args.port, threaded=True)
        return 0
    own_metrics_dir = _metrics_across_processes()
    # The app bounds its long polls by the threads it has (referee/follow.py).
    os.environ["REFEREE_THREADS"] = str(args.threads)
    from gunicorn.app.base import BaseApplication

    from referee import follow
    from referee.api import create_app
    from referee.system import build as build_service

    def child_exit(server, worker):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

    class Referee(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", args.workers)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", args.threads)
            # The app writes its own JSON access line (referee.logs); gunicorn's
            # would say the same thing again, less usefully.
            self.cfg.set("accesslog", None)
            self.cfg.set("child_exit", child_exit)
            self.cfg.set("post_worker_init", follow.on_worker_start)  # long polls end on SIGTERM
            if args.pin_workers:
                self.cfg.set("post_fork", pin_worker)
            # no control socket: its default path is one per user, shared by every
            # instance on the host (deploy/gunicorn.conf.py says the same); gunicorn
            # before 25.1 has none to turn off
            if "control_socket_disable" in self.cfg.settings:
                self.cfg.set("control_socket_disable", True)

        def load(self):
            service = build_service(config)
            if config.queue == "inline":  # with RQ, `referee worker` sends and keeps time
                _start_sender(service)
                _start_keeper(service)
                _start_catch_ups(service)
            return create_app(service)

    print(f"referee: serving on http://{args.host}:{args.port} (store {config.store}, "
          f"jobs {'in-process' if config.queue == 'inline' else config.queue}); API docs at /docs",
          file=sys.stderr, flush=True)
    try:
        Referee().run()
    finally:
        if own_metrics_dir:
            shutil.rmtree(own_metrics_dir, ignore_errors=True)
    return 0


def cmd_worker(args) -> int:
    import logging
    import os
    import threading
    import time

    import redis

    from referee import logs
    from referee.queue import QUEUE_NAMES
    from referee.system import build as build_service
    from workers import outages

    logs.configure()
    log = logging.getLogger("referee.worker")
    config = _config(args)
    if config.queue == "inline":
        print("referee worker needs a Redis queue: --queue redis://... or a redis:// store",
              file=sys.stderr)
        return 2
    # The jobs build their own service from the environment: hand them ours.
    os.environ["REFEREE_STORE"], os.environ["REFEREE_QUEUE"] = config.store, config.queue
    pause = outages.FIRST_PAUSE
    down_since = None
    sender = None
    sweeping = threading.Lock()  # the notices' sweep after an outage, one at a time
    while True:
        # Redis may go away (a restart, a failover) and come back: the worker waits
        # and starts again instead of dying, so jobs resume by themselves. A job cut
        # short is retried (RQ's Retry), and every job is idempotent. Each start
        # sweeps the settling games: the steps the API could not queue while the
        # queue was down are queued then (workers/outages.py).
        try:
            service = build_service(config)
            swept = service.sweep()
            if sender is None:
                _start_sender(service)
                _start_keeper(service)
                if args.burst:  # done before the burst's jobs, so they include its games
                    from referee.leagues import healing
                    from referee.players import following

                    following.catch_up(service)
                    healing.heal(service)
                    if service.transparency is not None:
                        service.transparency.integrate(sweep=True)
                else:
                    _start_catch_ups(service)
                sender = True
            pause = outages.FIRST_PAUSE  # reached again: the next outage starts afresh
            if down_since is not None:
                log.warning("the queue's Redis is back after %.1f s", time.monotonic() - down_since)
                down_since = None
                _after_an_outage(service, sweeping)
            if swept:
                print(f"referee worker: {swept} game(s) left settling were queued again", file=sys.stderr)
            conn = redis.Redis.from_url(config.queue)
            # Jobs run in this process, no fork per job: a job is a few milliseconds
            # of work, a fork costs more than that, and this process keeps its
            # cached games from one job to the next. A worker killed mid-job loses
            # nothing: the step was not appended, the game is still settling, and
            # the next worker's sweep (above) or the next read queues it again.
            # Live play's queue first, the sweep's after it: RQ takes the next job of
            # the first queue that has one (referee/queue.py).
            worker = outages.RefereeWorker(outages.queues(QUEUE_NAMES, conn), connection=conn)
            worker.work(burst=args.burst, with_scheduler=True, logging_level="WARNING")
            if worker.queue_lost:
                raise redis.ConnectionError("the queue's Redis went away under the worker")
            if args.burst and service.transparency is not None:
                # the jobs' own service noted their appends: its notes out, then integrated
                from workers import jobs

                if jobs._service is not None and jobs._service.transparency is not None:
                    jobs._service.transparency.flush()
                service.transparency.integrate()
            return 0
        except (redis.ConnectionError, redis.TimeoutError) as err:
            if args.burst:
                print(f"referee worker: Redis cannot be reached: {err}", file=sys.stderr)
                return 1
            if down_since is None:  # once an outage, not at every try
                down_since = time.monotonic()
                log.warning("Redis cannot be reached (%s); trying again every %.1f s at most",
                            err, outages.RETRY_PAUSE)
            time.sleep(pause)
            pause = min(pause * 2, outages.RETRY_PAUSE)


def cmd_mail_gateway(args) -> int:
    """The SMTP server a mail system relays the league's mail to (referee/mail/gateway.py)."""
    import os
    import signal
    import threading

    from referee import logs
    from referee.mail import gateway
    from referee.system import build as build_service

    logs.configure()
    config = _config(args)
    service = build_service(config)
    if config.queue == "inline":
        # embedded mode: this process sends the answers it queues (so does `referee
        # serve` on the same file: each notice is claimed before it is sent)
        _start_sender(service)
    smtp = gateway.controller(service, args.host, args.port, args.domain)
    smtp.start()
    print(f"referee mail-gateway: SMTP on {args.host}:{args.port} for "
          f"@{args.domain or os.environ.get('REFEREE_MAIL_DOMAIN', 'localhost')}", file=sys.stderr, flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    stop.wait()
    smtp.stop()
    return 0


def cmd_export(args) -> int:
    from referee.errors import NoSuchGame
    from referee.system import build as build_service

    service = build_service(_config(args))
    try:
        # The operator's backup of the store (running games too), not the API's export,
        # which a game of players keeps from everyone while it runs.
        service.record(args.game_id)
        sys.stdout.write(service.whole_log(args.game_id))
    except NoSuchGame as err:
        print(err.detail, file=sys.stderr)
        return 1
    return 0


def columns(head: list[str], rows: list[list[str]]) -> list[str]:
    """A table in text, each column as wide as its widest cell (a league game's id
    is longer than a game's own), two spaces apart, the last one left ragged."""
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head) - 1)]
    return ["  ".join([*(cell.ljust(w) for cell, w in zip(r, widths, strict=False)), r[-1]]) for r in [head, *rows]]


def cmd_games(args) -> int:
    from referee.system import build as build_service

    service = build_service(_config(args))
    page = service.list_games(args.status, args.limit, args.after)
    if not page["games"]:
        print("no games", file=sys.stderr)
        return 0
    rows = [[r["id"], r["game"], r["status"], str(r["version"]), r["created_at"], ", ".join(r["players"])]
            for r in page["games"]]
    for line in columns(["ID", "GAME", "STATUS", "VERSION", "CREATED", "PLAYERS"], rows):
        print(line)
    if page["next"]:
        print(f"more: referee games --after {page['next']}", file=sys.stderr)
    return 0


def parser(command: str | None = None) -> Parser:
    """The `referee` command's parser. Given ``command`` (the command line's first word),
    only that command's sub-parsers are made and its module imported (argparse makes each
    in ~0.15 ms, its texts looked up in gettext's catalogues: ~2.5 ms for all 16). Without
    one, or with a word naming no command, all of them (`referee --help` lists them)."""
    from argparse import BooleanOptionalAction

    from referee.command_line import Parser

    p = Parser(prog="referee", description="castle-referee: an event-sourced game referee")
    sub = p.add_subparsers(dest="command", required=True)

    def wanted(*names: str) -> bool:
        return command is None or command in names

    def store_opts(sp):
        sp.add_argument("--store", help="sqlite:///PATH (default sqlite:///referee.db) or redis://HOST:PORT/DB;"
                                        " else $REFEREE_STORE")
        sp.add_argument("--queue", help="'inline' or redis://... for referee jobs; else $REFEREE_QUEUE, "
                                        "else the Redis store, else inline")

    if wanted("serve"):
        sp = sub.add_parser("serve", help="serve the JSON API")
        store_opts(sp)
        sp.add_argument("--host", default="127.0.0.1")
        sp.add_argument("--port", type=int, default=8000)
        sp.add_argument("--workers", type=int, default=1, help="gunicorn processes")
        sp.add_argument("--threads", type=int, default=8, help="threads per process")
        sp.add_argument("--access-log", action=BooleanOptionalAction, default=True,
                        help="one JSON line per request on stderr (default: on)")
        sp.add_argument("--pin-workers", action=BooleanOptionalAction,
                        default=pin_workers_default(),
                        help="keep each gunicorn process on one CPU of its own, in turn (Linux; default: "
                             "off, or $REFEREE_PIN_WORKERS); see docs/scaling.md")
        sp.add_argument("--dev", action="store_true", help="Flask's development server instead of gunicorn")
        sp.set_defaults(fn=cmd_serve)
    if wanted("worker"):
        sp = sub.add_parser("worker", help="run referee jobs from the Redis queue")
        store_opts(sp)
        sp.add_argument("--burst", action="store_true", help="stop when the queue is empty")
        sp.set_defaults(fn=cmd_worker)
    if wanted("mail-gateway"):
        sp = sub.add_parser("mail-gateway", help="an SMTP server taking players' replies (moves by e-mail)")
        store_opts(sp)
        sp.add_argument("--host", default="127.0.0.1")
        sp.add_argument("--port", type=int, default=2525)
        sp.add_argument("--domain", help="the reply addresses' domain; else $REFEREE_MAIL_DOMAIN")
        sp.set_defaults(fn=cmd_mail_gateway)
    if wanted("export"):
        sp = sub.add_parser("export", help="print a game's whole log as JSON Lines")
        store_opts(sp)
        sp.add_argument("game_id")
        sp.set_defaults(fn=cmd_export)
    if wanted("games"):
        sp = sub.add_parser("games", help="list the games in the store")
        store_opts(sp)
        sp.add_argument("--status", choices=["active", "settling", "finished", "aborted"])
        sp.add_argument("--limit", type=int, default=100, help="at most this many games (1-1000, default 100)")
        sp.add_argument("--after", help="the id the previous page ended with (newest first)")
        sp.set_defaults(fn=cmd_games)
    if wanted("audit", "audit-league", "replay"):  # pure functions of a log (referee/audit_commands.py)
        audit_commands.add(sub)
    if wanted("ratings"):  # --check / --catch-up (referee/players/commands.py)
        from referee.players import commands as rating_commands
        rating_commands.add(sub, store_opts)
    if wanted("dispute"):  # EXPORT --seq N (referee/disputes/arbiter.py)
        from referee.disputes import arbiter
        arbiter.add(sub)
    if wanted("keys", "verify-receipt"):  # keys list|rotate (referee/trust/commands.py)
        from referee.trust import commands as trust_commands
        trust_commands.add(sub)
    if wanted("witness"):  # (referee/transparency/commands.py)
        from referee.transparency import commands as tlog_commands
        tlog_commands.add(sub)
    return p if sub.choices else parser()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = audit_commands.files_alone(argv) or parser(argv[0] if argv else None).parse_args(argv)
    try:
        code = args.fn(args) or 0
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # `referee export ID | head` closed the pipe: a normal end, not an error
        # worth a traceback. Python would complain again at exit when it flushes
        # stdout, so point stdout at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())

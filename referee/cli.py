"""The `referee` command: serve, worker, audit, export, replay, games."""

from __future__ import annotations

import argparse
import json
import sys

from referee.config import Config


def _config(args) -> Config:
    return Config.load(getattr(args, "store", None), getattr(args, "queue", None))


def cmd_serve(args) -> int:
    from referee.api import create_app
    from referee.config import build_service

    config = _config(args)
    if args.dev:
        app = create_app(build_service(config))
        app.run(host=args.host, port=args.port, threaded=True)
        return 0
    from gunicorn.app.base import BaseApplication

    class Referee(BaseApplication):
        def load_config(self):
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", args.workers)
            self.cfg.set("worker_class", "gthread")
            self.cfg.set("threads", args.threads)
            self.cfg.set("accesslog", "-" if args.access_log else None)

        def load(self):
            return create_app(build_service(config))

    print(f"referee: serving on http://{args.host}:{args.port} (store {config.store}, "
          f"jobs {'in-process' if config.queue == 'inline' else config.queue}); API docs at /docs",
          file=sys.stderr, flush=True)
    Referee().run()
    return 0


def cmd_worker(args) -> int:
    import os

    import redis
    from rq import Queue, Worker

    from referee.config import build_service
    from referee.queue import QUEUE_NAME

    config = _config(args)
    if config.queue == "inline":
        print("referee worker needs a Redis queue: --queue redis://... or a redis:// store",
              file=sys.stderr)
        return 2
    # The jobs build their own service from the environment: hand them ours.
    os.environ["REFEREE_STORE"], os.environ["REFEREE_QUEUE"] = config.store, config.queue
    swept = build_service(config).sweep()
    if swept:
        print(f"referee worker: {swept} game(s) left settling were queued again", file=sys.stderr)
    conn = redis.Redis.from_url(config.queue)
    worker = Worker([Queue(QUEUE_NAME, connection=conn)], connection=conn)
    worker.work(burst=args.burst, with_scheduler=True, logging_level="WARNING")
    return 0


def cmd_audit(args) -> int:
    from referee.audit import audit

    with open(args.file, encoding="utf-8", newline="") as fh:
        report = audit(fh.read())
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0 if report["valid"] else 1


def cmd_export(args) -> int:
    from referee.config import build_service
    from referee.games.base import ADMIN
    from referee.service import Caller, NoSuchGame

    service = build_service(_config(args))
    try:
        sys.stdout.write(service.export(args.game_id, Caller(ADMIN)))
    except NoSuchGame as err:
        print(err.detail, file=sys.stderr)
        return 1
    return 0


def cmd_replay(args) -> int:
    from referee.events import Event
    from referee.games.base import ADMIN
    from referee.table import Table

    with open(args.file, encoding="utf-8") as fh:
        events = [Event.from_dict(json.loads(line)) for line in fh if line.strip()]
    if not events:
        print("the file holds no events", file=sys.stderr)
        return 1
    table = Table.from_created(events[0])
    eng = table.engine
    created = events[0].payload
    print(f"{eng.title}: game {created['id']}, "
          + ", ".join(f"seat {s['seat']} {s['name']}" for s in created["seats"]))
    for ev in events[1:]:
        table.apply(ev)
        print(f"[{ev.seq}] {ev.at}  {eng.describe(ev)}")
        if args.boards:
            print(eng.render(table.state, ADMIN))
    print()
    print(eng.render(table.state, ADMIN))
    if table.state.result:
        print(f"result: {json.dumps(table.state.result)}")
    return 0


def cmd_games(args) -> int:
    from referee.config import build_service

    rows = build_service(_config(args)).games(args.status)
    for r in rows:
        print(f"{r['id']}  {r['game']:<20} {r['status']:<9} v{r['version']:<6} {r['created_at']}")
    if not rows:
        print("no games", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="referee", description="castle-referee: an event-sourced game referee")
    sub = p.add_subparsers(dest="command", required=True)

    def store_opts(sp):
        sp.add_argument("--store", help="sqlite:///PATH (default sqlite:///referee.db) or redis://HOST:PORT/DB;"
                                        " else $REFEREE_STORE")
        sp.add_argument("--queue", help="'inline' or redis://... for referee jobs; else $REFEREE_QUEUE, "
                                        "else the Redis store, else inline")

    sp = sub.add_parser("serve", help="serve the JSON API")
    store_opts(sp)
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8000)
    sp.add_argument("--workers", type=int, default=1, help="gunicorn processes")
    sp.add_argument("--threads", type=int, default=8, help="threads per process")
    sp.add_argument("--access-log", action="store_true")
    sp.add_argument("--dev", action="store_true", help="Flask's development server instead of gunicorn")
    sp.set_defaults(fn=cmd_serve)

    sp = sub.add_parser("worker", help="run referee jobs from the Redis queue")
    store_opts(sp)
    sp.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    sp.set_defaults(fn=cmd_worker)

    sp = sub.add_parser("audit", help="verify an exported log (JSON Lines)")
    sp.add_argument("file")
    sp.set_defaults(fn=cmd_audit)

    sp = sub.add_parser("export", help="print a game's whole log as JSON Lines")
    store_opts(sp)
    sp.add_argument("game_id")
    sp.set_defaults(fn=cmd_export)

    sp = sub.add_parser("replay", help="print an exported game step by step")
    sp.add_argument("file")
    sp.add_argument("--boards", action="store_true", help="print the position after every event")
    sp.set_defaults(fn=cmd_replay)

    sp = sub.add_parser("games", help="list the games in the store")
    store_opts(sp)
    sp.add_argument("--status", choices=["active", "settling", "finished", "aborted"])
    sp.set_defaults(fn=cmd_games)
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    return args.fn(args) or 0


if __name__ == "__main__":
    sys.exit(main())

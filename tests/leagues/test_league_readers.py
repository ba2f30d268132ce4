"""A league and its games never disagree, whenever one reads them: a thread reads
the leagues, their listed games and, once finished, their exports, over and over,
while the league's jobs play it out. Each append and each game's creation is
slowed a little, so the reader has time to look between them."""

from __future__ import annotations

import threading
import time

from referee.leagues import audit_league, running
from referee.leagues.keeping import leagues_of
from referee.queue import InlineQueue
from referee.store import open_store
from referee.system import assemble
from tests.leagues.test_leagues_jobs import KOD, bots
from tests.leaguetools import started


class Reader(threading.Thread):
    """Reads every league, each game it lists and, when it says it is finished, its
    export's audit, until stopped; keeps what disagreed."""

    def __init__(self, service):
        super().__init__(daemon=True)
        self.service, self.stopping = service, threading.Event()
        self.reads, self.missing, self.unrevealed, self.rounds = 0, [], [], set()

    def run(self):
        while not self.stopping.is_set():
            for row in leagues_of(self.service).page():
                league = running.view(self.service, row["id"])
                for rnd in league["rounds"]:
                    self.rounds.add(rnd["round"])
                    self.missing += [g["game"] for g in rnd["games"]
                                     if self.service.store.record(g["game"]) is None]
                if league["status"] == "finished":
                    report = audit_league(running.export(self.service, row["id"]))
                    if report["seed"] != "verified":
                        self.unrevealed.append((league["version"], report["seed"]))
                self.reads += 1


def test_a_reader_racing_the_rounds_finds_every_listed_game_and_a_finished_league_revealed(store_url):
    service = assemble(open_store(store_url), InlineQueue())
    store, create = leagues_of(service), service.create
    append = store.append

    def slow_create(*args, **kw):
        time.sleep(0.03)
        return create(*args, **kw)

    def slow_append(*args, **kw):
        append(*args, **kw)
        time.sleep(0.03)  # what this append wrote is seen a while before the next

    service.create, store.append = slow_create, slow_append
    reader = Reader(service)
    reader.start()
    try:
        league = started(service, {"name": "Race", "game": "king-of-danger", "options": KOD,
                                          "format": "swiss", "rounds": 3, "players": bots(service, 8)})
        time.sleep(0.2)
    finally:
        reader.stopping.set()
        reader.join(30)
    assert league["status"] == "finished" and reader.rounds == {1, 2, 3} and reader.reads > 3
    assert reader.missing == []  # no league ever listed a game that was not there
    assert reader.unrevealed == []  # no league ever said finished with its seed secret

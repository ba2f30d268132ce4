"""The transparency log at work: integrating the events of every game and league
as leaves, publishing signed checkpoints, answering proofs, taking witnesses'
cosignatures (docs/trust.md, "The transparency log").

**Integrating.** A game's append is followed (``follow``): the game is noted as
having events to integrate, and a *sequencer* integrates them within a second or
so, in a batch: every noted log's events after its cursor become leaves
``game + "\\n" + seq + "\\n" + hash``, in one compare-and-set write with their
subtrees and the logs' new cursors (referee/transparency/keeping.py). Then it
publishes a checkpoint of the new size, signed by the current receipt key.

* Embedded (jobs in-process): the sequencer is a thread of the process that
  appended, woken by the reaction; the note is kept in memory.
* Redis (RQ): the note is kept in Redis and the reaction queues the
  ``transparency`` job for ``referee worker``; one sequencer at a time holds the
  tree's lock, and ``referee worker`` runs the thread too, as a safety net.

Either way, each process's thread sweeps at start for what a killed process left
unintegrated (every game and league whose length is past its cursor), and sweeps
the leagues every few seconds: a league's log is appended by its own calls and
jobs, which publish no ``Appended``.

Nothing is lost or doubled by a kill: the cursors say what is integrated, they
move only with the leaves, and a tree bigger than its last checkpoint gets one.
"""

from __future__ import annotations

import base64
import bisect
import logging
import threading
import time

from referee.events import utcnow
from referee.queue import InlineQueue, JobKind
from referee.store.base import StoreUnavailable
from referee.transparency import merkle, notes
from referee.transparency.keeping import MAX_WITNESSES, TreeStore

log = logging.getLogger("referee.transparency")

BATCH = 5000  # leaves a round writes at most in one go
MAX_LEAVES = 1000  # leaves one GET /v1/transparency/leaves answers at most
JOB = "transparency"


class Refused(ValueError):
    """A request the log cannot answer as asked; ``field`` names what is wrong."""

    def __init__(self, field: str, detail: str, status: int = 400):
        super().__init__(detail)
        self.field, self.detail, self.status = field, detail, status


def b64(h: bytes) -> str:
    return base64.b64encode(h).decode()


def leaf_data(log_id: str, seq: int, hash_: str) -> str:
    return f"{log_id}\n{seq:d}\n{hash_}"


class TransparencyLog:
    """One per service (``referee.system.assemble``): ``store`` the game store,
    ``leagues`` the league store beside it, ``ring`` the receipt key ring (its
    current key signs the checkpoints), ``tree`` where the tree is kept."""

    def __init__(self, store, leagues, ring, tree: TreeStore, origin: str | None = None):
        self.store, self.leagues, self.ring, self.tree = store, leagues, ring, tree
        self._origin_wanted = origin
        self._origin: str | None = None
        self._thread: Sequencer | None = None
        self._thread_lock = threading.Lock()
        self._courier: Courier | None = None
        self._queue = None

    @property
    def origin(self) -> str:
        if self._origin is None:
            self._origin = self.tree.origin(self._origin_wanted)
        return self._origin

    # ---- following appends --------------------------------------------------------------

    def follow(self, queue):
        """The reaction to a game's append: note it and have it integrated. It costs
        the append no round trip: embedded, the note is the sequencer's, in memory;
        with RQ it is kept here a moment and written to Redis, with the job queued,
        by a thread of this process (``Courier``), many appends' notes at once."""
        inline = isinstance(queue, InlineQueue)
        self._queue = queue

        def integrate_soon(appended) -> None:
            if inline:
                self.tree.note(appended.game_id, appended.version)
                self.sequencer(wake=True)
            else:
                self.courier(appended.game_id, appended.version)

        return integrate_soon

    def courier(self, log_id: str | None = None, version: int = 0) -> Courier:
        """This process's courier (started if none runs), given the note, if any,
        under the lock by which an idle courier ends, so that no note is left with
        a courier that has ended."""
        with self._thread_lock:
            if self._courier is None or self._courier.ended:
                self._courier = Courier(self)
                self._courier.start()
            if log_id is not None:
                self._courier.note(log_id, version)
            return self._courier

    def flush(self) -> int:
        """Write this process's notes to the store and queue the job (the courier's
        round, or a test's); how many logs were noted."""
        courier = self._courier
        return courier.flush() if courier is not None else 0

    def job(self) -> JobKind:
        """The ``transparency`` job (RQ): one round (the tree's lock says who)."""
        return JobKind(JOB, lambda service, _tree: self.integrate(), timeout=120, retry=(1, 2, 5),
                       once_within=2)

    def sequencer(self, sweep_every: float | None = None, wake: bool = False) -> Sequencer:
        """This process's sequencer thread (started if none runs), woken with
        ``wake`` under the lock by which an idle one ends."""
        with self._thread_lock:
            if self._thread is None or self._thread.ended:
                self._thread = Sequencer(self, sweep_every)
                self._thread.start()
            elif sweep_every is not None:
                self._thread.sweep_every = sweep_every
                wake = True  # its first sweep now, not after an idle wait
            if wake:
                self._thread.wake()
            return self._thread

    def _idle_end(self, thread) -> bool:
        """Whether ``thread`` (nothing asked of it lately) may end now: yes unless
        something was asked of it meanwhile; once ended, the next append starts
        another. A process's threads so come and go with its appends."""
        with self._thread_lock:
            if thread.woken.is_set():
                return False
            thread.ended = True
            return True

    # ---- integrating ----------------------------------------------------------------------

    def _events(self, log_id: str, after: int) -> list[tuple[int, str]]:
        if self.store.version(log_id) is not None:
            return [(ev.seq, ev.hash) for ev in self.store.events(log_id, after=after, limit=BATCH)]
        return [(ev.seq, ev.hash) for ev in self.leagues.events(log_id, after)[:BATCH]]

    def behind(self, games: bool = True) -> dict[str, int]:
        """The logs (every game with ``games``, every league) with events past their
        cursor: what a sweep hands the sequencer."""
        lengths = {row["id"]: row["version"] for row in self.leagues.page(limit=1_000_000)}
        if games:
            lengths.update({row["id"]: row["version"] for row in self.store.games()})
        cursors = self.tree.cursors(list(lengths))
        return {k: v for k, v in lengths.items() if v > cursors.get(k, 0)}

    def integrate(self, sweep: bool = False, games: bool = True) -> dict:
        """Rounds until nothing noted is left: integrate, then publish. ``sweep``:
        look for logs past their cursor first (``behind``)."""
        token = self.tree.lock()
        if token is None:
            return {"done": "another sequencer holds the tree"}
        try:
            if sweep:
                for log_id, version in self.behind(games).items():
                    self.tree.note(log_id, version)
            added = 0
            while True:
                n = self._round()
                added += n
                if n == 0:
                    break
            size = self.publish()
            return {"integrated": added, "size": size}
        finally:
            self.tree.unlock(token)

    def _round(self) -> int:
        pending = self.tree.pending()
        if not pending:
            return 0
        # the size first, then the cursors: an integration landing between the two
        # leaves this size stale, and the tree refuses a round that expects it; read
        # the other way, fresh size and stale cursors would offer leaves it holds
        size = self.tree.size()
        cursors = self.tree.cursors(sorted(pending))
        leaves: list[tuple[str, int, str]] = []
        moved: dict[str, int] = {}
        settled: dict[str, int] = {}
        for log_id in sorted(pending):
            if len(leaves) >= BATCH:
                break
            after = cursors.get(log_id, 0)
            found = self._events(log_id, after)
            for seq, hash_ in found:
                leaves.append((log_id, seq, leaf_data(log_id, seq, hash_)))
            last = found[-1][0] if found else after
            if found:
                moved[log_id] = last
            settled[log_id] = last
        nodes = merkle.appended(size, [merkle.leaf_hash(d.encode()) for _, _, d in leaves], self.tree)
        if not self.tree.integrate(size, leaves, nodes, moved, settled):
            return 0  # another process integrated first; what is left is still noted
        return len(leaves)

    def publish(self) -> int:
        """Sign a checkpoint of the tree as it is, unless one of its size is out."""
        size = self.tree.size()
        latest = self.tree.checkpoint()
        if latest is None or latest[0] < size:
            key = self.ring.current()
            head = notes.Checkpoint(self.origin, size, merkle.root(size, self.tree))
            self.tree.publish(size, notes.sign_checkpoint(head, key.public, key.sign))
        return size

    # ---- reading --------------------------------------------------------------------------

    def _with_cosignatures(self, size: int, note: str) -> str:
        return note + "".join(line + "\n" for line in self.tree.cosignatures(size))

    def checkpoint(self) -> str:
        """The latest checkpoint with every cosignature it has."""
        latest = self.tree.checkpoint()
        if latest is None:
            self.publish()
            latest = self.tree.checkpoint()
        return self._with_cosignatures(*latest)

    def _size(self, size, name: str) -> int:
        latest = self.tree.checkpoint()
        top = latest[0] if latest else 0
        if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= top:
            raise Refused(name, f"{name} must be a tree size from 0 to {top}, the latest checkpoint's")
        return size

    def inclusion(self, log_id: str, seq: int, size: int) -> dict:
        size = self._size(size, "size")
        index = self.tree.index_of(log_id, seq) if isinstance(seq, int) else None
        if index is None:
            raise Refused("seq", f"event {seq} of {log_id} is not in the tree yet", 404)
        if index >= size:
            raise Refused("size", f"event {seq} of {log_id} is leaf {index}: size must be above it")
        return {"index": index, "size": size,
                "hashes": [b64(h) for h in merkle.inclusion(index, size, self.tree)]}

    def consistency(self, old: int, new: int) -> dict:
        new = self._size(new, "to")
        old = self._size(old, "from")
        if old > new:
            raise Refused("from", "from must be at most to")
        return {"hashes": [b64(h) for h in merkle.consistency(old, new, self.tree)]}

    def leaves(self, start: int, end: int) -> dict:
        size = self.tree.size()
        if not 0 <= start <= size:
            raise Refused("start", f"start must be from 0 to {size}, the tree's size")
        if not start <= end <= size:
            raise Refused("end", f"end must be from start to {size}, the tree's size")
        if end - start > MAX_LEAVES:
            raise Refused("end", f"at most {MAX_LEAVES} leaves an answer: end - start <= {MAX_LEAVES}")
        return {"leaves": self.tree.leaves(start, end)}

    def fuller(self, receipt: dict) -> dict:
        """``receipt`` with ``{index, checkpoint, inclusion}`` once its event is in a
        published checkpoint: the newest cosigned one that holds it, or else the
        latest."""
        index = self.tree.index_of(receipt["game"], receipt["seq"])
        if index is None:
            return receipt
        found = None
        cosigned = self.tree.cosigned_size()
        if cosigned > index:
            found = self.tree.checkpoint(cosigned)
        if found is None:
            found = self.tree.checkpoint()
        if found is None or found[0] <= index:
            return receipt
        size, note = found
        return {**receipt, "index": index, "checkpoint": self._with_cosignatures(size, note),
                "inclusion": [b64(h) for h in merkle.inclusion(index, size, self.tree)]}

    def placed(self, log_id: str) -> dict:
        """Where a game's (or league's) events are: each integrated event's leaf, and
        whether the latest checkpoint holds it and how many witnesses cosigned a
        checkpoint that does (a witness's largest cosigned size past the leaf)."""
        latest = self.tree.checkpoint()
        size = latest[0] if latest else 0
        reach = sorted(self.tree.witnessed().values())
        out = []
        for seq, index in sorted(self.tree.places(log_id).items()):
            out.append({"seq": seq, "index": index, "in_checkpoint": index < size,
                        "witnesses": len(reach) - bisect.bisect_right(reach, index)})
        return {"checkpoint": size, "events": out}

    # ---- witnesses --------------------------------------------------------------------------

    def cosign(self, size, key: str, cosignature: str) -> dict:
        """Keep a witness's cosignature of the checkpoint of ``size``, if it verifies
        with ``key`` (the witness's C2SP verifier key)."""
        if not isinstance(key, str):
            raise Refused("key", "key is the witness's verifier key, NAME+KEYID+BASE64")
        if not isinstance(cosignature, str):
            raise Refused("cosignature", "cosignature is the witness's signature line")
        try:
            verifier = notes.parse_vkey(key)
        except notes.BadNote as err:
            raise Refused("key", str(err)) from err
        if verifier.kind != notes.COSIGNATURE:
            raise Refused("key", "a witness's verifier key has the type 0x04 (a cosignature key)")
        if not isinstance(size, int) or isinstance(size, bool):
            raise Refused("size", "size is the size of the checkpoint cosigned")
        found = self.tree.checkpoint(size) if size >= 0 else None
        if found is None:
            raise Refused("size", f"no checkpoint of size {size} was published")
        text = found[1].partition("\n\n")[0] + "\n"
        line = cosignature.strip("\n")
        try:
            note = notes.parse_note(text + "\n" + line + "\n")
        except notes.BadNote as err:
            raise Refused("cosignature", str(err)) from err
        if len(note.signatures) != 1 or notes.cosignature_by(note, verifier) is None:
            raise Refused("cosignature", "the cosignature does not verify with the key sent over that checkpoint")
        if not self.tree.add_cosignature(size, verifier.text, line, utcnow()):
            raise Refused("key", f"the referee keeps the cosignatures of at most {MAX_WITNESSES} "
                                 "witnesses, and has that many", 409)
        return {"size": size, "witness": verifier.text, "cosignatures": len(self.tree.cosignatures(size))}


class Courier(threading.Thread):
    """With RQ: the notes of this process's appends, written to Redis a moment
    after them, many at once, and the ``transparency`` job queued (at most one
    waiting). A process killed in that moment loses its notes, not the events:
    the sequencers' sweeps find every log past its cursor."""

    def __init__(self, tlog: TransparencyLog, pause: float = 0.02, idle: float = 60.0):
        super().__init__(name="transparency-courier", daemon=True)
        self.tlog, self.pause, self.idle = tlog, pause, idle
        self.notes: dict[str, int] = {}
        self.lock = threading.Lock()
        self.woken = threading.Event()
        self.ended = False

    def note(self, log_id: str, version: int) -> None:
        with self.lock:
            if version > self.notes.get(log_id, 0):
                self.notes[log_id] = version
        self.woken.set()

    def flush(self) -> int:
        with self.lock:
            notes, self.notes = self.notes, {}
        if not notes:
            return 0
        try:
            tree = self.tlog.tree
            if hasattr(tree, "note_many"):  # one round trip
                tree.note_many(notes)
            else:
                for log_id, version in notes.items():
                    tree.note(log_id, version)
            self.tlog._queue.enqueue(JOB, "tree")
        except Exception:
            with self.lock:  # kept for the next round
                for log_id, version in notes.items():
                    self.notes[log_id] = max(version, self.notes.get(log_id, 0))
            raise
        return len(notes)

    def run(self) -> None:
        while True:
            if not self.woken.wait(self.idle) and not self.notes and self.tlog._idle_end(self):
                return
            self.woken.clear()
            time.sleep(self.pause)  # the appends of a moment go together
            try:
                self.flush()
            except Exception:
                log.exception("transparency: notes not written; tried again in a moment")
                time.sleep(1.0)
                self.woken.set()


class Sequencer(threading.Thread):
    """The sequencer as a thread of this process: a round when woken (an append
    here; ``gather`` seconds later, so that the appends meanwhile go with it), and
    every ``interval`` seconds if anything is noted; with
    ``sweep_every``, a sweep of the leagues that often, and of every log at start
    and every ``full_every`` seconds (what a killed process had noted only in its
    memory)."""

    def __init__(self, tlog: TransparencyLog, sweep_every: float | None = None, interval: float = 1.0,
                 gather: float = 0.5, full_every: float = 600.0, idle: float = 60.0):
        super().__init__(name="transparency-sequencer", daemon=True)
        self.tlog, self.sweep_every, self.interval, self.gather = tlog, sweep_every, interval, gather
        self.full_every, self.idle = full_every, idle
        self.woken = threading.Event()
        self.stopping = threading.Event()
        self.ended = False

    def wake(self) -> None:
        self.woken.set()

    def run(self) -> None:
        swept = full = None
        while not self.stopping.is_set():
            try:
                now = time.monotonic()
                if self.sweep_every is not None and (swept is None or now - swept >= self.sweep_every):
                    games = full is None or now - full >= self.full_every
                    if "integrated" in self.tlog.integrate(sweep=True, games=games):  # (not: another held the tree)
                        swept = now
                        full = now if games else full
                elif self.woken.is_set() or (self.sweep_every is not None and self.tlog.tree.pending()):
                    self.woken.clear()
                    # the appends of half a second integrate in one batch: two commits
                    # (with SQLite, two fsyncs) a batch, not two a move
                    time.sleep(self.gather)
                    self.tlog.integrate()
            except StoreUnavailable as err:  # the notes stay; the next round tries again
                log.warning("transparency: the store cannot be reached (%s); the next round tries again", err)
            except Exception:  # the notes stay; the next round tries again
                log.exception("transparency: a round failed")
            if self.sweep_every is not None:
                self.woken.wait(self.interval)
            elif not self.woken.wait(self.idle) and self.tlog._idle_end(self):
                return  # a thread started by appends, none lately: the next one starts another

    def stop(self) -> None:
        self.ended = True
        self.stopping.set()
        self.woken.set()

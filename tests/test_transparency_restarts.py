"""A sequencer killed -9 between integrating a batch and publishing its checkpoint
(a real process, killed by the signal at that very point) loses nothing and
doubles nothing: the next sequencer finds the tree bigger than its last head and
publishes it, and its sweep integrates what the dead process had only noted in
its memory, or never noted (appends whose reaction the kill cut off). Both
stores."""

from __future__ import annotations

import base64
import signal
import subprocess
import sys
import textwrap
import time

from referee.system import assemble
from referee.transparency import merkle, notes
from tests.conftest import repo_root

PLAYER = textwrap.dedent("""
    import os, random, signal, sys, types
    sys.path.insert(0, {root!r})
    from referee.api import create_app
    from referee.queue import InlineQueue
    from referee.store import open_store
    from referee.system import assemble
    from tests.helpers import Game
    from tests.test_transparency_log import moves

    service = assemble(open_store({url!r}), InlineQueue())
    tlog = service.transparency
    tlog.sequencer = lambda *a, **k: types.SimpleNamespace(wake=lambda: None)  # rounds by hand here
    app = create_app(service)
    app.testing = True
    client = app.test_client()
    g = Game(client, "king-of-danger", 3, {{"seed": "killed-sequencer"}})
    moves(g, 8, random.Random(3))
    tlog.integrate()
    print(tlog.tree.size(), flush=True)
    moves(g, 8, random.Random(4))
    noted = tlog.tree.note
    tlog.tree.note = lambda *a: None  # as if the process died before these appends' reaction ran
    h = Game(client, "king-of-danger", 2, {{"seed": "killed-sequencer-2"}})
    moves(h, 3, random.Random(5))
    tlog.tree.note = noted

    def killed_here():
        os.kill(os.getpid(), signal.SIGKILL)

    tlog.publish = killed_here  # integrated, not yet published: the process dies
    tlog.integrate()
    print("not killed", flush=True)
""")


def _all_leaves(store) -> list[str]:
    out = []
    for row in store.games():
        out += [f"{row['id']}\n{ev.seq}\n{ev.hash}" for ev in store.events(row["id"])]
    return out


def test_a_sequencer_killed_between_integrating_and_publishing(store_url, store):
    run = subprocess.run([sys.executable, "-c", PLAYER.format(root=str(repo_root()), url=store_url)],
                         capture_output=True, text=True, timeout=120, cwd=repo_root())
    assert run.returncode == -signal.SIGKILL, run.stderr[-3000:]
    published_size = int(run.stdout.split()[0])

    service = assemble(store)
    tlog = service.transparency
    tree = tlog.tree
    # as the kill left it: leaves integrated past the last checkpoint, which is still the old one
    old = notes.parse_checkpoint(notes.parse_note(tree.checkpoint()[1]).text)
    assert old.size == published_size < tree.size()
    integrated_before = tree.size()

    # (with Redis, the dead sequencer's lock holds for a few seconds more)
    end = time.monotonic() + 15
    while "integrated" not in tlog.integrate(sweep=True) and time.monotonic() < end:
        time.sleep(0.2)
    leaves = tree.leaves(0, tree.size())
    assert sorted(leaves) == sorted(_all_leaves(store))  # every event, once
    assert len(leaves) == len(set(leaves)) > integrated_before
    new = notes.parse_checkpoint(notes.parse_note(tlog.checkpoint()).text)
    assert new.size == tree.size()
    assert new.root == merkle.root(new.size, tree)
    proof = [base64.b64decode(h) for h in tlog.consistency(old.size, new.size)["hashes"]]
    assert merkle.verify_consistency(old.size, new.size, old.root, new.root, proof)

"""The transparency log: every event of every game and league is a leaf of one
append-only Merkle tree, whose signed heads witnesses cosign (docs/trust.md,
"The transparency log").

* ``merkle.py``: RFC 9162's tree, pure: hashing, roots, inclusion and
  consistency proofs, made from stored complete subtrees and checked;
* ``notes.py``: C2SP signed notes, checkpoints, cosignatures and verifier keys;
* ``keeping.py``: the tree in the store (SQLite tables or one Redis hash tag):
  subtrees, leaves, each log's cursor, checkpoints and cosignatures;
* ``log.py``: the sequencer that integrates appends in batches and publishes
  checkpoints, and what the endpoints ask of the log (proofs, leaves,
  cosignatures, a receipt's inclusion).

``referee.system.assemble`` subscribes the log to the service's appends; the
service never names it.
"""

"""The transparency log: every event of every game and league is a leaf of one
append-only Merkle tree, whose signed heads witnesses cosign (docs/trust.md,
"The transparency log").

* ``merkle.py``: RFC 9162's tree, pure: hashing, roots, inclusion and
  consistency proofs, made from stored complete subtrees and checked.
"""

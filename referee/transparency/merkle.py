"""The Merkle tree of RFC 9162 (Certificate Transparency 2.0), section 2.1: its
hashing, its root, and its inclusion and consistency proofs, made and checked.

Pure: no store. The tree's hashes are kept as *complete subtrees*: the node at
``(level, index)`` is the root of leaves ``index * 2**level`` up to (not
including) ``(index + 1) * 2**level``, and it exists once all of them do, never
to change (level 0 is the leaves' own hashes). Every hash RFC 9162's
recursive definitions ask for is the root of a range of leaves, and every such
range is a handful of complete subtrees (``cover``), so a proof or a root costs
O(log n) reads of stored nodes and never a pass over the leaves. Appending a
leaf writes the complete subtrees it closes (at most log n + 1 of them).

What reads the stored nodes is handed in: ``Nodes`` (``get`` many at once);
``MemoryNodes`` is a dict of them, for tests and benchmarks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

Node = tuple[int, int]  # (level, index)

EMPTY_ROOT = hashlib.sha256(b"").digest()  # the root of the tree of no leaves (RFC 9162, 2.1.1)


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def split(n: int) -> int:
    """The largest power of two smaller than ``n`` (n > 1): where RFC 9162 splits."""
    return 1 << ((n - 1).bit_length() - 1)


def cover(start: int, end: int) -> list[Node]:
    """The complete subtrees that make up leaves [start, end), left to right, each
    the largest that starts where the one before ends. For the ranges RFC 9162's
    recursion meets (``start`` a multiple of a power of two at least ``end -
    start``), they shrink from left to right, and the range's hash is their
    right fold (``fold``)."""
    out = []
    while start < end:
        level = (start & -start).bit_length() - 1 if start else (end - start).bit_length() - 1
        while (1 << level) > end - start:
            level -= 1
        out.append((level, start >> level))
        start += 1 << level
    return out


def fold(hashes: list[bytes]) -> bytes:
    """The hash of a range from its cover's hashes: the rightmost subtree joined
    to the one before it, and so on leftwards (RFC 9162's MTH of D[k:n])."""
    acc = hashes[-1]
    for h in reversed(hashes[:-1]):
        acc = node_hash(h, acc)
    return acc


# ---- which ranges a proof is made of (RFC 9162 2.1.3.1 and 2.1.4.1) -----------------

def inclusion_ranges(index: int, size: int) -> list[tuple[int, int]]:
    """PATH(index, D[0:size]) as the leaf ranges whose hashes it lists, in order."""
    out: list[tuple[int, int]] = []
    start, end = 0, size
    while end - start > 1:  # PATH(m, D[n]) = PATH(..) : MTH(sibling); the deepest sibling first
        k = split(end - start)
        if index < start + k:
            out.append((start + k, end))
            end = start + k
        else:
            out.append((start, start + k))
            start = start + k
    return out[::-1]


def consistency_ranges(old: int, new: int) -> list[tuple[int, int]]:
    """PROOF(old, D[0:new]) = SUBPROOF(old, D[0:new], true) as leaf ranges, in order."""
    out: list[tuple[int, int]] = []
    start, end, m, whole = 0, new, old, True
    while m != end - start:
        k = split(end - start)
        if m <= k:
            out.append((start + k, end))
            end = start + k
        else:
            out.append((start, start + k))
            start, m, whole = start + k, m - k, False
    if not whole:
        out.append((start, end))  # SUBPROOF(m, D[m], false) = [MTH(D[m])]
    return out[::-1]


# ---- the tree over stored nodes ---------------------------------------------------------

class Nodes:
    """What the tree reads: ``get`` the stored hashes of these complete subtrees."""

    def get(self, nodes: Iterable[Node]) -> dict[Node, bytes]:
        raise NotImplementedError


class MemoryNodes(Nodes):
    def __init__(self):
        self.nodes: dict[Node, bytes] = {}
        self.size = 0

    def get(self, nodes):
        return {n: self.nodes[n] for n in nodes}

    def append(self, leaf_hashes: list[bytes]) -> None:
        self.nodes.update(appended(self.size, leaf_hashes, self))
        self.size += len(leaf_hashes)


def _hashes_of(ranges: list[tuple[int, int]], nodes: Nodes) -> list[bytes]:
    covers = [cover(a, b) for a, b in ranges]
    got = nodes.get({n for c in covers for n in c})
    return [fold([got[n] for n in c]) for c in covers]


def root(size: int, nodes: Nodes) -> bytes:
    return _hashes_of([(0, size)], nodes)[0] if size else EMPTY_ROOT


def inclusion(index: int, size: int, nodes: Nodes) -> list[bytes]:
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size}")
    return _hashes_of(inclusion_ranges(index, size), nodes)


def consistency(old: int, new: int, nodes: Nodes) -> list[bytes]:
    if not 0 <= old <= new:
        raise ValueError(f"no proof from a tree of {old} to one of {new}")
    if old in (0, new):
        return []
    return _hashes_of(consistency_ranges(old, new), nodes)


def appended(size: int, leaf_hashes: list[bytes], nodes: Nodes) -> dict[Node, bytes]:
    """The complete subtrees that exist once ``leaf_hashes`` follow the ``size``
    leaves already there (and did not before): what an append writes. Reads
    only the complete subtrees of the tree's right edge (``cover(0, size)``)."""
    known = nodes.get(cover(0, size)) if size else {}
    new: dict[Node, bytes] = {}
    for i, h in enumerate(leaf_hashes, start=size):
        level, index = 0, i
        new[(0, i)] = h
        while index & 1:  # a right child closes its parent
            left = (level, index - 1)
            h = node_hash(new.get(left) or known[left], h)
            level, index = level + 1, index >> 1
            new[(level, index)] = h
    return new


# ---- checking proofs (RFC 9162 2.1.3.2 and 2.1.4.2) ----------------------------------

def verify_inclusion(index: int, size: int, leaf: bytes, proof: list[bytes], root_: bytes) -> bool:
    """Whether ``proof`` shows the leaf whose hash is ``leaf`` at ``index`` in the tree
    of ``size`` leaves whose root is ``root_``."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root_


def verify_consistency(old: int, new: int, old_root: bytes, new_root: bytes, proof: list[bytes]) -> bool:
    """Whether ``proof`` shows the tree of ``old`` leaves (root ``old_root``) is the
    start of the tree of ``new`` leaves (root ``new_root``)."""
    if old > new or old < 0:
        return False
    if old == new:
        return not proof and old_root == new_root
    if old == 0:
        return not proof
    path = list(proof)
    if old & (old - 1) == 0:  # an exact power of two: the old root is itself a node of the path
        path = [old_root] + path
    if not path:
        return False
    fn, sn = old - 1, new - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == old_root and sr == new_root

"""The Merkle tree core (referee/transparency/merkle.py) against a checker written
here, straight from RFC 9162's recursive definitions (section 2.1): MTH over the
list of leaves, PATH for inclusion, PROOF/SUBPROOF for consistency. The checker
reads every leaf; the tree under test reads only its stored complete subtrees."""

from __future__ import annotations

import hashlib

import pytest

from referee.transparency import merkle

# ---- RFC 9162, 2.1.1-2.1.4, as written there -------------------------------------------

def rfc_k(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def MTH(D):
    n = len(D)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + D[0]).digest()
    k = rfc_k(n)
    return hashlib.sha256(b"\x01" + MTH(D[:k]) + MTH(D[k:])).digest()


def PATH(m, D):
    n = len(D)
    if n == 1:
        return []
    k = rfc_k(n)
    if m < k:
        return PATH(m, D[:k]) + [MTH(D[k:])]
    return PATH(m - k, D[k:]) + [MTH(D[:k])]


def SUBPROOF(m, D, b):
    n = len(D)
    if m == n:
        return [] if b else [MTH(D)]
    k = rfc_k(n)
    if m <= k:
        return SUBPROOF(m, D[:k], b) + [MTH(D[k:])]
    return SUBPROOF(m - k, D[k:], False) + [MTH(D[:k])]


def PROOF(m, D):
    return SUBPROOF(m, D, True)


def data(i):
    return f"g{i % 7}\n{i}\n{'%064x' % (i * 2654435761)}".encode()


class Counting(merkle.MemoryNodes):
    def __init__(self):
        super().__init__()
        self.reads = 0

    def get(self, nodes):
        nodes = list(nodes)
        self.reads += len(nodes)
        return super().get(nodes)


@pytest.fixture(scope="module")
def grown():
    """A tree appended in uneven batches, and its leaves' data, up to 70 leaves."""
    tree, D = Counting(), []
    for batch in (1, 1, 2, 3, 5, 8, 13, 21, 16):
        new = [data(len(D) + j) for j in range(batch)]
        tree.append([merkle.leaf_hash(d) for d in new])
        D += new
    return tree, D


def test_roots_are_the_rfc_roots_at_every_size(grown):
    tree, D = grown
    assert merkle.root(0, tree) == MTH([]) == merkle.EMPTY_ROOT
    for n in range(1, len(D) + 1):
        assert merkle.root(n, tree) == MTH(D[:n]), n


def test_inclusion_proofs_are_the_rfc_paths_and_verify(grown):
    tree, D = grown
    for n in range(1, len(D) + 1):
        r = MTH(D[:n])
        for m in range(n):
            proof = merkle.inclusion(m, n, tree)
            assert proof == PATH(m, D[:n]), (m, n)
            leaf = merkle.leaf_hash(D[m])
            assert merkle.verify_inclusion(m, n, leaf, proof, r)
            assert not merkle.verify_inclusion(m, n, merkle.leaf_hash(b"other"), proof, r)
            if proof:
                bad = list(proof)
                bad[-1] = bytes(32)
                assert not merkle.verify_inclusion(m, n, leaf, bad, r)
            if n > 1:
                assert not merkle.verify_inclusion((m + 1) % n, n, leaf, proof, r) or D[m] == D[(m + 1) % n]


def test_consistency_proofs_are_the_rfc_proofs_and_verify(grown):
    tree, D = grown
    for n in range(1, len(D) + 1):
        new_root = MTH(D[:n])
        for m in range(1, n + 1):
            proof = merkle.consistency(m, n, tree)
            assert proof == (PROOF(m, D[:n]) if m < n else []), (m, n)
            old_root = MTH(D[:m])
            assert merkle.verify_consistency(m, n, old_root, new_root, proof), (m, n)
            # a rewritten old tree (one leaf changed) is caught
            forged = D[:m - 1] + [b"rewritten"]
            assert not merkle.verify_consistency(m, n, MTH(forged), new_root, proof), (m, n)
            if proof:
                bad = list(proof)
                bad[0] = bytes(32)
                assert not merkle.verify_consistency(m, n, old_root, new_root, bad), (m, n)
    assert merkle.verify_consistency(0, 5, MTH([]), MTH(D[:5]), [])


def test_proofs_read_a_logarithmic_number_of_stored_nodes():
    tree = Counting()
    n = 5000
    tree.append([merkle.leaf_hash(data(i)) for i in range(n)])
    for m in (0, 1, 2047, 2048, 4095, 4999):
        tree.reads = 0
        merkle.inclusion(m, n, tree)
        assert tree.reads <= 2 * n.bit_length(), (m, tree.reads)
    tree.reads = 0
    merkle.consistency(1234, n, tree)
    assert tree.reads <= 2 * n.bit_length()
    tree.reads = 0
    tree.append([merkle.leaf_hash(b"one more")])
    assert tree.reads <= n.bit_length()


def test_refusals():
    tree = merkle.MemoryNodes()
    tree.append([merkle.leaf_hash(b"a")])
    with pytest.raises(ValueError):
        merkle.inclusion(1, 1, tree)
    with pytest.raises(ValueError):
        merkle.consistency(2, 1, tree)
    assert not merkle.verify_inclusion(1, 1, merkle.leaf_hash(b"a"), [], merkle.root(1, tree))
    assert not merkle.verify_consistency(2, 1, b"", b"", [])

"""The referee's randomness: reproducible from the game's seed, in any language.

Python's ``random`` promises nothing about ``shuffle`` across versions, and a log
must be re-dealt identically years later. So every random step uses this small,
fully specified generator:

* the stream for the referee step that writes event ``seq`` is the SHA-256 of
  ``"{seed}:{seq}:{counter}"`` for counter = 0, 1, 2, ... each digest read as 32
  bytes, consumed 8 bytes (big-endian unsigned) at a time;
* ``randbelow(n)`` draws 64-bit numbers and rejects those at or above the largest
  multiple of ``n`` (so there is no modulo bias), then returns ``x % n``;
* ``shuffle`` is Fisher-Yates from the end: for i = len-1 down to 1, swap i with
  ``randbelow(i + 1)``.

Without the seed (an audit of a game still running) the generator refuses to draw:
the audit then takes the logged deal as a fact it cannot yet check.
"""

from __future__ import annotations

import hashlib
import struct


class SeedUnavailable(Exception):
    """A random step was asked for where the seed is not known."""


def commitment(seed: str) -> str:
    """What the first event publishes: SHA-256 of the seed's UTF-8 bytes, hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


# a digest's 32 bytes as four 64-bit numbers, big-endian
_WORDS = struct.Struct(">4Q")
_TOP = 1 << 64


class Rng:
    def __init__(self, seed: str | None, seq: int):
        self._seed, self._seq = seed, seq
        self._counter = 0
        self._words: list[int] = []  # the current digest's numbers not drawn yet, the next last

    def _u64(self) -> int:
        if not self._words:
            if self._seed is None:
                raise SeedUnavailable("the seed is revealed only when the game ends")
            block = f"{self._seed}:{self._seq}:{self._counter}".encode()
            self._words = list(reversed(_WORDS.unpack(hashlib.sha256(block).digest())))
            self._counter += 1
        return self._words.pop()

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = _TOP - (_TOP % n)
        while True:
            x = self._u64()
            if x < limit:
                return x % n

    def shuffle(self, items) -> list:
        """A shuffled copy of ``items``."""
        out = list(items)
        u64 = self._u64  # randbelow written out: a deal draws a number per card
        for i in range(len(out) - 1, 0, -1):
            n = i + 1
            limit = _TOP - (_TOP % n)
            x = u64()
            while x >= limit:
                x = u64()
            j = x % n
            out[i], out[j] = out[j], out[i]
        return out

    def choice(self, items):
        items = list(items)
        return items[self.randbelow(len(items))]

    def sample(self, items, k: int) -> list:
        return self.shuffle(items)[:k]

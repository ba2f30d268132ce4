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


class SeedUnavailable(Exception):
    """A random step was asked for where the seed is not known."""


def commitment(seed: str) -> str:
    """What the first event publishes: SHA-256 of the seed's UTF-8 bytes, hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


class Rng:
    def __init__(self, seed: str | None, seq: int):
        self._seed, self._seq = seed, seq
        self._counter = 0
        self._buf = b""

    def _u64(self) -> int:
        if self._seed is None:
            raise SeedUnavailable("the seed is revealed only when the game ends")
        if len(self._buf) < 8:
            block = f"{self._seed}:{self._seq}:{self._counter}".encode()
            self._buf += hashlib.sha256(block).digest()
            self._counter += 1
        x, self._buf = int.from_bytes(self._buf[:8], "big"), self._buf[8:]
        return x

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self._u64()
            if x < limit:
                return x % n

    def shuffle(self, items) -> list:
        """A shuffled copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.randbelow(i + 1)
            out[i], out[j] = out[j], out[i]
        return out

    def choice(self, items):
        items = list(items)
        return items[self.randbelow(len(items))]

    def sample(self, items, k: int) -> list:
        return self.shuffle(items)[:k]

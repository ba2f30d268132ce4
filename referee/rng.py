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

    def _digest(self) -> tuple[int, int, int, int]:
        """The stream's next digest as its four numbers, in order."""
        if self._seed is None:
            raise SeedUnavailable("the seed is revealed only when the game ends")
        block = f"{self._seed}:{self._seq}:{self._counter}".encode()
        self._counter += 1
        return _WORDS.unpack(hashlib.sha256(block).digest())

    def _u64(self) -> int:
        if not self._words:
            self._words = list(reversed(self._digest()))
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
        need = len(out) - 1
        if need <= 0:
            return out
        # randbelow written out, and the stream's numbers taken a digest at a time
        # (a deal draws a number per card): the numbers left of the current digest,
        # then as many digests as one number a card needs; a number rejected takes
        # the next, another digest when none is left. What is not drawn is left for
        # the next draw, as one number at a time would leave it.
        words = self._words[::-1]
        digest = self._digest
        while len(words) < need:
            words += digest()
        k = 0
        for i in range(need, 0, -1):
            n = i + 1
            limit = _TOP - (_TOP % n)
            if k == len(words):  # (only after a number was rejected)
                words += digest()
            x = words[k]
            k += 1
            while x >= limit:
                if k == len(words):
                    words += digest()
                x = words[k]
                k += 1
            j = x % n
            out[i], out[j] = out[j], out[i]
        self._words = words[:k - 1:-1] if k < len(words) else []
        return out

    def choice(self, items):
        items = list(items)
        return items[self.randbelow(len(items))]

    def sample(self, items, k: int) -> list:
        return self.shuffle(items)[:k]

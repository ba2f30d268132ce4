"""Whole numbers a client writes with more digits than Python reads.

Python refuses to turn a text of more than 4,300 digits into an integer (a guard
against the quadratic cost of doing so, ``sys.get_int_max_str_digits``): the JSON
parser then raises in the middle of a body, before any field is known (a 500), and
a path's ``<int:...>`` fails while the route is matched (a 500, or with newer
Werkzeug a 404 that names nothing).

In a JSON body such a number is kept as ``TooManyDigits`` (never an int), so the
check that walks every body (``bodies.check_json``) refuses it naming its field,
as any other bad number is. The usual body never meets this: only a body the fast
parse refused is parsed again with the hook. In a path, such a number is past any
seat there is, so it reaches the view as one and is refused naming the field.
"""

from __future__ import annotations

import json
import sys

from werkzeug.routing import IntegerConverter


class TooManyDigits:
    """An integer of a JSON body with more digits than ``int()`` reads."""

    __slots__ = ("digits",)

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<a number of {self.digits} digits>"


def _int(text: str):
    try:
        return int(text)
    except ValueError:
        return TooManyDigits(text)


def loads_keeping_long_numbers(text: str):
    """``json.loads``, but an integer too long to read is a ``TooManyDigits``."""
    return json.loads(text, parse_int=_int)


# Larger than any seat, position or version the API takes, and cheap to compare.
PAST_ANY = 2**63


class WholeNumber(IntegerConverter):
    """``<int:...>`` in a route: digits past what ``int()`` reads are a number past
    any the API takes (``PAST_ANY``), so the view refuses it by name (400).

    Counted here, before Werkzeug's own conversion: Werkzeug 3.1.5 and newer turn
    the ``ValueError`` of such a number into "no route matches" (a 404 that names
    nothing), older ones let it escape (a 500)."""

    def to_python(self, value: str) -> int:
        limit = sys.get_int_max_str_digits()  # 0: no limit
        if limit and len(value.lstrip("-")) > limit and self.min is None and self.max is None:
            return -PAST_ANY if value.startswith("-") else PAST_ANY
        return super().to_python(value)

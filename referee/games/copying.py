"""Copying a JSON value fast: what engines do with each event's payload they keep."""

from __future__ import annotations

import copy


def json_copy(value):
    """A deep copy of a JSON value (dicts, lists and tuples of strings, numbers,
    booleans and None), for a state that must never share a payload's lists with the
    log: what copy.deepcopy gives such a value, several times faster (it has no
    memo to keep, and a payload shares no list with itself: parsed from JSON it
    cannot, and an engine's own replays as the parsed log does)."""
    kind = type(value)
    # (the leaves looked at in place: no call for each string and number)
    if kind is dict:
        return {k: v if type(v) in _LEAVES else json_copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _LEAVES else json_copy(v) for v in value]
    if kind is tuple:
        return tuple(v if type(v) in _LEAVES else json_copy(v) for v in value)
    if kind in _LEAVES:
        return value
    return copy.deepcopy(value)  # anything else, as ever


_LEAVES = frozenset((str, int, float, bool, type(None)))

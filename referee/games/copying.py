"""Copying a JSON value fast: what engines do with each event's payload they keep."""

from __future__ import annotations

import copy

import orjson


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


def large_json_copy(value):
    """``json_copy`` of a large value (a hand's whole result, say), made by orjson
    writing it and reading it back, kept when it equals the value (compared in C):
    what json_copy gives a value of JSON's own kinds, in half the time for a
    King's Keys hand's scores. Anything orjson writes otherwise (a NaN, written as
    null; a tuple, read back as a list) or cannot write (an integer past 64 bits,
    a key that is no string, a lone surrogate) is copied by json_copy, as ever."""
    try:
        copied = orjson.loads(orjson.dumps(value))
    except (TypeError, ValueError):  # (orjson's errors are both)
        return json_copy(value)
    return copied if copied == value else json_copy(value)

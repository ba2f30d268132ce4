"""``large_json_copy`` gives what ``json_copy`` gives: an equal value sharing no
list or dict with the one copied, of the same kinds, for the values orjson writes
and reads back as they were and for those it does not."""

from __future__ import annotations

import pytest

from referee.games.copying import json_copy, large_json_copy

VALUES = [
    {"hand": 1, "seats": [{"seat": 0, "collected": ["R1A", "G2S"], "stands_for": {}, "points": {"k": 10}}],
     "left_in_field": [], "ratio": 0.5, "none": None, "yes": True},
    {"nan": float("nan")}, {"inf": [float("-inf")]}, {"zero": -0.0}, {"tuple": (1, [2])},
    {1: "a key that is no string"}, {"big": 2**70}, {"surrogate": "\ud800"}, [True, 1, 1.0, "1"],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_large_copy_is_the_copy(value):
    copied = large_json_copy(value)
    assert repr(copied) == repr(json_copy(value))
    assert copied is not value


def test_a_large_copy_shares_nothing():
    value = VALUES[0]
    copied = large_json_copy(value)
    copied["seats"][0]["collected"].append("B3C")
    copied["seats"][0]["points"]["k"] = 0
    assert value["seats"][0] == {"seat": 0, "collected": ["R1A", "G2S"], "stands_for": {}, "points": {"k": 10}}

"""What every schema module shares."""

from __future__ import annotations

from marshmallow import RAISE, Schema


class Strict(Schema):
    class Meta:
        unknown = RAISE

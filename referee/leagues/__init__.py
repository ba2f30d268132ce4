"""Leagues: many games between the same players, paired round after round.

A league is an append-only, hash-chained log like a game's (``state``), whose
pairings (``pairing``) and standings (``scoring``) are functions of its seed and
its log; ``league.League`` proposes each next event, checked; ``audit`` re-derives
a whole export (``bundle``). These are pure: no store, no clock, no random but
the seed's. Above them, the league as the referee runs it: ``keeping`` (its store
beside the game store), ``running`` (its games, the job a game's end queues,
withdrawals), ``api`` and ``pages``; this package imports none of those, so the
audit needs only the core. See docs/leagues.md.
"""

from referee.leagues.audit import audit_league
from referee.leagues.bundle import export, is_bundle
from referee.leagues.league import (
    League,
    LeagueConflict,
    NoSuchPlayer,
    can_start,
    due,
    withdrawal_forfeits,
)
from referee.leagues.scoring import crosstable, placings, standings
from referee.leagues.setup import league_terms, seat_counts
from referee.leagues.state import LeagueState, evolve, replay

__all__ = ["League", "LeagueConflict", "LeagueState", "NoSuchPlayer", "audit_league",
           "can_start", "crosstable", "due", "evolve", "export", "is_bundle", "league_terms",
           "placings", "replay", "seat_counts", "standings", "withdrawal_forfeits"]

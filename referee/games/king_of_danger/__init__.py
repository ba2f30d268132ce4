"""King of Danger, the trick-taking game of Castle Trackers (2 to 5 players).

``cards`` (the deck and its codes), ``deal`` (who gets which card), ``trick`` (who
wins a trick and what it does to the trackers), ``notation`` (moves as JSON and
text), ``text`` (positions and events in words) and ``engine`` (the rules engine
the referee drives).
"""

from referee.games.king_of_danger.engine import KingOfDanger, KingOfDangerState

__all__ = ["KingOfDanger", "KingOfDangerState"]

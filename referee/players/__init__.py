"""Players: people (and bots) who play many games, with a token of their own,
contacts confirmed before anything is mailed to them, and ratings per game.

- ``store.py`` (and ``sqlite.py``, ``redis.py``): where players, their aggregates
  and the recorded games live, beside the game store.
- ``ratings.py``: pure functions from finished games' logs to ratings (OpenSkill).
- ``results.py``: ``rate_game``, the job a game's end triggers, and the check.
"""

"""The organiser's calendar: keeping time the way players live it.

A room of its own, wired in referee/system.py; the players' and the notices'
code never name it, they ask what the service was handed:

* ``settings``: a player's calendar settings (time zone, weekends off,
  vacation by itself, how many notices, the digest's hour), checked by field;
* ``keeping``: where the settings live, beside the player store (SQLite or Redis);
* ``notices``: which of the notices the log makes due a seat is sent, by its
  player's ``notices`` setting (``turns``: its turns, results, league rounds);
* ``booking``: vacations booked and the allowance's days, the rules alone;
  ``vacation_store``: where they are kept, and the index of their starts;
  ``pausing``: the bookings and auto vacation into the games' logs
  (``clock-paused`` / ``clock-resumed``, referee/vacations.py).
"""

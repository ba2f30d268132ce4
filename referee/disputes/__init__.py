"""Votes, disputes and rulings: a referee exists for disputes, and settling one
is part of the game's log.

* ``ledger.py``: what the table keeps of them and what each event is (pure);
* ``acting.py``: the seats' and the admin's requests, through the service;
* ``api.py``: their endpoints;
* ``arbiter.py``: what ``referee dispute`` prints for an arbiter.
"""

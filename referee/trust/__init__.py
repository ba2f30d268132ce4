"""What a player can show anyone: the referee's signing keys, the receipts they
sign, and their verification (docs/trust.md).

* ``keys.py``: the key ring, one current Ed25519 key and every earlier one, kept
  in the store (both stores), shared by every process;
* ``receipts.py``: a receipt's message bytes and its signing (the contract's
  format, which any language can check);
* ``verify.py``: checking a receipt against the published keys and an exported
  log, offline (``referee verify-receipt``, ``POST /v1/audit``'s receipts);
* ``api.py``: ``GET /v1/keys`` and ``GET /v1/games/{id}/receipts/{seq}``;
  ``auditing.py``: the receipt lines ``POST /v1/audit`` takes before an export;
  ``commands.py``: ``referee keys`` and ``referee verify-receipt``.

The service signs nothing of itself: ``referee.system.assemble`` hands it a
``Receipts`` over the store's key ring, and it adds a receipt to every answer
that appends. Importing this package imports nothing else: the offline command
loads only what it uses.
"""

"""Play by post and e-mail: contacts, reading mailed moves (and, as they land, the
notice outbox, e-mail out and webhooks). Each part is a module of its own that
calls ``GameService``; ``referee.mail.read`` stays the entry point for a raw
message."""

from referee.mail.reading import html_text, read

__all__ = ["html_text", "read"]

"""castle-referee: an event-sourced referee for four tabletop games."""

__version__ = "0.1.0"

"""Stacked decks and small helpers for the King's Keys tests."""

from referee.autoplay import new_table, play
from referee.games.kings_keys.cards import deck as full_deck
from referee.games.kings_keys.cards import hand_size

SEED = "kings-keys-test"


def stack(players, hands, field, pile=(), dealer=0, wild=False):
    """A deck, top first, that deals ``hands`` (by seat) one card at a time from the
    seat left of ``dealer``, then lays ``field`` and puts ``pile`` on top of the
    draw pile. Hands given short are filled with the unused cards of the deck
    taken from its end (yellow 4s first); the other unused cards, in deck order,
    are the rest of the pile."""
    per = hand_size(players, wild)
    used = [c for h in hands for c in h] + list(field) + list(pile)
    assert len(used) == len(set(used)), "a card is stacked twice"
    rest = [c for c in full_deck(wild) if c not in used]
    full = []
    for h in hands:
        h = list(h)
        while len(h) < per:
            h.append(rest.pop())
        full.append(h)
    out = []
    for r in range(per):
        for j in range(players):
            out.append(full[(dealer + 1 + j) % players][r])
    return out + list(field) + list(pile) + rest


def table_with(players, hands, field, pile=(), dealer=0, wild=False):
    deck = stack(players, hands, field, pile, dealer, wild)
    return new_table("kings-keys", players,
                     {"deck": deck, "first_dealer": dealer, "wild_cards": wild}, seed=SEED)


def move(table, seat, m, log=None):
    return play(table, seat, m, SEED, log)

"""What each viewer of a King of Danger game sees: views, redacted events, text."""

from referee.games import engine
from referee.games.base import ADMIN
from tests.games.king_of_danger_helpers import GAME, play, start
from tests.games.test_king_of_danger_hands import THREE_DECK, TWO_DECK

ANN, BOB, CY = range(3)
KOD = engine(GAME)


def test_seat_sees_its_own_hand_and_everything_public():
    table, log = start(3, THREE_DECK)
    play(table, BOB, "W7", log)
    view = KOD.view(table.state, CY)
    assert view["seat"] == CY and view["hand"] == ["W1", "W3", "W4", "C3", "C4", "Z1", "Z7", "KC"]
    assert "hands" not in view and "face_up" not in view
    assert view["hand_sizes"] == [8, 7, 8]
    assert view["leftovers"] == ["Z2", "Z4"]
    assert view["trick"] == {"cards": [[BOB, "W7"]], "suit": "walls"}
    assert view["played"] == ["W7"]
    assert view["trackers"] == [3, 3, 3] and view["scores"] == [0, 0, 0]
    assert view["to_act"] == [CY] and view["leader"] == BOB and view["stacked"] is True


def test_spectator_sees_no_hand_and_admin_sees_all():
    table, _ = start(3, THREE_DECK)
    spectator = KOD.view(table.state, None)
    assert "hand" not in spectator and "hands" not in spectator
    admin = KOD.view(table.state, ADMIN)
    assert admin["hands"][ANN] == ["W2", "C1", "C2", "Z3", "Z5", "Z6", "Z8", "KD"]


def test_two_player_views_show_face_up_cards_but_no_face_down_card():
    table, _ = start(2, TWO_DECK)
    for viewer in (ANN, BOB, None):
        view = KOD.view(table.state, viewer)
        assert view["face_up"] == [["W1", "C1", "C2", "C3"], ["W7", "C7", "C6", "Z1"]]
        assert view["covered"] == [[True] * 4, [True] * 4]
        assert "face_down" not in view
    assert KOD.view(table.state, ADMIN)["face_down"] == [["W2", "Z8", "W4", "Z6"],
                                                         ["C5", "W5", "KZ", "Z7"]]


def test_the_deal_is_redacted_per_viewer():
    table, log = start(2, TWO_DECK)
    dealt = log[1]
    mine = KOD.redact(dealt, ANN)
    assert mine["hands"] == [["KC", "KD", "Z4", "Z5", "Z2"], None]
    assert mine["face_down"] == [[None] * 4, [None] * 4]
    assert mine["face_up"] == dealt.payload["face_up"] and mine["hand_sizes"] == [5, 5]
    assert KOD.redact(dealt, None)["hands"] == [None, None]
    assert KOD.redact(dealt, ADMIN) == dealt.payload
    # the explicit deck in the first event is for the admin only
    assert KOD.redact(log[0], BOB)["options"]["deck"] == "hidden"
    assert KOD.redact(log[0], ADMIN)["options"]["deck"] == TWO_DECK
    # a card turned up is public from then on
    played = play(table, BOB, "W7", log)[0]
    assert KOD.redact(played, ANN) == played.payload


def test_render_shows_the_viewer_only_what_they_may_see():
    table, log = start(3, THREE_DECK)
    play(table, BOB, "W7", log)
    text = KOD.render(table.state, CY)
    assert "Your hand: W1 W3 W4 C3 C4 Z1 Z7 KC" in text
    assert "KD" not in text  # in Ann's hand
    assert "Trick 1 (walls trick), led by Bob: Bob W7" in text
    assert "Set aside this hand: Z2 Z4" in text and "To play: Cy" in text
    assert "Ann's hand: W2 C1 C2 Z3 Z5 Z6 Z8 KD" in KOD.render(table.state, ADMIN)


def test_render_of_a_finished_game_names_the_winner():
    from tests.games.test_king_of_danger_hands import THREE_TRICKS

    table, _ = start(3, THREE_DECK, target=6)
    for plays, *_ in THREE_TRICKS:
        for seat, move in plays:
            play(table, seat, move)
    assert "Game over: Bob won" in KOD.render(table.state, None)


def test_describe_each_event():
    table, log = start(3, THREE_DECK)
    assert KOD.describe(log[1]) == "referee: hand 1 dealt by seat 0, Z2 Z4 set aside"
    play(table, BOB, "W7", log)
    play(table, CY, "W1", log)
    events = play(table, ANN, "W2", log)
    assert KOD.describe(log[2]) == "seat 1 plays W7"
    assert KOD.describe(events[1]) == ("seat 1 wins trick 1 (walls) with the highest card;"
                                       " trackers 4 5 4")
    scored = [e for e in table.propose_step(None)[0]]
    assert scored == []  # nothing due mid-hand


def test_describe_table_cards_kings_and_the_end_of_a_hand():
    table, log = start(2, TWO_DECK, target=6)
    assert KOD.describe(play(table, BOB, "W7")[0]) == "seat 1 plays W7, turning up C5"
    play(table, ANN, "W1")
    assert KOD.describe(play(table, BOB, "KW")[0]) == "seat 1 plays KW (King of Walls)"
    aside = play(table, ANN, "KC")[1]
    assert KOD.describe(aside) == "trick 2 was all Kings: set aside, seat 1 leads again"
    from tests.games.test_king_of_danger_hands import TWO_TRICKS

    events = []
    for plays, *_ in TWO_TRICKS[2:]:
        for seat, move in plays:
            events += play(table, seat, move)
    lines = [KOD.describe(e) for e in events][-6:]  # the seed reveal comes last
    assert lines[0] == "seat 1 plays Z3, naming walls"
    assert lines[1] == "seat 0 plays Z2"
    assert lines[2] == "seat 1 wins trick 13 (walls) with the highest card; trackers 3 6"
    assert lines[3] == "referee: hand 1 scored, trackers 3 6, scores 3 6"
    assert lines[4] == "referee: game over, Bob has the highest score, 6, after hand 1 (target 6)"

import pytest

from referee.autoplay import new_table, play, random_game
from referee.games.base import GameOver, IllegalMove, NotYourTurn
from referee.table import Table
from tests.toy_engine import install

install()


def test_first_step_is_dealt_and_chain_links():
    table, log = new_table("toy-nim", 2, seed="abc")
    assert [e.seq for e in log] == [1, 2]
    assert log[1].prev == log[0].hash and log[1].compute_hash() == log[1].hash
    assert table.status == "active" and table.to_act() == [0]


def test_same_seed_same_deal_other_seed_other_deal():
    a = new_table("toy-nim", 2, seed="abc")[1][1].payload
    b = new_table("toy-nim", 2, seed="abc")[1][1].payload
    c = new_table("toy-nim", 2, seed="abd")[1][1].payload
    assert a == b and a != c


def test_refused_batch_changes_nothing():
    table, log = new_table("toy-nim", 2, seed="abc")
    before = (table.seq, table.last_hash, table.state.pile)
    with pytest.raises(NotYourTurn):
        table.propose(0, [{"type": "take", "n": 1}, {"type": "take", "n": 1}])
    assert (table.seq, table.last_hash, table.state.pile) == before


def test_illegal_move_names_rule_and_index():
    table, _ = new_table("toy-nim", 2, seed="abc")
    table.state.pile = 2
    with pytest.raises(IllegalMove) as err:
        table.propose(0, [{"type": "take", "n": 3}, {"type": "take", "n": 1}])
    assert err.value.rule == "pile-too-small" and err.value.extra["index"] == 0
    assert table.state.pile == 2 and table.state.turn == 0


def test_game_ends_and_seed_is_revealed_and_replays():
    table, log = random_game("toy-nim", 3, seed="xyz", check=True)
    assert table.over and table.status == "finished"
    assert log[-1].type == "seed-revealed" and log[-1].payload["seed"] == "xyz"
    replayed = Table.replay(log)
    assert replayed.state == table.state and replayed.last_hash == table.last_hash
    with pytest.raises(GameOver):
        table.propose(0, [{"type": "take", "n": 1}])


def test_resign_ends_the_game_for_the_others():
    table, log = new_table("toy-nim", 2, seed="abc")
    play(table, 1, {"type": "resign"}, "abc", log)
    assert table.state.result["winners"] == [0]
    assert table.status == "finished"


def test_an_explicit_deck_with_copies_reports_only_what_is_wrong():
    from referee.games.base import BadOptions, check_deck

    cards = ["a", "a", "b"]
    check_deck({"deck": ["a", "b", "a"]}, "deck", cards)
    with pytest.raises(BadOptions) as err:
        check_deck({"deck": ["a", "b", "b"]}, "deck", cards)
    assert "missing ['a']" in err.value.detail and "extra ['b']" in err.value.detail
    with pytest.raises(BadOptions) as err:
        check_deck({"deck": [["a", "a", "b"], ["a", "b"]]}, "deck", cards)
    assert err.value.extra["field"] == "deck[1]" and "deck[1]" in err.value.detail


def test_a_sealed_event_cannot_be_changed_through_its_payload_objects():
    from referee.events import Draft, chain

    payload = {"hands": [["a", "b"]]}
    ev = chain([Draft("dealt", payload)], "referee", 1, "0" * 64)[0]
    text = ev.to_json()
    payload["hands"][0].append("c")  # an engine that kept the list and changed it
    assert ev.to_json() == text and ev.to_dict()["payload"] == {"hands": [["a", "b"]]}
    copy = ev.copy()
    copy.payload["hands"][0].clear()
    assert ev.to_json() == text


def test_evolve_gets_its_own_copy_of_each_event():
    table, log = new_table("toy-nim", 2, seed="abc")
    secret = table.state.secret
    secret["0"] = -1  # the state's dict must not be the logged event's
    assert log[1].payload["secret"]["0"] != -1


def test_an_event_time_is_utc_iso_8601_with_microseconds_and_z():
    # the log's "at" format; whole seconds keep their ".000000"
    from datetime import datetime

    from freezegun import freeze_time

    from referee.events import utcnow

    for moment in ("2026-01-02 03:04:05", "2026-12-31 23:59:59.999999", "2031-06-15 12:00:00.000001"):
        with freeze_time(moment):
            assert utcnow() == datetime.fromisoformat(moment).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert utcnow().endswith("Z") and len(utcnow()) == len("2026-01-02T03:04:05.000000Z")

"""The league audit: a bundle of real games passes; an edited result, a swapped or
missing game, a forged pairing or standings, a bad line each fail, named where."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from referee.autoplay import new_table, play
from referee.bots import candidates
from referee.events import Event, canonical_text
from referee.leagues import audit_league, is_bundle, standings

from .helpers import AT, Run, play_game, players


@pytest.fixture(scope="module")
def round_robin():
    return Run(name="RR", game="castle-danger", options={"turn_limit": 4}, format="round-robin",
               players=players(4)).play_all()


@pytest.fixture(scope="module")
def swiss():
    return Run(name="Swiss", game="castle-danger", options={"turn_limit": 3}, format="swiss",
               players=players(5), rounds=3).play_all(withdraw={2: "p2"})


@pytest.fixture(scope="module")
def tables():
    return Run(name="Tables", game="king-of-danger", options={"target": 11}, format="tables",
               players=players(7), rounds=2, table_size=4).play_all()


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def join(rows: list[dict]) -> str:
    return "".join(canonical_text(r) + "\n" for r in rows)


def reseal(rows: list[dict]) -> list[dict]:
    """What a forger does to the league's log: recompute every hash after a change."""
    prev = "0" * 64
    for r in rows:
        if r["log"] == "league":
            ev = Event.from_dict({**r["event"], "prev": prev, "hash": ""}).sealed()
            r["event"], prev = ev.to_dict(), ev.hash
    return rows


def first_error(text: str) -> dict:
    report = audit_league(text)
    assert not report["valid"]
    return report["first_error"]


def league_seq(rows, kind: str, nth: int = 0) -> int:
    return [r for r in rows if r["log"] == "league" and r["event"]["type"] == kind][nth][
        "event"]["seq"]


@pytest.mark.parametrize("name", ["round_robin", "swiss", "tables"])
def test_a_clean_league_passes(name, request):
    run = request.getfixturevalue(name)
    text = run.bundle()
    assert is_bundle(text)
    report = audit_league(text)
    assert report["valid"] and report["first_error"] is None, report["first_error"]
    assert report["chain"] == "ok" and report["seed"] == "verified"
    assert report["events"] == len(run.events) and report["games"] == len(run.games)
    assert report["standings"] == standings(run.state) == run.state.standings


def test_a_running_league_passes_with_its_seed_unrevealed(swiss):
    rows = lines(swiss.bundle())
    cut = league_seq(rows, "round-paired", 1)  # up to round 2's pairing
    kept = [r for r in rows if r["log"] == "league" and r["event"]["seq"] <= cut]
    games = {t["game"] for r in kept if r["event"]["type"] == "round-paired"
             for t in r["event"]["payload"]["tables"]}
    done = {r["event"]["payload"]["game"] for r in kept if r["event"]["type"] == "result-recorded"}
    kept += [r for r in rows if r["log"] == "game" and r["game"] in done]
    report = audit_league(join(kept))
    assert report["valid"] and report["seed"] == "unrevealed", report["first_error"]
    assert done < games  # round 2's games still running, their logs not in the export
    # the lots, unverifiable while the seed is secret, must still draw every player once
    first = next(r for r in kept if r["event"]["type"] == "round-paired")
    first["event"]["payload"]["lots"][0] = first["event"]["payload"]["lots"][1]
    assert first_error(join(reseal(kept)))["code"] == "bad-lots"


def test_round_ones_lots_that_hold_a_player_twice_fail_while_the_seed_is_secret(swiss):
    """Every player still in once, and one of them again: still no drawing of the
    players (the lots cannot be re-drawn before the reveal, so this is all that
    holds them)."""
    rows = lines(swiss.bundle())
    cut = league_seq(rows, "round-paired")
    kept = [r for r in rows if r["log"] == "league" and r["event"]["seq"] <= cut]
    assert audit_league(join(kept))["valid"]
    lots = kept[-1]["event"]["payload"]["lots"]
    assert sorted(lots) == sorted(swiss.state.players)
    lots.append(lots[0])
    err = first_error(join(reseal(kept)))
    assert err == {"where": f"league event {cut}", "code": "bad-lots",
                   "detail": "round 1's lots must draw every player still in, each once"}


def _swapped(run: Run, game_id: str, names: list[str], created_as: str) -> str:
    """The bundle with game ``game_id``'s log replaced by a real game of the league's
    game and options, seated ``names``, created under the id ``created_as``."""
    rows = [r for r in lines(run.bundle()) if r.get("game") != game_id]
    _, other = play_game("castle-danger", created_as, names, {"turn_limit": 4}, f"seed-{game_id}")
    return join(rows + [{"event": json.loads(ev.to_json()), "game": game_id, "log": "game"}
                        for ev in other])


def test_a_names_only_league_game_seated_in_another_order_fails(round_robin):
    table = round_robin.state.rounds[0].tables[0]
    names = [round_robin.state.players[p] for p in table["seats"]]
    created = json.loads(round_robin.games[table["game"]][0].to_json())["payload"]["seats"]
    assert [s["name"] for s in created] == names and not any("player" in s for s in created)
    err = first_error(_swapped(round_robin, table["game"], names[::-1], table["game"]))
    assert err == {"where": f"game {table['game']} event 1", "code": "not-the-paired-game",
                   "detail": err["detail"]}
    assert "its seats are not the pairing's players in order" in err["detail"]


def test_the_same_players_game_under_another_id_fails(round_robin):
    table = round_robin.state.rounds[0].tables[0]
    names = [round_robin.state.players[p] for p in table["seats"]]
    err = first_error(_swapped(round_robin, table["game"], names, "another-id"))
    assert err == {"where": f"game {table['game']} event 1", "code": "not-the-paired-game",
                   "detail": err["detail"]}
    assert "its id is 'another-id'" in err["detail"]


@pytest.mark.parametrize("how", ["resigned", "forfeited"])
def test_a_seat_that_resigned_or_forfeited_is_placed_last_at_a_table_of_three(how):
    """Placed last whatever its score (its score here is the middle one), by the
    referee and by the audit, which reads the resignation or the forfeit from the
    game's log: the others, who play the game on to its end without the seat
    (house rule on_resign), by its result."""
    run = Run(name="Three", game="king-of-danger", options={"target": 200}, format="tables",
              players=players(3), rounds=1, table_size=3,
              clock={"move_seconds": 60, "on_timeout": "forfeit"})
    run.pair()
    game_id = run.state.open_round().tables[0]["game"]
    names = [run.state.players[p] for p in run.state.open_round().seats(game_id)]
    seed = f"seed-{game_id}"
    table, log = new_table("king-of-danger", names, run.options(), seed, game_id)
    rnd = random.Random(3)
    while True:  # play on until the three scores differ and the middle one is to act
        scores = table.state.scores
        middle = sorted(range(3), key=lambda s: scores[s])[1]
        if len(set(scores)) == 3 and middle in table.to_act():
            break
        seat = rnd.choice(table.to_act())
        play(table, seat, rnd.choice(candidates(table.engine, table.state, seat)), seed, log)
    if how == "resigned":
        play(table, middle, {"type": "resign"}, seed, log)
    else:
        events, fork = table.propose_timeout(middle, "2099-01-01T00:00:00.000000Z", seed=seed)
        table.commit(fork)
        log += events + table.settle_all(seed)
    assert how in [ev.type for ev in log]
    assert not table.over and table.state.left == (middle,)
    while not table.over:  # the two still in play on; the referee plays the third seat
        seat = rnd.choice(table.to_act())
        play(table, seat, rnd.choice(candidates(table.engine, table.state, seat)), seed, log)
    run.games[game_id] = log
    recorded = run.commit(run.league.propose_result(game_id, log, at=AT))[0]
    winner, = table.state.result["winners"]
    assert recorded.payload["placings"][middle] == 3 and recorded.payload["placings"][winner] == 1
    run.settle()
    assert run.state.finished
    report = audit_league(run.bundle())
    assert report["valid"], report["first_error"]


def test_an_edited_result_line_fails(round_robin):
    rows = lines(round_robin.bundle())
    seq = league_seq(rows, "result-recorded", 2)
    row = rows[seq - 1]
    placings = row["event"]["payload"]["placings"]
    row["event"]["payload"]["placings"] = [1, 2] if placings != [1, 2] else [2, 1]
    assert first_error(join(rows)) == {
        "where": f"league event {seq}", "code": "bad-hash",
        "detail": f"event {seq}'s hash does not match its content"}
    # resealed, the chain is whole again, but the result is not the game's
    err = first_error(join(reseal(rows)))
    assert err["where"] == f"league event {seq}" and err["code"] == "diverges"
    assert "placings" in err["detail"]


def test_a_game_swapped_for_another_fails(round_robin, tmp_path):
    rows = lines(round_robin.bundle())
    seq = league_seq(rows, "result-recorded", 0)
    game_id = rows[seq - 1]["event"]["payload"]["game"]
    table = round_robin.state.rounds[0].tables[0]
    assert table["game"] == game_id
    names = [round_robin.state.players[p] for p in table["seats"]]
    # the same players, the same id, another deal: a real game, but not the one recorded
    _, other = play_game("castle-danger", game_id, names, {"turn_limit": 4}, "another-seed")
    swapped = [r for r in rows if r.get("game") != game_id]
    swapped += [{"event": json.loads(ev.to_json()), "game": game_id, "log": "game"}
                for ev in other]
    err = first_error(join(swapped))
    # the game is named, and what sets it apart: not the league's log
    assert err == {"where": f"game {game_id}", "code": "not-the-recorded-game",
                   "detail": f"game {game_id}'s last hash is {other[-1].hash}, not the "
                             f"{rows[seq - 1]['event']['payload']['last_hash']} the league recorded at event "
                             f"{seq}: the game in the bundle is not the game whose result the league recorded"}
    path = tmp_path / "swapped.jsonl"
    path.write_text(join(swapped))
    r = subprocess.run([sys.executable, "-m", "referee.cli", "audit-league", str(path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 1 and json.loads(r.stdout)["first_error"] == err
    assert r.stderr == f"first divergence: game {game_id}: not-the-recorded-game: {err['detail']}\n"
    r = subprocess.run([sys.executable, "-m", "referee.cli", "audit-league", str(tmp_path / "none.jsonl")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "cannot be read" in r.stderr and "Traceback" not in r.stderr
    # another game of the league under this one's name
    second = round_robin.state.rounds[0].tables[1]["game"]
    renamed = [r for r in rows if r.get("game") != game_id]
    renamed += [{**r, "game": game_id} for r in rows if r.get("game") == second]
    err = first_error(join(renamed))
    assert err["where"] == f"game {game_id} event 1" and err["code"] == "not-the-paired-game"


def test_a_missing_or_a_stray_game_fails(round_robin, tables):
    rows = lines(round_robin.bundle())
    game_id = round_robin.state.rounds[1].tables[0]["game"]
    assert first_error(join([r for r in rows if r.get("game") != game_id]))["code"] == \
        "missing-game"
    stray = [{**r, "game": "stray"} for r in lines(tables.bundle()) if r["log"] == "game"]
    stray = [r for r in stray if r["event"]["seq"] <= 3]
    assert first_error(join(rows + stray)) == {
        "where": "game stray", "code": "unexpected-game",
        "detail": "game stray is in the bundle but the league never paired it"}


def test_a_tampered_game_log_fails_where_the_game_audit_says(tables):
    rows = lines(tables.bundle())
    game_id = tables.state.rounds[1].tables[0]["game"]
    move = next(r for r in rows if r.get("game") == game_id and isinstance(r["event"]["actor"], int))
    move["event"]["at"] = "2030-01-01T00:00:00.000000Z"
    err = first_error(join(rows))
    assert err["where"] == f"game {game_id} event {move['event']['seq']}"
    assert err["code"] == "bad-hash"


def test_a_forged_pairing_fails(swiss):
    rows = lines(swiss.bundle())
    seq = league_seq(rows, "round-paired", 1)
    tables = rows[seq - 1]["event"]["payload"]["tables"]
    tables[0]["seats"][1], tables[1]["seats"][1] = tables[1]["seats"][1], tables[0]["seats"][1]
    err = first_error(join(reseal(rows)))
    assert err["where"] == f"league event {seq}" and err["code"] == "diverges"
    # round 1's lots are re-drawn from the revealed seed
    rows = lines(swiss.bundle())
    lots = rows[league_seq(rows, "round-paired") - 1]["event"]["payload"]["lots"]
    lots.reverse()
    assert first_error(join(reseal(rows)))["code"] == "diverges"


def test_forged_standings_fail(tables):
    rows = lines(tables.bundle())
    seq = league_seq(rows, "league-finished")
    final = rows[seq - 1]["event"]["payload"]["standings"]
    final[0]["points"], final[1]["points"] = final[1]["points"], final[0]["points"]
    err = first_error(join(reseal(rows)))
    assert err == {"where": f"league event {seq}", "code": "diverges", "detail": err["detail"]}


def test_a_revealed_seed_must_be_the_committed_one(round_robin):
    rows = lines(round_robin.bundle())
    rows[len(round_robin.events) - 1]["event"]["payload"]["seed"] = "guess"
    report = audit_league(join(reseal(rows)))
    assert report["seed"] == "mismatch" and report["first_error"]["code"] == "seed-mismatch"


def test_an_event_out_of_its_turn_fails(round_robin):
    rows = lines(round_robin.bundle())
    seq = league_seq(rows, "round-closed")
    rows[seq - 2], rows[seq - 1] = rows[seq - 1], rows[seq - 2]  # closed before its last result
    for i, r in enumerate(rows[:len(round_robin.events)], start=1):
        r["event"]["seq"] = i
    err = first_error(join(reseal(rows)))
    assert err["where"] == f"league event {seq - 1}" and err["code"] == "unexpected-event"


def test_lines_that_are_no_bundle_fail(round_robin):
    text = round_robin.bundle()
    first, rest = text.split("\n", 1)
    assert first_error(first.replace(":", ": ", 1) + "\n" + rest) == {
        "where": "bundle line 1", "code": "not-canonical",
        "detail": "bundle line 1 is not in canonical JSON form"}
    assert first_error('{"log":"league"}\n')["code"] == "malformed"
    assert first_error(b"\xff\n")["where"] == "bundle line 1"
    assert first_error("")["code"] == "malformed"
    game_only = "".join(r for r in text.splitlines(True) if '"log":"game"' in r)
    assert first_error(game_only)["where"] == "league"
    assert not is_bundle(round_robin.events[0].to_json() + "\n")


@pytest.mark.parametrize("which", ["round_robin", "tables"])
def test_a_bundle_read_by_cutting_is_judged_as_read_whole(which, request, monkeypatch):
    """The usual bundle's lines are cut around their events, each log's read when
    it is audited (referee/leagues/bundle.py, ``cut``), instead of every line read
    whole first (``split``). Over a real bundle and lines changed in the ways a
    forger or a careless tool would (a space, an escape, a key added, a quote in a
    game's id, a line of one log marked as the other's, a line that is no JSON),
    the reports are the very ones the long way gives, line for line."""
    import random

    from referee.leagues import bundle

    text = request.getfixturevalue(which).bundle()
    rows = text.splitlines()
    changes = [
        lambda r: r.replace(":", ": ", 1),
        lambda r: r.replace('"log":"game"', '"log":"league"').replace('"log":"league"}', '"log":"game"}'),
        lambda r: r.replace('"game":"', '"game":"x\\"', 1),
        lambda r: r.replace('","log"', '\\u0041","log"', 1),
        lambda r: r[:-1] + ',"x":1}',
        lambda r: r.replace('{"event":{', '{"event":{"a":1,', 1),
        lambda r: r.replace('"type":"', '"type":"\\u0074', 1),
        lambda r: r.replace('"seq":', '"seq":1', 1),
        lambda r: r[: len(r) // 2],
    ]
    rnd = random.Random(which)
    forms = [text, text.replace("\n", "\r\n", 1), text.encode()]
    for k in rnd.sample(range(len(rows)), 8) + [0, len(rows) - 1]:
        for change in changes:
            forms.append("\n".join([*rows[:k], change(rows[k]), *rows[k + 1:]]) + "\n")
    # Two changes, one in the league's log and one in a game's, each alone a fault
    # the other order would name first: the report is the one the order of the
    # module's docstring gives (every line read first), however the bundle is read.
    league = [k for k, r in enumerate(rows) if r.endswith('"log":"league"}')]
    games = [k for k, r in enumerate(rows) if r.endswith('"log":"game"}')]
    for _ in range(6):
        a, b = rnd.choice(league[1:]), rnd.choice(games[len(games) // 2:])
        changed = list(rows)
        changed[a] = changes[7](changed[a])  # a seq out of its place in the league's log
        changed[b] = rnd.choice([changes[0], changes[3], changes[6]])(changed[b])  # not canonical
        forms.append("\n".join(changed) + "\n")
    lazy = [audit_league(f) for f in forms]  # each log's lines read with that log, first
    monkeypatch.setattr(bundle, "cut", lambda text: None)
    whole = [audit_league(f) for f in forms]  # every line read whole first
    assert lazy == whole
    assert whole[0]["valid"] and whole[2]["valid"] and sum(not r["valid"] for r in whole) >= len(forms) - 13
    assert len({json.dumps(r["first_error"], sort_keys=True) for r in whole}) >= 8
    assert all(r["first_error"]["where"].startswith("bundle line") for r in whole[-6:])


def test_a_bundle_found_wrong_is_reported_in_the_documented_order(round_robin, monkeypatch):
    """The usual bundle is audited a log at a time first (``bundle.cut``); found
    wrong, it is audited again with every line read first, so a bundle wrong in two
    places names the place that order finds first: here a game's line that is not
    canonical, though the league's log, read earlier a log at a time, is wrong too.
    And a right bundle is judged by the first reading alone."""
    from referee.leagues import bundle

    rows = lines(round_robin.bundle())
    seq = league_seq(rows, "round-closed")
    rows[seq - 1]["event"]["payload"]["round"] = 9  # a forged close, its hashes made again
    text = join(reseal(rows)).splitlines()
    late = max(k for k, r in enumerate(text) if r.endswith('"log":"game"}'))
    text[late] = text[late].replace('"actor":', '"actor": ', 1)  # inside the event
    assert first_error("\n".join(text) + "\n") == {
        "where": f"bundle line {late + 1}", "code": "not-canonical",
        "detail": f"bundle line {late + 1} is not in canonical JSON form"}
    text[late] = text[late].replace('"actor": ', '"actor":', 1)
    assert first_error("\n".join(text) + "\n")["where"] == f"league event {seq}"

    def no_second_reading(text):
        raise AssertionError("a right bundle is read once")

    monkeypatch.setattr(bundle, "split", no_second_reading)
    assert audit_league(round_robin.bundle())["valid"]


def test_a_league_game_whose_seat_a_bot_played_fails(round_robin):
    """A league game must be played by the league's players: a seat played by one
    of the referee's bots is allowed only as the seat of that league player's own
    bot account. The same players, the same id and options, a real game, but seat 0
    a bot with no player behind it: the audit names the game and says so."""
    import random

    from referee.bots import candidates
    from referee.table import Table, bot_kinds

    from .helpers import AT

    rows = lines(round_robin.bundle())
    table0 = round_robin.state.rounds[0].tables[0]
    game_id = table0["game"]
    names = [round_robin.state.players[p] for p in table0["seats"]]
    kind = sorted(bot_kinds())[0]
    created = Table.created_event("castle-danger", game_id, names, {"turn_limit": 4}, "bot-seed", False, AT,
                                  bots={0: kind})
    table = Table.from_created(created)
    log = [created] + table.settle_all("bot-seed")
    rnd = random.Random(1)
    while not table.over:
        seat = rnd.choice(table.to_act())
        events, fork = table.propose(seat, [rnd.choice(candidates(table.engine, table.state, seat))],
                                     seed="bot-seed")
        table.commit(fork)
        log += events + table.settle_all("bot-seed")
    assert created.payload["seats"][0].get("bot") == kind
    assert any(ev.actor == 0 for ev in log[1:])  # the bot moved for seat 0
    swapped = [r for r in rows if r.get("game") != game_id]
    swapped += [{"event": json.loads(ev.to_json()), "game": game_id, "log": "game"} for ev in log]
    err = first_error(join(swapped))
    assert err["where"] == f"game {game_id} event 1" and err["code"] == "not-the-paired-game"
    assert "a seat was a bot's" in err["detail"]

"""People who leave: the turn clock hands an absent person's seat to a bot and back,
tables nobody is at are closed and leave the lobby, and a bot that fails is replaced
in the open (never a move made up in silence)."""

from __future__ import annotations

import asyncio
import json

from cardrl.web.db import Store
from cardrl.web.lobby import Lobby
from tests.web_util import T0, Clock, Person

TURN, GRACE, ABANDON = 60.0, 20.0, 300.0


def with_lobby(test):
    async def main():
        clock = Clock()
        lobby = Lobby(Store("sqlite://"), clock=clock, turn=TURN, grace=GRACE,
                      abandon=ABANDON)
        users = {n: lobby.store.create_user(n, "x", T0) for n in ("ann", "bob", "cat")}
        try:
            await test(lobby, clock, users)
        finally:
            for t in lobby.tables.values():
                if t.bot_task:
                    t.bot_task.cancel()
            lobby.runner.shutdown()
    return lambda: asyncio.run(main())


async def settle(lobby) -> None:
    """Let the bots play until a person is to move (or the game ends)."""
    for _ in range(10_000):
        if not any(t.bot_task and not t.bot_task.done() for t in lobby.tables.values()):
            return
        await asyncio.sleep(0)
    raise AssertionError("the bots did not settle")


def stored_movers(lobby, table) -> list[int]:
    return [seat for seat, _ in lobby.store.table(table.id)["moves"]]


@with_lobby
async def test_an_absent_persons_seat_gets_a_bot_after_the_clock_and_comes_back(
        lobby, clock, users):
    table = lobby.create_table(users["ann"], "sevens", seats=[
        "me", "open", "bot:sevens/greedy", "bot:sevens/greedy"])
    lobby.sit(users["bob"], table.id)
    ann, bob = Person(users["ann"], "ann"), Person(users["bob"], "bob")
    lobby.join(ann, table)
    lobby.join(bob, table)
    await settle(lobby)
    assert table.status == "playing" and table.to_move() == 0  # ann leads
    lobby.disconnect(bob)  # bob closes the page
    ann.messages()

    # ann is at the table: she has the whole turn clock
    clock.now += TURN - 1
    lobby.tick()
    await settle(lobby)
    assert table.ply == 0 and not table.seats[0].away
    clock.now += 1
    lobby.tick()
    await settle(lobby)
    # her time ran out: a bot played her card, the greedy bots theirs, and bob - gone -
    # has only the grace period, which has not passed yet
    assert table.seats[0].away and table.ply == 1 and table.to_move() == 1
    said = ann.messages()
    assert any("ann's time ran out" in (m["notice"] or "") for m in said)
    assert said[-1]["legal"] == [] and said[-1]["players"][0]["away"]
    # a move from ann while her stand-in plays is refused; she says she is back
    lobby.handle(ann, json.dumps({"type": "move", "table": table.id, "action": 0}))
    assert "say you are back" in ann.messages()[-1]["error"]
    lobby.handle(ann, json.dumps({"type": "back", "table": table.id}))
    assert not table.seats[0].away and ann.messages()[-1]["notice"] == "ann is back."

    clock.now += GRACE  # bob's grace period is over: his stand-in plays, then the bots
    lobby.tick()
    await settle(lobby)
    assert table.seats[1].away and table.ply == 4 and table.to_move() == 0
    assert stored_movers(lobby, table) == [0, 1, 2, 3]
    assert ann.messages()[-1]["legal"]  # ann's own move to make: nobody plays it for her
    lobby.handle(ann, json.dumps({"type": "move", "table": table.id,
                                  "action": table.state.legal_actions()[0]}))
    await settle(lobby)
    # bob is away: his stand-in plays at once, and the bots after it
    assert table.ply == 8 and table.to_move() == 0

    # bob comes back (opens the table): his seat is his again
    lobby.join(bob, table)
    assert not table.seats[1].away
    lobby.handle(ann, json.dumps({"type": "move", "table": table.id,
                                  "action": table.state.legal_actions()[0]}))
    await settle(lobby)
    assert table.to_move() == 1 and bob.messages()[-1]["legal"]  # he may play
    ply = table.ply
    clock.now += TURN - 1  # present: the whole turn clock again
    lobby.tick()
    await settle(lobby)
    assert table.ply == ply and not table.seats[1].away
    lobby.handle(bob, json.dumps({"type": "move", "table": table.id,
                                  "action": table.state.legal_actions()[0]}))
    await settle(lobby)
    assert stored_movers(lobby, table) == [0, 1, 2, 3] * 3
    assert table.to_move() == 0


@with_lobby
async def test_an_abandoned_table_is_closed_and_leaves_the_lobby(lobby, clock, users):
    playing = lobby.create_table(users["ann"], "sevens", seats=[
        "me", "bot:sevens/greedy", "bot:sevens/greedy", "bot:sevens/greedy"])
    waiting = lobby.create_table(users["bob"], "spades")
    watcher = Person(users["cat"], "cat")
    lobby.join(watcher, playing)  # a watcher is nobody at the table
    ann, bob = Person(users["ann"], "ann"), Person(users["bob"], "bob")
    lobby.join(ann, playing)
    lobby.join(bob, waiting)
    listing = lobby.listing(users["cat"])
    assert [t["table"] for t in listing["playing"]] == [playing.id]
    assert [t["table"] for t in listing["open"]] == [waiting.id]
    lobby.disconnect(ann)
    lobby.disconnect(bob)
    assert lobby.listing(users["cat"]) == {"mine": [], "open": [], "playing": []}
    assert [t["table"] for t in lobby.listing(users["ann"])["mine"]] == [playing.id]

    clock.now += ABANDON - 1
    lobby.tick()
    await settle(lobby)
    # with nobody at the table nobody waits for ann: no stand-in plays the game out
    assert playing.status == "playing" and not playing.seats[0].away
    assert playing.to_move() == 0 and playing.ply == 0
    assert waiting.status == "waiting"
    clock.now += 1
    lobby.tick()
    assert playing.status == "abandoned" and waiting.status == "cancelled"
    assert "nobody was at the table" in playing.result["abandoned"]
    assert lobby.store.table(playing.id)["status"] == "abandoned"
    assert lobby.store.table(waiting.id)["status"] == "cancelled"
    assert lobby.store.unfinished_table_ids() == []
    assert watcher.messages()[-1]["status"] == "abandoned"
    assert waiting.id not in lobby.tables  # nobody follows it: forgotten (the store keeps it)
    assert lobby.listing(users["ann"])["mine"] == []
    # no bot plays on at a closed table
    moves = len(lobby.store.table(playing.id)["moves"])
    await settle(lobby)
    assert len(lobby.store.table(playing.id)["moves"]) == moves


@with_lobby
async def test_a_failing_bot_is_replaced_in_the_open(lobby, clock, users):
    table = lobby.create_table(users["ann"], "sevens", seats=[
        "me", "bot:sevens/lookahead", "bot:random", "bot:sevens/greedy"])
    ann = Person(users["ann"], "ann")
    lobby.join(ann, table)
    real = lobby.runner.act

    async def act(spec, seed, view, legal):
        if spec == "sevens/lookahead":
            raise RuntimeError("out of cheese")
        if spec == "random":
            return 999  # illegal
        return await real(spec, seed, view, legal)

    lobby.runner.act = act
    lobby.handle(ann, json.dumps({"type": "move", "table": table.id,
                                  "action": table.state.legal_actions()[0]}))
    await settle(lobby)
    assert table.to_move() == 0 and table.ply == 4
    assert [s.bot_spec for s in table.seats] == [None, "sevens/greedy", "sevens/greedy",
                                                 "sevens/greedy"]
    stored = [s["bot"] for s in lobby.store.table(table.id)["seats"]]
    assert stored == [None, "sevens/greedy", "sevens/greedy", "sevens/greedy"]
    notices = [m["notice"] for m in ann.messages() if m.get("notice")]
    assert any("sevens/lookahead failed (RuntimeError: out of cheese)" in n for n in notices)
    assert any("random chose an illegal move (999)" in n for n in notices)
    # every stored move is one the engine allowed: the moves were the new bots' own
    assert stored_movers(lobby, table) == [0, 1, 2, 3]

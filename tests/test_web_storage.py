"""The store on SQLite and on PostgreSQL (a throwaway cluster, never skipped): the same
answers from both, a request's writes all or nothing; one server per SQLite database, and
on PostgreSQL many servers with one owner (lease) per table."""

from __future__ import annotations

import threading
import time

import pytest

from cardrl.web.db import DatabaseBusyError, Store
from cardrl.web.testing import postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    return f"sqlite:///{tmp_path / 'web.db'}" if request.param == "sqlite" else postgres_url()


def new_table(store: Store, host: int, seats) -> int:
    return store.create_table(game="spades", preset="killer", rules={"max_hands": 2},
                              seed=(1 << 62) - 1, kind="custom", status="waiting", host=host,
                              created=1.5, starts_at=None, absent=None, bot_spec="spades/expert",
                              fill_at=None, seats=seats)


def test_the_store_keeps_users_tables_seats_and_moves(url):
    store = Store(url)
    try:
        ann = store.create_user("Ann", "hash", 1.0)
        assert store.create_user("ANN", "other", 2.0) is None  # names are case-blind
        assert store.user_by_name("ann")["id"] == ann
        store.add_session("token", ann, 100.0)
        assert store.session_user("token", 50.0) == {"id": ann, "name": "Ann", "guest": False}
        assert store.session_user("token", 100.0) is None  # expired
        table = new_table(store, ann, [(ann, None), (None, "spades/expert"), (None, None),
                                       (None, None)])
        for ply, action in enumerate([3, 4, 5]):
            store.add_move(table, ply, ply % 4, action, 2.0 + ply)
        store.set_status(table, "playing")
        row = store.table(table)
        assert row["rules"] == {"max_hands": 2} and row["seed"] == (1 << 62) - 1
        assert row["moves"] == [(0, 3), (1, 4), (2, 5)] and row["status"] == "playing"
        assert [s["user_id"] for s in row["seats"]] == [ann, None, None, None]
        assert store.unfinished_table_ids() == [table]
        store.set_status(table, "finished", {"scores": [1, 2, 3, 4]})
        assert store.table(table)["result"] == {"scores": [1, 2, 3, 4]}
        assert store.unfinished_table_ids() == []
        assert store.table(table + 1) is None
    finally:
        store.close()


def test_writes_in_a_transaction_are_all_or_nothing(url):
    store = Store(url)
    try:
        ann = store.create_user("ann", "hash", 1.0)
        table = new_table(store, ann, [(ann, None)] + [(None, None)] * 3)
        before = store.dump()
        with pytest.raises(Exception, match=r"(?i)unique|duplicate|constraint"), \
                store.transaction():
            store.set_seat(table, 1, ann, None)
            store.add_move(table, 0, 0, 3, 2.0)
            store.add_move(table, 0, 0, 3, 2.0)  # the same move twice: refused
        assert store.dump() == before
        with pytest.raises(Exception, match=r"(?i)foreign|constraint"):
            new_table(store, ann, [(ann, None), (999, None)])  # no user 999: no table either
        assert store.dump() == before
    finally:
        store.close()


def test_one_server_per_sqlite_database(tmp_path):
    url = f"sqlite:///{tmp_path / 'web.db'}"
    first = Store(url, exclusive=True)
    try:
        with pytest.raises(DatabaseBusyError, match="one server per database"):
            Store(url, exclusive=True)
        reader = Store(url)  # a plain reader (a test, a report) is not a server
        reader.close()
    finally:
        first.close()
    Store(url, exclusive=True).close()  # free again once the first is gone


def test_servers_share_postgresql_and_each_table_has_one_owner():
    url = postgres_url()
    a, b = Store(url, exclusive=True), Store(url, exclusive=True)  # both servers start
    try:
        ann = a.create_user("ann", "hash", 1.0)
        t1, t2 = (new_table(a, ann, [(ann, None)] + [(None, None)] * 3) for _ in range(2))
        a.add_server("A")
        b.add_server("B")
        assert a.take_leases("A", 30.0, t1) == [t1]
        assert b.take_leases("B", 30.0, t1) == []  # held by A
        assert b.take_leases("B", 30.0) == [t2]  # only the free one
        assert a.take_leases("A", 30.0) == []
        # a move is stored only under the lease, and once per ply
        assert a.add_leased_move(t1, 0, 0, 3, 1.0, "A")
        assert not a.add_leased_move(t1, 0, 0, 4, 1.0, "A")
        assert not b.add_leased_move(t1, 1, 1, 4, 1.0, "B")
        assert a.heartbeat("A", 30.0) == {t1}
        # A stops renewing (a lease of 0 s: expired at once): B takes t1, A learns it
        a.heartbeat("A", 0.0)
        time.sleep(0.01)
        assert b.take_leases("B", 30.0) == [t1]
        assert a.heartbeat("A", 30.0) == set()
        assert not a.add_leased_move(t1, 1, 1, 4, 1.0, "A")
        assert b.add_leased_move(t1, 1, 1, 5, 1.0, "B")
        assert a.table(t1)["moves"] == [(0, 3), (1, 5)]
        # a command is handed out once
        b.add_command(t1, ann, {"type": "move", "action": 7}, "A", "{}")
        assert [c["body"]["action"] for c in a.take_commands(t1)] == [7]
        assert b.take_commands(t1) == []
        # presence at a table, and the presence of a silent server is forgotten
        a.set_present(t1, ann, "A", True)
        assert b.present(t1, besides="B") == {t1: {ann}}
        assert a.present(t1, besides="A") == {}
        time.sleep(0.3)
        b.heartbeat("B", 30.0)
        assert b.reap_servers(0.2) == [t1]  # A is silent, B is not
        assert b.present() == {}
        b.set_present(t2, ann, "B", True)
        assert b.drop_server("B") == [t2] and b.present() == {}
        assert b.take_leases("A", 30.0) == [t1, t2]  # B's leases went with it
    finally:
        a.close()
        b.close()


def test_servers_racing_for_leases_never_share_a_table():
    url = postgres_url()
    setup = Store(url)
    ann = setup.create_user("ann", "hash", 1.0)
    tables = [new_table(setup, ann, [(ann, None)] + [(None, None)] * 3) for _ in range(40)]
    stores = [Store(url) for _ in range(4)]
    try:
        for expire in (False, True):
            if expire:  # every lease lapses; all race for them again
                for i, store in enumerate(stores):
                    store.heartbeat(str(i), 0.0)
                time.sleep(0.01)
            gate = threading.Barrier(len(stores))
            got: list[list[int]] = [[] for _ in stores]

            def race(i: int, gate: threading.Barrier = gate, got: list = got) -> None:
                gate.wait()
                for _ in range(5):
                    got[i] += stores[i].take_leases(str(i), 30.0)

            threads = [threading.Thread(target=race, args=(i,)) for i in range(len(stores))]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            taken = [x for g in got for x in g]
            assert sorted(taken) == tables  # every table taken, none twice
            owners = {x: setup.lease_owner(x) for x in tables}
            assert all(owners[x] == str(i) for i, g in enumerate(got) for x in g)
    finally:
        for store in stores + [setup]:
            store.close()

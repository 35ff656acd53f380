"""The store on SQLite and on PostgreSQL (a throwaway cluster, never skipped): the same
answers from both, a request's writes all or nothing, and one server per database."""

from __future__ import annotations

import pytest

from web.db import DatabaseBusyError, Store
from web.testing import postgres_url


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


def test_one_server_per_database(url):
    first = Store(url, exclusive=True)
    try:
        with pytest.raises(DatabaseBusyError, match="one server per database"):
            Store(url, exclusive=True)
        reader = Store(url)  # a plain reader (a test, a report) is not a server
        reader.close()
    finally:
        first.close()
    Store(url, exclusive=True).close()  # free again once the first is gone

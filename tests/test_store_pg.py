"""The PostgreSQL store (`campaign/store_pg.py`) against a real server: what the journal
backend relies on from its connections, beyond the journal's own tests
(tests/test_journal_pg.py): errors, rollback, the pool's size and the registry's order."""

from __future__ import annotations

import errno

import pytest

from campaign import journal_pg, store_pg


def _cfg(url: str) -> journal_pg.PgConfig:
    return journal_pg.new_config(url)


def test_one_error_class_for_every_caller() -> None:
    # Callers catch `journal_pg.JournalUnavailable`; the store raises it.
    assert journal_pg.JournalUnavailable is store_pg.JournalUnavailable
    assert issubclass(store_pg.JournalUnavailable, OSError)


def test_an_unreachable_database_is_journal_unavailable() -> None:
    with pytest.raises(journal_pg.JournalUnavailable) as err:  # nothing listens on port 1
        journal_pg.new_config("postgresql://127.0.0.1:1/none")
    assert err.value.errno == errno.EIO
    assert str(err.value.strerror).startswith("journal database: ")
    assert "\n" not in str(err.value.strerror)  # the first line of the driver's message


def test_a_failed_transaction_saves_nothing_and_keeps_its_connection(pg_url: str) -> None:
    cfg = _cfg(pg_url)
    line = {"seq": 1, "ts": "t", "item_id": "q1", "packet_sha256": "h"}
    with pytest.raises(ValueError), journal_pg.transaction(cfg) as conn:
        store_pg.insert_line(conn, cfg.campaign, "P", "ann", line)
        raise ValueError("not a database error")
    assert journal_pg.read_lines(cfg, "P", "ann") == []
    assert conn in store_pg._IDLE[cfg.url] and not conn.closed


def test_the_pool_size_is_read_per_call(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # benchmarks/journal_load.py sets journal_pg.POOL_MAX_IDLE after import.
    cfg = _cfg(pg_url)
    monkeypatch.setattr(journal_pg, "POOL_MAX_IDLE", 1)
    with journal_pg.transaction(cfg) as a, journal_pg.transaction(cfg) as b:
        assert a is not b
    assert len(store_pg._IDLE[cfg.url]) == 1
    assert a.closed != b.closed  # one kept, the other closed


def test_the_registry_reads_by_name(pg_url: str) -> None:
    cfg = _cfg(pg_url)
    with journal_pg.registry_transaction(cfg) as people:
        people.update({"zoe": {"n": 1}, "ada": {"n": 2}, "mia": {"n": 3}})
    with journal_pg.registry_transaction(cfg) as people:
        assert list(people) == ["ada", "mia", "zoe"]
    assert list(journal_pg.read_registry(cfg)) == ["ada", "mia", "zoe"]

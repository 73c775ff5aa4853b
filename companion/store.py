"""The game log: an SQLite file with a ``games`` table and an append-only ``entries`` table.

Every game gets one row in ``games`` holding the game name, the player names and the engine's
observer as it was when play started (``Observer.to_json()``). Everything that happens later is an
*entry*: an observation that led to a move, the move with its verdict, a correction, an undo, a
revealed hand. Entries are never updated or deleted (triggers refuse it), so the state of any game
can be rebuilt by replaying its entries in ``seq`` order (see :mod:`companion.session`).

Durability and concurrency:

* WAL journal, ``synchronous=FULL``: a committed entry survives a crash of the process (and of the
  machine); ``companion play --resume`` picks up where the log ends.
* One connection per thread (SQLite connections must not be shared across threads) and one
  process-wide writer lock around ``BEGIN IMMEDIATE`` transactions: the tracking thread and the
  dashboard's request threads can append at the same time without losing or duplicating an entry.
  ``seq`` is unique per game and given out inside the write transaction.
* A file that is not a healthy SQLite database raises :class:`StoreError` before anything is
  written to it.
"""

from __future__ import annotations

import enum
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from companion.errors import CompanionError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game    TEXT NOT NULL,
    players TEXT NOT NULL,
    start   TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    frame_index INTEGER,
    timestamp   REAL NOT NULL,
    payload     TEXT NOT NULL,
    UNIQUE (game_id, seq)
);
CREATE TRIGGER IF NOT EXISTS entries_no_update BEFORE UPDATE ON entries
BEGIN SELECT RAISE(ABORT, 'the entries table is append-only'); END;
CREATE TRIGGER IF NOT EXISTS entries_no_delete BEFORE DELETE ON entries
BEGIN SELECT RAISE(ABORT, 'the entries table is append-only'); END;
"""


class StoreError(CompanionError):
    """The game log file cannot be used (corrupt, not a database, newer schema, unknown game)."""


class EntryKind(enum.Enum):
    """What an entry records."""

    OBSERVATION = "observation"  # what tracking saw that led to the next move
    MOVE = "move"  # a public action with its verdict
    CORRECTION = "correction"  # the last move's action replaced by another
    UNDO = "undo"  # the last move taken back
    REVEAL = "reveal"  # a hand shown at the end (Via Gladiola)


@dataclass(frozen=True)
class GameRecord:
    """One row of ``games``: ``start`` is the observer's JSON when play began."""

    game_id: int
    game: str
    players: tuple[str, ...]
    start: Mapping[str, Any]
    created: float


@dataclass(frozen=True)
class Entry:
    """One row of ``entries``. ``payload`` is the entry's JSON object as stored."""

    game_id: int
    seq: int
    kind: EntryKind
    frame_index: int | None
    timestamp: float
    payload: Mapping[str, Any]


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class GameStore:
    """An SQLite game log at ``path`` (created if missing). Safe to share between threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        self._connections: list[tuple[threading.Thread, sqlite3.Connection]] = []
        self._connections_lock = threading.Lock()
        self._closed = False
        if self.path.exists() and self.path.stat().st_size > 0:
            self._check_existing()
        try:
            conn = self._conn()
            with self._write_lock:
                conn.executescript("BEGIN IMMEDIATE;" + _SCHEMA)
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                if row is None:
                    conn.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self._rollback_quietly()
            raise StoreError(f"{self.path}: cannot set up the game log ({exc}); the file was not changed") from None
        version = self._schema_version()
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: expected game log schema {SCHEMA_VERSION}, got {version}")

    # -- connections -----------------------------------------------------------------------------

    def _check_existing(self) -> None:
        """Open the file read-only and run ``quick_check``; StoreError if it is not healthy."""
        uri = f"file:{self.path.resolve().as_posix()}?mode=ro"
        try:
            probe = sqlite3.connect(uri, uri=True, timeout=10)
            try:
                result = [r[0] for r in probe.execute("PRAGMA quick_check").fetchall()]
                tables = {r[0] for r in probe.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            finally:
                probe.close()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path}: expected a companion game log (SQLite), got an unreadable file ({exc}); "
                "the file was not changed: restore a backup or choose another --db"
            ) from None
        if result != ["ok"]:
            raise StoreError(
                f"{self.path}: the game log is damaged (integrity check: {'; '.join(result[:3])}); "
                "the file was not changed: restore a backup or choose another --db"
            )
        if tables and not {"games", "entries"} <= tables:
            raise StoreError(
                f"{self.path}: expected a companion game log, got an SQLite file with tables "
                f"{', '.join(sorted(tables))}; the file was not changed"
            )

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError(f"{self.path}: the game log is closed")
        conn = getattr(self._local, "conn", None)
        if conn is None:
            # check_same_thread=False only so that close() and the pruning below, run by another
            # thread, really close it; each connection is still used by its own thread alone.
            conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
            with self._connections_lock:
                # A threaded web server runs each request in a new thread: close the connections
                # of threads that have ended, or they pile up (memory, file descriptors).
                for thread, old in self._connections:
                    if not thread.is_alive():
                        try:
                            old.close()
                        except sqlite3.Error:
                            pass
                self._connections = [(t, c) for t, c in self._connections if t.is_alive()]
                self._connections.append((threading.current_thread(), conn))
        return conn

    def _rollback_quietly(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None and conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def close(self) -> None:
        """Close every thread's connection."""
        with self._connections_lock:
            for _, conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
        self._closed = True

    def __enter__(self) -> "GameStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _schema_version(self) -> int:
        row = self._read("SELECT value FROM meta WHERE key = 'schema'")
        return int(row[0][0]) if row else 0

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._conn().execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot read the game log ({exc})") from None

    # -- games -----------------------------------------------------------------------------------

    def create_game(self, game: str, players: Sequence[str], start: Mapping[str, Any]) -> int:
        """Add a game whose play begins with the observer JSON ``start``; returns its id."""
        names = [str(p) for p in players]
        if not names:
            raise StoreError("a game needs at least one player name, got none")
        conn = self._conn()
        with self._write_lock:
            try:
                conn.execute("BEGIN IMMEDIATE")
                cur = conn.execute(
                    "INSERT INTO games(game, players, start, created) VALUES (?, ?, ?, ?)",
                    (game, _dumps(names), _dumps(start), time.time()),
                )
                conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._rollback_quietly()
                raise StoreError(f"{self.path}: cannot add a game ({exc})") from None
        return int(cur.lastrowid)

    def game(self, game_id: int) -> GameRecord:
        rows = self._read("SELECT id, game, players, start, created FROM games WHERE id = ?", (game_id,))
        if not rows:
            known = [str(r.game_id) for r in self.games()]
            raise StoreError(
                f"{self.path}: expected a game id ({', '.join(known) or 'the log is empty'}), got {game_id}"
            )
        return self._game_record(rows[0])

    def games(self) -> list[GameRecord]:
        rows = self._read("SELECT id, game, players, start, created FROM games ORDER BY id")
        return [self._game_record(r) for r in rows]

    def latest_game(self, game: str | None = None) -> GameRecord | None:
        """The most recently created game (of ``game``, if given), or None."""
        if game is None:
            rows = self._read("SELECT id, game, players, start, created FROM games ORDER BY id DESC LIMIT 1")
        else:
            rows = self._read(
                "SELECT id, game, players, start, created FROM games WHERE game = ? ORDER BY id DESC LIMIT 1",
                (game,),
            )
        return self._game_record(rows[0]) if rows else None

    def _game_record(self, row: tuple[Any, ...]) -> GameRecord:
        try:
            return GameRecord(int(row[0]), str(row[1]), tuple(json.loads(row[2])), json.loads(row[3]), float(row[4]))
        except (ValueError, TypeError) as exc:
            raise StoreError(f"{self.path}: game {row[0]} has a malformed row ({exc})") from None

    # -- entries ---------------------------------------------------------------------------------

    def append(
        self,
        game_id: int,
        kind: EntryKind,
        payload: Mapping[str, Any],
        frame_index: int | None = None,
        timestamp: float | None = None,
    ) -> Entry:
        """Append one entry and commit it before returning; the entry's ``seq`` is the next free one."""
        return self.append_many(game_id, [(kind, payload, frame_index, timestamp)])[-1]

    def append_many(
        self,
        game_id: int,
        items: Sequence[tuple[EntryKind, Mapping[str, Any], int | None, float | None]],
    ) -> list[Entry]:
        """Append several entries in one transaction (all or none), in order."""
        if not items:
            return []
        conn = self._conn()
        out: list[Entry] = []
        with self._write_lock:
            try:
                conn.execute("BEGIN IMMEDIATE")
                if conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is None:
                    raise StoreError(f"{self.path}: expected an existing game id, got {game_id}")
                row = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)).fetchone()
                seq = int(row[0])
                for kind, payload, frame_index, timestamp in items:
                    if not isinstance(kind, EntryKind):
                        raise StoreError(f"expected an EntryKind, got {kind!r}")
                    seq += 1
                    ts = time.time() if timestamp is None else float(timestamp)
                    conn.execute(
                        "INSERT INTO entries(game_id, seq, kind, frame_index, timestamp, payload)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, seq, kind.value, frame_index, ts, _dumps(payload)),
                    )
                    out.append(Entry(game_id, seq, kind, frame_index, ts, json.loads(_dumps(payload))))
                conn.execute("COMMIT")
            except StoreError:
                self._rollback_quietly()
                raise
            except sqlite3.DatabaseError as exc:
                self._rollback_quietly()
                raise StoreError(f"{self.path}: cannot append to game {game_id} ({exc}); nothing was written") from None
        return out

    def entries(self, game_id: int, after_seq: int = 0) -> list[Entry]:
        """The game's entries with ``seq > after_seq``, in order."""
        rows = self._read(
            "SELECT game_id, seq, kind, frame_index, timestamp, payload FROM entries"
            " WHERE game_id = ? AND seq > ? ORDER BY seq",
            (game_id, after_seq),
        )
        out = []
        for r in rows:
            try:
                out.append(Entry(int(r[0]), int(r[1]), EntryKind(r[2]), r[3], float(r[4]), json.loads(r[5])))
            except (ValueError, TypeError) as exc:
                raise StoreError(f"{self.path}: game {r[0]} entry {r[1]} is malformed ({exc})") from None
        return out

    def integrity_check(self) -> tuple[str, ...]:
        """``PRAGMA integrity_check``: ``("ok",)`` for a healthy file."""
        return tuple(str(r[0]) for r in self._read("PRAGMA integrity_check"))

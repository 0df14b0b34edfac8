-- The ledger archive (stockd ledger archive, issue 9 item 7): the entries
-- before a month's start go to a file, and each position's are replaced by
-- one checkpoint entry holding its counters at the cut. One record per
-- archive: the cut, the file, its sha256 (recorded before any entry is
-- deleted) and when every position held its checkpoint. Times are Unix
-- microseconds, as everywhere in this schema.
CREATE TABLE ledger_archives (
    before      INTEGER NOT NULL PRIMARY KEY,
    cut_seq     INTEGER NOT NULL CHECK (cut_seq > 0),
    path        TEXT NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
    sha256      TEXT NOT NULL DEFAULT '' CHECK (sha256 = '' OR (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*')),
    entries     INTEGER NOT NULL DEFAULT 0 CHECK (entries >= 0),
    positions   INTEGER NOT NULL DEFAULT 0 CHECK (positions >= 0),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    CHECK (finished_at IS NULL OR sha256 <> '')
) STRICT;

-- A recorded sha256 never changes: it is what tells the archive's own file
-- from a foreign one.
CREATE TRIGGER ledger_archive_sealed BEFORE UPDATE ON ledger_archives
WHEN (OLD.sha256 <> '' AND NEW.sha256 <> OLD.sha256) OR NEW.cut_seq <> OLD.cut_seq
BEGIN
    SELECT RAISE(ABORT, 'a ledger archive''s sha256 and cut are recorded once');
END;

-- SQLite has no transaction-local setting: the archive's transaction
-- inserts this one row before its deletes and deletes it before it
-- commits, so no other transaction (one writer at a time) ever sees it.
CREATE TABLE ledger_archive_guard (
    id INTEGER NOT NULL PRIMARY KEY CHECK (id = 1)
) STRICT;

-- The ledger stays append-only: UPDATE is refused always (ledger_no_update
-- of 0001), and a DELETE only passes inside the archive's transaction
-- (the guard row) and only of an entry at or below the cut of an archive
-- whose file is sealed and which has not finished.
DROP TRIGGER ledger_no_delete;

CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
WHEN NOT EXISTS (SELECT 1 FROM ledger_archive_guard)
    OR NOT EXISTS (SELECT 1 FROM ledger_archives WHERE finished_at IS NULL AND sha256 <> '' AND OLD.seq <= cut_seq)
BEGIN
    SELECT RAISE(ABORT, 'ledger entries are immutable');
END;

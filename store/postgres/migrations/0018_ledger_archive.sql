-- The ledger archive (stockd ledger archive, issue 9 item 7): the entries
-- before a month's start go to a file, and each position's are replaced by
-- one checkpoint entry holding its counters at the cut. One record per
-- archive: the cut, the file, its sha256 (recorded before any entry is
-- deleted) and when every position held its checkpoint.
CREATE TABLE ledger_archives (
    before      timestamptz PRIMARY KEY,
    cut_seq     bigint NOT NULL CHECK (cut_seq > 0),
    path        text NOT NULL CHECK (length(path) BETWEEN 1 AND 4096),
    sha256      text NOT NULL DEFAULT '' CHECK (sha256 = '' OR sha256 ~ '^[0-9a-f]{64}$'),
    entries     bigint NOT NULL DEFAULT 0 CHECK (entries >= 0),
    positions   bigint NOT NULL DEFAULT 0 CHECK (positions >= 0),
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    CHECK (finished_at IS NULL OR sha256 <> '')
);

-- A recorded sha256 never changes: it is what tells the archive's own file
-- from a foreign one.
CREATE FUNCTION ledger_archive_sealed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a ledger archive''s sha256 and cut are recorded once' USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER ledger_archive_sealed BEFORE UPDATE ON ledger_archives
    FOR EACH ROW WHEN ((OLD.sha256 <> '' AND NEW.sha256 <> OLD.sha256) OR NEW.cut_seq <> OLD.cut_seq)
    EXECUTE FUNCTION ledger_archive_sealed();

-- The ledger stays append-only: UPDATE and TRUNCATE are refused always,
-- and a DELETE only passes inside the archive's own transaction, which
-- sets the transaction-local stockd.archive (SET LOCAL: it ends with the
-- transaction), and only of an entry at or below the cut of an archive
-- whose file is sealed and which has not finished.
CREATE OR REPLACE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('stockd.archive', true) = 'on' AND EXISTS (
        SELECT 1 FROM ledger_archives WHERE finished_at IS NULL AND sha256 <> '' AND OLD.seq <= cut_seq
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'ledger entries are immutable' USING ERRCODE = 'restrict_violation';
END;
$$;

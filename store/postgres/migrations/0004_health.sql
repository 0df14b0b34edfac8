-- One row that GET /healthz rewrites, so that health can tell whether the
-- write path works (a full disk, a read-only standby after a failover)
-- and not only whether the database answers a read.
CREATE TABLE health_probe (
    id        smallint PRIMARY KEY CHECK (id = 1),
    probed_at timestamptz NOT NULL
);

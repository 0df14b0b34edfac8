-- One row that GET /healthz rewrites, translated from
-- store/postgres/migrations/0004_health.sql; times are INTEGER unix
-- microseconds UTC, as in 0001.
CREATE TABLE health_probe (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    probed_at INTEGER NOT NULL
) STRICT;

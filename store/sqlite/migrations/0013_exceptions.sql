-- Exceptions, translated from store/postgres/migrations/0013_exceptions.sql;
-- times are INTEGER unix microseconds UTC, body the JSON of the record.
CREATE TABLE exceptions (
    id             TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    kind           TEXT NOT NULL CHECK (kind IN ('late_payment', 'gate_oversell')),
    reservation_id TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('open', 'resolved')),
    body           TEXT NOT NULL CHECK (json_valid(body)),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX exceptions_kind_reservation ON exceptions (kind, reservation_id);
CREATE INDEX exceptions_status_kind_id ON exceptions (status, kind, id);

-- The gate's oversells recorded before: SQLite reads the win's time to the
-- millisecond, which the id keeps (the order holds; the id is only an id).
INSERT OR IGNORE INTO exceptions (id, kind, reservation_id, status, body, created_at, updated_at)
SELECT x.id, 'gate_oversell', x.rid, 'open',
       json_object(
           'id', x.id, 'kind', 'gate_oversell', 'status', 'open', 'reservation_id', x.rid,
           'customer_id', x.body ->> '$.customer_id', 'pool', x.body ->> '$.pool',
           'lines', json(COALESCE((SELECT json_group_array(json_set(l.value, '$.pool', x.body ->> '$.pool'))
                                   FROM json_each(x.body, '$.lines') AS l), '[]')),
           'won_at', x.body ->> '$.won_at', 'code', x.body ->> '$.code', 'message', x.body ->> '$.message',
           'created_at', x.body ->> '$.recorded_at'),
       x.created_at, x.updated_at
FROM (SELECT printf('%018d', max(CAST(unixepoch(d.body ->> '$.won_at', 'subsec') * 1000 AS INTEGER), 0) * 1000)
             || '-' || substr(d.id, 1, 45) AS id,
             d.id AS rid, d.body AS body, d.created_at AS created_at, d.updated_at AS updated_at
      FROM documents d
      WHERE d.kind = 'gate_exception') AS x;

UPDATE documents SET body = json_set(body, '$.exception_id',
    (SELECT e.id FROM exceptions e WHERE e.kind = 'gate_oversell' AND e.reservation_id = documents.id))
WHERE kind = 'gate_exception'
  AND EXISTS (SELECT 1 FROM exceptions e WHERE e.kind = 'gate_oversell' AND e.reservation_id = documents.id);

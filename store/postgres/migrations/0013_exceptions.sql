-- Exceptions: orders the books could not serve as the customer was told
-- (a late payment, a gate win the database refused), for a person to
-- handle and resolve with a note. The id sorts in handling order (see
-- stockd.ExceptionID); body is the whole record (stockd.Exception), the
-- columns beside it what filters and the unique key need.
CREATE TABLE exceptions (
    id             text COLLATE "C" PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    kind           text COLLATE "C" NOT NULL CHECK (kind IN ('late_payment', 'gate_oversell')),
    reservation_id text COLLATE "C" NOT NULL,
    status         text NOT NULL CHECK (status IN ('open', 'resolved')),
    body           jsonb NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

-- One exception of a kind per reservation, whatever key a retry uses.
CREATE UNIQUE INDEX exceptions_kind_reservation ON exceptions (kind, reservation_id);
CREATE INDEX exceptions_status_kind_id ON exceptions (status, kind, id);

-- The gate's oversells recorded before this migration become exceptions:
-- the id from the win's time (microseconds) and the reservation id, the
-- document named back by exception_id.
INSERT INTO exceptions (id, kind, reservation_id, status, body, created_at, updated_at)
SELECT x.id, 'gate_oversell', d.id, 'open',
       jsonb_strip_nulls(jsonb_build_object(
           'id', x.id, 'kind', 'gate_oversell', 'status', 'open', 'reservation_id', d.id,
           'customer_id', NULLIF(d.body ->> 'customer_id', ''), 'pool', d.body ->> 'pool',
           'lines', COALESCE((SELECT jsonb_agg(l || jsonb_build_object('pool', d.body ->> 'pool'))
                              FROM jsonb_array_elements(d.body -> 'lines') AS l), '[]'::jsonb),
           'won_at', d.body -> 'won_at', 'code', d.body ->> 'code', 'message', d.body ->> 'message',
           'created_at', d.body -> 'recorded_at')),
       d.created_at, d.updated_at
FROM documents d,
     LATERAL (SELECT lpad(greatest(floor(extract(epoch FROM (d.body ->> 'won_at')::timestamptz) * 1000000), 0)::bigint::text, 18, '0')
                     || '-' || left(d.id, 45) AS id) AS x
WHERE d.kind = 'gate_exception'
ON CONFLICT DO NOTHING;

UPDATE documents d SET body = jsonb_set(d.body, '{exception_id}', to_jsonb(e.id))
FROM exceptions e
WHERE d.kind = 'gate_exception' AND e.kind = 'gate_oversell' AND e.reservation_id = d.id;

-- Business document numbers, translated from
-- store/postgres/migrations/0009_business_numbers.sql: the same columns,
-- indexes and constraints, with times as INTEGER unix microseconds UTC.
-- Why they exist is said there.

ALTER TABLE reservations ADD COLUMN order_id TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX reservations_order_id ON reservations (order_id)
    WHERE order_id <> '' AND status IN ('pending', 'confirmed', 'fulfilled');

CREATE TABLE business_references (
    business_type TEXT NOT NULL,
    reference     TEXT NOT NULL CHECK (reference <> ''),
    sku           TEXT NOT NULL,
    business_id   TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (business_type, reference, sku)
) STRICT, WITHOUT ROWID;

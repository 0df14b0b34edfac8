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

-- Filters of GET /v1/ledger (the other filters are checked on the rows
-- these yield; see the store's queryLedgerFiltered*): by business
-- document, and by reservation (partial: most entries name none). SKU
-- filters use ledger_sku_seq, the rest the order of seq.
CREATE INDEX ledger_business_id_seq ON ledger (business_id, seq);
CREATE INDEX ledger_reservation_seq ON ledger (reservation_id, seq) WHERE reservation_id <> '';

-- Filters of GET /v1/reservations, each in id order for its cursor (see
-- the store's queryReservationList*): by order in any status (the unique
-- index above covers only the holding ones), by customer, by status. The
-- SKU and created_before filters are checked on the rows these yield.
CREATE INDEX reservations_order_id_all ON reservations (order_id, id) WHERE order_id <> '';
CREATE INDEX reservations_customer_id ON reservations (customer_id, id) WHERE customer_id <> '';
CREATE INDEX reservations_status_id ON reservations (status, id);

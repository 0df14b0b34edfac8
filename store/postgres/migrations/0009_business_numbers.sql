-- Business document numbers (issue 9): the ledger is keyed on the business
-- document (seed 003 §1.3: a unique index on (biz_type, biz_no, sku_id);
-- seed 004 §九.1: a unique constraint, not an application check), so one
-- order or one delivery note sent under two idempotency keys is booked
-- once. The engine decides duplicates from its reads; these constraints
-- settle the race between two batches that could not see each other (the
-- loser's insert fails, and the engine retries it against the winner).

-- At most one reservation holds an order at a time. Released and expired
-- reservations free it, so a buyer whose hold lapsed can reserve again;
-- the predicate is stockd's ReservationStatus.holdsOrder, which the engine
-- decides by. '' is "no order", like the empty customer_id.
ALTER TABLE reservations ADD COLUMN order_id text NOT NULL DEFAULT '';
CREATE UNIQUE INDEX reservations_order_id ON reservations (order_id)
    WHERE order_id <> '' AND status IN ('pending', 'confirmed', 'fulfilled');

-- The references receipts, adjustments and shipments took, one row per
-- SKU of the document; never freed, as a delivery note's number is never
-- reused.
CREATE TABLE business_references (
    business_type text NOT NULL,
    reference     text NOT NULL CHECK (reference <> ''),
    sku           text NOT NULL,
    business_id   text NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (business_type, reference, sku)
);

-- Filters of GET /v1/ledger (the other filters are checked on the rows
-- these yield; see the store's queryLedgerFiltered*): by business
-- document, and by reservation (partial: most entries name none). SKU
-- filters use ledger_sku_seq, the rest the order of seq. A plain CREATE
-- INDEX blocks ledger writes while it builds (migrations run in one
-- transaction, which CONCURRENTLY cannot): on a large ledger, migrate in
-- a quiet hour.
CREATE INDEX ledger_business_id_seq ON ledger (business_id, seq);
CREATE INDEX ledger_reservation_seq ON ledger (reservation_id, seq) WHERE reservation_id <> '';

-- Filters of GET /v1/reservations, each in id order for its cursor (see
-- the store's queryReservationList*): by order in any status (the unique
-- index above covers only the holding ones), by customer, by status. The
-- SKU and created_before filters are checked on the rows these yield.
CREATE INDEX reservations_order_id_all ON reservations (order_id, id) WHERE order_id <> '';
CREATE INDEX reservations_customer_id ON reservations (customer_id, id) WHERE customer_id <> '';
CREATE INDEX reservations_status_id ON reservations (status, id);

-- API keys and the audit trail.
--
-- Only the SHA-256 of a secret is kept: a copy of this table lets no one
-- call the API. Keys are revoked, never deleted, so that the actors of the
-- ledger and of the audit trail keep naming a key that exists.

CREATE TABLE api_keys (
    id         text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL,
    prefix     text NOT NULL,
    hash       bytea NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
    scopes     text[] NOT NULL CHECK (cardinality(scopes) >= 1),
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
);

-- Append-only, like the ledger: a trigger refuses UPDATE, DELETE and
-- TRUNCATE.
CREATE TABLE audit_events (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL,
    key_id   text COLLATE "C" NOT NULL DEFAULT '',
    action   text NOT NULL,
    resource text NOT NULL DEFAULT '',
    outcome  text NOT NULL,
    detail   text NOT NULL DEFAULT ''
);

CREATE FUNCTION audit_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit events are immutable' USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER audit_events_no_update_delete BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_immutable();

CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
    FOR EACH STATEMENT EXECUTE FUNCTION audit_events_immutable();

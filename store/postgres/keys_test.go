package postgres

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func TestAuditEventsImmutable(t *testing.T) {
	s := newTestStore(t)
	e := stockd.NewAuditEvent(time.Now(), "key_a", "sku_create", "/v1/skus", stockd.AuditOutcomeForbidden, "missing scope stock")
	if err := s.AuditEventInsert(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	const restrictViolation = "23001"
	for _, sql := range []string{
		`UPDATE audit_events SET outcome = 'done'`,
		`DELETE FROM audit_events`,
		`TRUNCATE audit_events`,
	} {
		_, err := s.pool.Exec(t.Context(), sql)
		wantSQLState(t, sql, err, restrictViolation)
	}
	events, err := s.AuditEventList(t.Context(), store.AuditEventListParams{})
	if err != nil || len(events) != 1 || events[0].Outcome != stockd.AuditOutcomeForbidden {
		t.Fatalf("audit trail after refused changes = %+v, %v; want the one event, unchanged", events, err)
	}
}

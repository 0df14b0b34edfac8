package sqlite

import (
	"context"
	"testing"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func TestAuditEventsAreImmutable(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	e := stockd.NewAuditEvent(time.Now(), "key_a", "sku_create", "/v1/skus", stockd.AuditOutcomeForbidden, "missing scope stock")
	if err := s.AuditEventInsert(ctx, e); err != nil {
		t.Fatal(err)
	}
	for _, statement := range []string{
		"UPDATE audit_events SET outcome = 'done'",
		"DELETE FROM audit_events",
	} {
		if _, err := s.writer.Exec(statement); sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_TRIGGER {
			t.Errorf("%s: err = %v, want SQLITE_CONSTRAINT_TRIGGER", statement, err)
		}
	}
	events, err := s.AuditEventList(ctx, store.AuditEventListParams{})
	if err != nil || len(events) != 1 || events[0].Outcome != stockd.AuditOutcomeForbidden {
		t.Fatalf("audit trail after refused changes = %+v, %v; want the one event, unchanged", events, err)
	}
}

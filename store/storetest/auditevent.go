package storetest

// AuditEventInsert and AuditEventList: the audit trail, written outside batches.

import (
	"reflect"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func testAuditTrail(t *testing.T, h *flowtest.Harness) {
	if events, err := h.Store.AuditEventList(ctx, store.AuditEventListParams{}); err != nil || len(events) != 0 {
		t.Fatalf("AuditEventList of a new store = %+v, %v; want none", events, err)
	}
	var want []stockd.AuditEvent
	for _, e := range []stockd.AuditEvent{
		stockd.NewAuditEvent(h.Clock.Now(), "key_a", "location_create", "/v1/locations", stockd.AuditOutcomeForbidden, "missing scope admin"),
		stockd.NewAuditEvent(h.Clock.Now().Add(time.Millisecond), "", "key_create", "key_b", stockd.AuditOutcomeDone, "command line"),
		stockd.NewAuditEvent(h.Clock.Now().Add(time.Second), "key_b", "key_revoke", "key_a", stockd.AuditOutcomeDone, ""),
	} {
		if err := h.Store.AuditEventInsert(ctx, e); err != nil {
			t.Fatalf("AuditEventInsert: %v", err)
		}
		want = append(want, e)
	}
	events, err := h.Store.AuditEventList(ctx, store.AuditEventListParams{})
	if err != nil || len(events) != len(want) {
		t.Fatalf("AuditEventList = %+v, %v; want %d events", events, err, len(want))
	}
	for i, e := range events {
		if i > 0 && e.ID <= events[i-1].ID {
			t.Fatalf("ids %d then %d: want increasing", events[i-1].ID, e.ID)
		}
		want[i].ID = e.ID
		if !reflect.DeepEqual(e, want[i]) {
			t.Errorf("event %d = %+v, want %+v", i, e, want[i])
		}
	}
	page, err := h.Store.AuditEventList(ctx, store.AuditEventListParams{After: events[0].ID, Limit: 1})
	if err != nil || len(page) != 1 || page[0].ID != events[1].ID {
		t.Fatalf("page after %d, limit 1 = %+v, %v; want event %d", events[0].ID, page, err, events[1].ID)
	}
}

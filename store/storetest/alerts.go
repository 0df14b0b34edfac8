package storetest

// AlertOpenGet, AlertGet, AlertList, AlertNoticeList, AlertWrite, AlertAck,
// AlertDelivery*, AlertCursor*, AlertOpenCounts: the alert worker's records.

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

func newAlert(sku, level string, now time.Time) stockd.Alert {
	cover := 2.5
	a := stockd.Alert{
		SKU: sku, Condition: level, Level: level, Status: stockd.AlertOpen,
		Figures:  stockd.AlertFigures{InventoryPosition: 5, AlertLine: 118, DaysOfCover: &cover, Source: "history", Reason: "why"},
		OpenedAt: now, ChangedAt: now, EvaluatedAt: now,
	}
	return a.Appended(stockd.AlertStep{At: now, Event: stockd.AlertRaised, Level: level})
}

func testAlertLifecycle(t *testing.T, h *flowtest.Harness) {
	now := h.Clock.Now().UTC().Truncate(time.Microsecond)
	if _, err := h.Store.AlertOpenGet(ctx, "A"); !isNotFound(err) {
		t.Fatalf("AlertOpenGet of a new store: %v, want not found", err)
	}
	if _, err := h.Store.AlertGet(ctx, 1); !isNotFound(err) {
		t.Fatalf("AlertGet of a new store: %v, want not found", err)
	}
	if counts, err := h.Store.AlertOpenCounts(ctx); err != nil || len(counts) != 0 {
		t.Fatalf("AlertOpenCounts of a new store = %v, %v; want none", counts, err)
	}
	first := newAlert("A", "warning", now)
	notice := stockd.AlertNotice{SKU: "A", Level: "warning", BusinessDate: "2026-12-04", Kind: stockd.AlertNoticeSent, At: now}
	res, err := h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &first, Notices: []stockd.AlertNotice{notice}})
	if err != nil || res.Saved.ID == 0 || res.Saved.Version != 1 || len(res.Inserted) != 1 || res.Inserted[0].AlertID != res.Saved.ID {
		t.Fatalf("AlertWrite of a new alert = %+v, %v; want it saved with its notice", res, err)
	}
	saved := res.Saved
	got, err := h.Store.AlertOpenGet(ctx, "A")
	if err != nil || !reflect.DeepEqual(got, saved) {
		t.Fatalf("AlertOpenGet = %+v, %v; want %+v", got, err, saved)
	}

	// A second open alert of the SKU is refused: someone opened it first.
	second := newAlert("A", "critical", now)
	if _, err := h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &second}); !errors.Is(err, stockd.ErrAlertChanged) {
		t.Fatalf("a second open alert of A: %v, want ErrAlertChanged", err)
	}
	// The same notice again is not inserted: the dedup.
	again := saved
	again.EvaluatedAt = now.Add(time.Minute)
	res, err = h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &again, Notices: []stockd.AlertNotice{notice}})
	if err != nil || len(res.Inserted) != 0 || res.Saved.Version != 2 {
		t.Fatalf("AlertWrite with a stored notice = %+v, %v; want the alert at version 2 and no notice", res, err)
	}
	// A write from the old version changes nothing, notices included.
	stale := saved
	stale.Tier = 1
	other := notice
	other.Tier = 1
	if _, err := h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &stale, Notices: []stockd.AlertNotice{other}}); !errors.Is(err, stockd.ErrAlertChanged) {
		t.Fatalf("AlertWrite from version 1 after version 2: %v, want ErrAlertChanged", err)
	}
	if notices, err := h.Store.AlertNoticeList(ctx, "2026-12-04", ""); err != nil || len(notices) != 1 || notices[0] != res0(notice, saved.ID) {
		t.Fatalf("AlertNoticeList = %+v, %v; want the one notice", notices, err)
	}

	// Acknowledge twice: the first key stays.
	acked, err := h.Store.AlertAck(ctx, store.AlertAckParams{ID: saved.ID, KeyID: "key_a", At: now.Add(time.Hour)})
	if err != nil || acked.AckedBy != "key_a" || acked.AckedAt == nil || !acked.AckedAt.Equal(now.Add(time.Hour)) || acked.Version != 3 {
		t.Fatalf("AlertAck = %+v, %v; want acknowledged by key_a at version 3", acked, err)
	}
	twice, err := h.Store.AlertAck(ctx, store.AlertAckParams{ID: saved.ID, KeyID: "key_b", At: now.Add(2 * time.Hour)})
	if err != nil || !reflect.DeepEqual(twice, acked) {
		t.Fatalf("second AlertAck = %+v, %v; want the first acknowledgement unchanged", twice, err)
	}
	if _, err := h.Store.AlertAck(ctx, store.AlertAckParams{ID: 999, KeyID: "key_a", At: now}); !isNotFound(err) {
		t.Fatalf("AlertAck of an unknown alert: %v, want not found", err)
	}

	// Resolve and open the next episode in one write.
	resolved := acked
	resolved.Status = stockd.AlertResolved
	at := now.Add(3 * time.Hour)
	resolved.ResolvedAt, resolved.Resolution = &at, "critical"
	next := newAlert("A", "critical", at)
	res, err = h.Store.AlertWrite(ctx, store.AlertWriteParams{Resolve: &resolved, Save: &next})
	if err != nil || res.Saved.ID <= saved.ID {
		t.Fatalf("resolve and open = %+v, %v", res, err)
	}
	if got, err := h.Store.AlertGet(ctx, saved.ID); err != nil || got.Status != stockd.AlertResolved || got.Resolution != "critical" || got.AckedBy != "key_a" {
		t.Fatalf("resolved alert = %+v, %v", got, err)
	}
	b := newAlert("B", "slow_moving", now)
	if _, err := h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &b}); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		p    store.AlertListParams
		want []string // sku/level of each
	}{
		{"all", store.AlertListParams{}, []string{"A/warning", "A/critical", "B/slow_moving"}},
		{"open", store.AlertListParams{Status: stockd.AlertOpen}, []string{"A/critical", "B/slow_moving"}},
		{"resolved", store.AlertListParams{Status: stockd.AlertResolved}, []string{"A/warning"}},
		{"level", store.AlertListParams{Level: "slow_moving"}, []string{"B/slow_moving"}},
		{"sku", store.AlertListParams{SKU: "A"}, []string{"A/warning", "A/critical"}},
		{"page", store.AlertListParams{After: saved.ID, Limit: 1}, []string{"A/critical"}},
	} {
		alerts, err := h.Store.AlertList(ctx, tt.p)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, a := range alerts {
			got = append(got, a.SKU+"/"+a.Level)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("AlertList %s = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The resolved episode is not counted; each open one under its level.
	if counts, err := h.Store.AlertOpenCounts(ctx); err != nil || !reflect.DeepEqual(counts, map[string]int64{"critical": 1, "slow_moving": 1}) {
		t.Errorf("AlertOpenCounts = %v, %v; want critical 1, slow_moving 1", counts, err)
	}
}

func res0(n stockd.AlertNotice, id int64) stockd.AlertNotice {
	n.AlertID = id
	return n
}

func testAlertDeliveriesAndCursor(t *testing.T, h *flowtest.Harness) {
	now := h.Clock.Now().UTC().Truncate(time.Microsecond)
	if seq, err := h.Store.AlertCursorGet(ctx); err != nil || seq != 0 {
		t.Fatalf("AlertCursorGet of a new store = %d, %v; want 0", seq, err)
	}
	for _, seq := range []int64{7, 42} {
		if err := h.Store.AlertCursorSet(ctx, seq); err != nil {
			t.Fatal(err)
		}
		if got, err := h.Store.AlertCursorGet(ctx); err != nil || got != seq {
			t.Fatalf("AlertCursorGet after setting %d = %d, %v", seq, got, err)
		}
	}
	for i, wantNew := range []bool{true, false} {
		if marked, err := h.Store.AlertDigestMark(ctx, "2026-12-04", now); err != nil || marked != wantNew {
			t.Fatalf("AlertDigestMark %d = %v, %v; want %v", i, marked, err, wantNew)
		}
	}
	want := []stockd.AlertDelivery{
		{AlertID: 3, Sink: "ops", Attempt: 1, At: now, StatusCode: 503, Error: "503 Service Unavailable"},
		{AlertID: 3, Sink: "ops", Attempt: 2, At: now.Add(time.Second), StatusCode: 204, Delivered: true},
	}
	for _, d := range want {
		if err := h.Store.AlertDeliveryInsert(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	got, err := h.Store.AlertDeliveryList(ctx, 3)
	if err != nil || len(got) != 2 {
		t.Fatalf("AlertDeliveryList = %+v, %v; want 2", got, err)
	}
	for i := range got {
		want[i].ID = got[i].ID
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("delivery %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// testSKUAlertLine: the alert line cached on the SKU row is written only
// when it changes, read with the SKU (by the batch too), and unknown SKUs
// write nothing.
func testSKUAlertLine(t *testing.T, h *flowtest.Harness) {
	h.SKU("A")
	if sku, err := h.Store.SKUGet(ctx, "A"); err != nil || sku.AlertLine != 0 {
		t.Fatalf("SKUGet of a new SKU = %+v, %v; want alert line 0", sku, err)
	}
	for _, tc := range []struct {
		line  int64
		wrote bool
	}{{118, true}, {118, false}, {0, true}, {7, true}} {
		wrote, err := h.Store.SKUAlertLineSet(ctx, "A", tc.line)
		if err != nil || wrote != tc.wrote {
			t.Fatalf("SKUAlertLineSet(%d) = %v, %v; want %v", tc.line, wrote, err, tc.wrote)
		}
	}
	if sku, err := h.Store.SKUGet(ctx, "A"); err != nil || sku.AlertLine != 7 {
		t.Fatalf("SKUGet = %+v, %v; want alert line 7", sku, err)
	}
	if list, err := h.Store.SKUList(ctx, "", 10); err != nil || len(list) != 1 || list[0].AlertLine != 7 {
		t.Fatalf("SKUList = %+v, %v; want A with alert line 7", list, err)
	}
	if wrote, err := h.Store.SKUAlertLineSet(ctx, "nope", 5); err != nil || wrote {
		t.Fatalf("SKUAlertLineSet of an unknown SKU = %v, %v; want nothing written", wrote, err)
	}
	if _, err := h.Store.SKUAlertLineSet(ctx, "A", -1); err == nil {
		t.Fatal("a negative alert line was stored")
	}
	// A batch on the SKU keeps the cached line.
	h.Receive("A", "default", 1)
	if sku, err := h.Store.SKUGet(ctx, "A"); err != nil || sku.AlertLine != 7 {
		t.Fatalf("SKUGet after a batch = %+v, %v; want alert line 7", sku, err)
	}
}

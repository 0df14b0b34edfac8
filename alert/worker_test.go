package alert

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/replenish/evaluate"
	"github.com/stockd/stockd/store"
)

var ctx = context.Background()

// importDemand gives sku 10 units a day of imported history from
// October to mid-December: with the default settings (7-day lead time,
// 95 %), its alert line is 70 and it is critical below 70 available.
func importDemand(t *testing.T, s store.Store, sku string, now time.Time) {
	t.Helper()
	var rows []stockd.DemandDay
	for d := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		rows = append(rows, stockd.DemandDay{SKU: sku, Date: d.Format(time.DateOnly), Quantity: 10})
	}
	if err := s.DemandHistoryPut(ctx, store.DemandHistoryPutParams{Rows: rows, At: now}); err != nil {
		t.Fatal(err)
	}
}

type workerTest struct {
	h        *flowtest.Harness
	w        *Worker
	n        *Notifier
	received *receiver
}

func newWorkerTest(t *testing.T, b testdb.Backend, policy Policy) *workerTest {
	h := flowtest.NewHarness(t, b.New(t))
	h.Clock.Set(time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC))
	r := newReceiver(t, testSecret)
	n, err := NewNotifier(NotifierConfig{Environment: "test", Sinks: []Sink{webhookSink("ops", "test", 0, r)}, Log: h.Store,
		BackoffBase: time.Millisecond, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	n.Start()
	t.Cleanup(n.Stop)
	zone, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	notify := func(ctx context.Context, notices []stockd.Notice) error {
		return h.Engine.Notify(ctx, "alert", notices)
	}
	w := New(Config{Store: h.Store, Evaluate: Evaluator(&evaluate.Evaluator{Store: h.Store, Zone: zone}), Notifier: n, Notify: notify, Policy: policy, Zone: zone,
		DailyAt: 8 * time.Hour, Debounce: 5 * time.Second, DebounceMax: time.Minute, Now: h.Clock.Now, Logger: quietLogger()})
	h.SKU("A")
	h.Location("L", 1)
	importDemand(t, h.Store, "A", h.Clock.Now())
	return &workerTest{h: h, w: w, n: n, received: r}
}

func (wt *workerTest) follow(t *testing.T) {
	t.Helper()
	if err := wt.w.Follow(ctx); err != nil {
		t.Fatal(err)
	}
}

func (wt *workerTest) due(t *testing.T) int {
	t.Helper()
	n, err := wt.w.EvaluateDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (wt *workerTest) open(t *testing.T) string {
	t.Helper()
	a, err := wt.h.Store.AlertOpenGet(ctx, "A")
	if isNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return a.Level
}

// delivered drains the notifier and returns the messages the receiver got.
func (wt *workerTest) delivered() []Message {
	wt.n.Stop()
	wt.received.mu.Lock()
	defer wt.received.mu.Unlock()
	return wt.received.got
}

func isNotFound(err error) bool { return errors.Is(err, stockd.ErrNotFound) }

// TestWorkerFollowsTheLedger: a stock change is seen through the ledger,
// evaluated once its SKU is quiet for the debounce, and a restarted worker
// resumes from the stored cursor.
func TestWorkerFollowsTheLedger(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		wt := newWorkerTest(t, b, Policy{})
		wt.h.Receive("A", "L", 65) // below 7 days of cover: critical
		wt.follow(t)
		if n := wt.due(t); n != 0 {
			t.Fatalf("evaluated %d SKUs before the debounce, want 0", n)
		}
		wt.h.Clock.Advance(3 * time.Second)
		wt.h.Receive("A", "L", 1) // still changing: the debounce restarts
		wt.follow(t)
		wt.h.Clock.Advance(3 * time.Second)
		if n := wt.due(t); n != 0 {
			t.Fatalf("evaluated %d SKUs while their stock kept changing, want 0", n)
		}
		wt.h.Clock.Advance(2 * time.Second)
		if n := wt.due(t); n != 1 || wt.open(t) != "critical" {
			t.Fatalf("after the debounce: evaluated %d, open alert %q; want 1 and critical", n, wt.open(t))
		}
		if n := wt.due(t); n != 0 {
			t.Fatalf("evaluated %d again, want 0", n)
		}
		// Restocked: the alert resolves by itself.
		wt.h.Receive("A", "L", 400)
		wt.follow(t)
		wt.h.Clock.Advance(5 * time.Second)
		wt.due(t)
		if got := wt.open(t); got != "" {
			t.Fatalf("open alert after restock %q, want none", got)
		}
		alerts, err := wt.h.Store.AlertList(ctx, store.AlertListParams{SKU: "A"})
		if err != nil || len(alerts) != 1 || alerts[0].Status != stockd.AlertResolved || alerts[0].Resolution != "cleared" {
			t.Fatalf("alerts of A = %+v, %v; want one, cleared", alerts, err)
		}
		// A new worker on the same store resumes after what was evaluated.
		cursor, err := wt.h.Store.AlertCursorGet(ctx)
		if err != nil || cursor == 0 {
			t.Fatalf("cursor %d, %v; want the last ledger seq", cursor, err)
		}
		again := New(Config{Store: wt.h.Store, Evaluate: wt.w.cfg.Evaluate, Now: wt.h.Clock.Now, Logger: quietLogger()})
		if err := again.Follow(ctx); err != nil {
			t.Fatal(err)
		}
		if len(again.pending) != 0 {
			t.Fatalf("a restarted worker re-read %d SKUs, want none", len(again.pending))
		}
		got := wt.delivered()
		if len(got) != 1 || got[0].Level != "critical" || got[0].SKU != "A" || got[0].Environment != "test" {
			t.Fatalf("delivered %+v; want the one critical alert", got)
		}
	})
}

// TestWorkerDailyAndEscalation: the daily job runs once per business date
// at its local time (Asia/Shanghai, 08:00 = 00:00 UTC) and is idempotent;
// the escalation pass moves an unacknowledged warning to critical.
func TestWorkerDailyAndEscalation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		wt := newWorkerTest(t, b, Policy{})
		wt.h.Receive("A", "L", 70) // at the alert line: warning
		// 09:00 UTC is 17:00 in Shanghai: past 08:00, the job runs.
		if ran, err := wt.w.DailyIfDue(ctx); err != nil || !ran || wt.open(t) != "warning" {
			t.Fatalf("DailyIfDue = %v, %v, open %q; want run and warning", ran, err, wt.open(t))
		}
		if ran, err := wt.w.DailyIfDue(ctx); err != nil || ran {
			t.Fatalf("DailyIfDue again the same day = %v, %v; want not run", ran, err)
		}
		if err := wt.w.Daily(ctx); err != nil {
			t.Fatal(err)
		}
		// 23:59 UTC is 07:59 the next day in Shanghai: not yet.
		wt.h.Clock.Set(time.Date(2026, 12, 4, 23, 59, 0, 0, time.UTC))
		if ran, err := wt.w.DailyIfDue(ctx); err != nil || ran {
			t.Fatalf("DailyIfDue before 08:00 local = %v, %v; want not run", ran, err)
		}
		if err := wt.w.Escalate(ctx); err != nil || wt.open(t) != "warning" {
			t.Fatalf("escalation after 15 h: %v, open %q; want warning still", err, wt.open(t))
		}
		wt.h.Clock.Set(time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC))
		if err := wt.w.Escalate(ctx); err != nil || wt.open(t) != "critical" {
			t.Fatalf("escalation after 24 h: %v, open %q; want critical", err, wt.open(t))
		}
		got := wt.delivered()
		if len(got) != 2 || got[0].Level != "warning" || got[1].Level != "critical" || got[1].Event != stockd.AlertEscalated {
			t.Fatalf("delivered %+v; want warning, then critical escalated", got)
		}
	})
}

// TestWorkerDigest: an alert held back by an open purchase order goes to
// the next day's digest, once.
func TestWorkerDigest(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		wt := newWorkerTest(t, b, Policy{})
		wt.h.Receive("A", "L", 60)
		date := wt.w.BusinessDate(wt.h.Clock.Now())
		// A digest notice as the worker would record it for a SKU whose
		// open purchase order covers it.
		a := stockd.Alert{SKU: "A", Condition: "critical", Level: "critical", Status: stockd.AlertOpen, Suppressed: true,
			OpenedAt: wt.h.Clock.Now(), ChangedAt: wt.h.Clock.Now(), EvaluatedAt: wt.h.Clock.Now()}
		if _, err := wt.h.Store.AlertWrite(ctx, store.AlertWriteParams{Save: &a, Notices: []stockd.AlertNotice{
			{SKU: "A", Level: "critical", BusinessDate: date, Kind: stockd.AlertNoticeDigest, At: wt.h.Clock.Now()},
		}}); err != nil {
			t.Fatal(err)
		}
		wt.h.Clock.Advance(24 * time.Hour)
		for range 2 {
			if err := wt.w.digest(ctx); err != nil {
				t.Fatal(err)
			}
		}
		got := wt.delivered()
		if len(got) != 1 || got[0].Kind != MessageDigest || len(got[0].Digest) != 1 || got[0].BusinessDate != date {
			t.Fatalf("delivered %+v; want one digest of %s with one line", got, date)
		}
	})
}

// TestWorkerPurchaseOrderSuppresses: through the engine, an open purchase
// order that covers the suggestion holds the alert to the digest; its
// receipt clears it, and the next shortage, with no order open, is sent.
func TestWorkerPurchaseOrderSuppresses(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		wt := newWorkerTest(t, b, Policy{})
		settle := func() {
			t.Helper()
			wt.follow(t)
			wt.h.Clock.Advance(6 * time.Second)
			wt.due(t)
		}
		wt.h.Receive("A", "L", 60) // 6 days of cover: critical
		wt.h.MustDo(stockd.Command{Op: &stockd.PurchaseOrder{ID: "PO-1", Supplier: "Acme", ExpectedAt: wt.h.Clock.Now().Add(72 * time.Hour),
			Lines: []stockd.POLineRequest{{SKU: "A", Location: "L", Quantity: 50}}}})
		settle()
		a, err := wt.h.Store.AlertOpenGet(ctx, "A")
		if err != nil || a.Level != "critical" || !a.Suppressed || a.Announced {
			t.Fatalf("open alert with PO-1 open = %+v, %v; want critical, suppressed, not announced", a, err)
		}
		notices, err := wt.h.Store.AlertNoticeList(ctx, wt.w.BusinessDate(wt.h.Clock.Now()), "A")
		if err != nil || len(notices) != 1 || notices[0].Kind != stockd.AlertNoticeDigest {
			t.Fatalf("notices = %+v, %v; want one digest line", notices, err)
		}
		wt.h.MustDo(stockd.Command{Op: &stockd.PurchaseOrderReceipt{OrderID: "PO-1", Lines: []stockd.POLineRequest{{SKU: "A", Location: "L", Quantity: 50}}}})
		settle()
		if got := wt.open(t); got != "" {
			t.Fatalf("open alert after PO-1 arrived: %q, want none", got)
		}
		wt.h.Reserve(stockd.LineRequest{SKU: "A", Quantity: 45}) // 65 available, nothing on order
		settle()
		if got := wt.open(t); got != "critical" {
			t.Fatalf("open alert after the sale: %q, want critical", got)
		}
		got := wt.delivered()
		if len(got) != 1 || got[0].Level != "critical" {
			t.Fatalf("delivered %+v; want only the critical after the receipt", got)
		}
	})
}

// TestWorkerAlertEvents: an alert's life reaches the ledger as events,
// each once, at the SKU's normal-pool position, and the evaluation caches
// the alert line on the SKU for the batch's stock_low.
func TestWorkerAlertEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		wt := newWorkerTest(t, b, Policy{})
		wt.h.Receive("A", "L", 70) // at the alert line: warning
		if err := wt.w.EvaluateSKU(ctx, "A"); err != nil || wt.open(t) != "warning" {
			t.Fatalf("evaluate: %v, open %q; want warning", err, wt.open(t))
		}
		if sku, err := wt.h.Store.SKUGet(ctx, "A"); err != nil || sku.AlertLine != 70 {
			t.Fatalf("SKU A = %+v, %v; want the alert line 70 cached", sku, err)
		}
		wt.h.Clock.Set(time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC))
		if err := wt.w.Escalate(ctx); err != nil || wt.open(t) != "critical" {
			t.Fatalf("escalation after 24 h: %v, open %q; want critical", err, wt.open(t))
		}
		open, err := wt.h.Store.AlertOpenGet(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := wt.h.Store.AlertAck(ctx, store.AlertAckParams{ID: open.ID, KeyID: "k1", At: wt.h.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		for range 2 { // noticed once, however many passes see it
			if err := wt.w.Escalate(ctx); err != nil {
				t.Fatal(err)
			}
		}
		wt.h.Receive("A", "L", 400)
		if err := wt.w.EvaluateSKU(ctx, "A"); err != nil || wt.open(t) != "" {
			t.Fatalf("evaluate after restock: %v, open %q; want resolved", err, wt.open(t))
		}
		entries, err := wt.h.Store.LedgerList(ctx, store.LedgerListParams{SKU: "A", Limit: stockd.PageSizeMax})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries {
			if !stockd.EventOnly(e.BusinessType) || !strings.HasPrefix(e.BusinessType, "alert_") {
				continue
			}
			if e.Position != (stockd.PositionKey{SKU: "A", Location: "L", Pool: stockd.PoolDefault}) || e.Delta != (stockd.Counters{}) || e.Actor != "alert" {
				t.Fatalf("entry %+v: want a zero-delta event at A/L/normal by the alert worker", e)
			}
			got = append(got, e.BusinessID)
		}
		id := strconv.FormatInt(open.ID, 10)
		want := []string{"alert_raised:" + id, "alert_escalated:" + id + "/critical/0", "alert_acknowledged:" + id, "alert_resolved:" + id}
		if !slices.Equal(got, want) {
			t.Fatalf("alert events %q, want %q", got, want)
		}
	})
}

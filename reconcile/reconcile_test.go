package reconcile_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
)

var ctx = context.Background()

type fixture struct {
	*flowtest.Harness
	r   *reconcile.Reconciler
	reg *prometheus.Registry
}

func newFixture(t *testing.T, b testdb.Backend, cfg reconcile.Config) *fixture {
	h := flowtest.NewHarness(t, b.New(t))
	reg := prometheus.NewRegistry()
	cfg.Store, cfg.Now, cfg.Registerer = h.Store, h.Clock.Now, reg
	cfg.BatchPause = time.Millisecond
	return &fixture{Harness: h, r: reconcile.New(cfg), reg: reg}
}

func (f *fixture) pass(pass string) reconcile.Result {
	f.T.Helper()
	res, err := f.r.Pass(ctx, pass)
	if err != nil {
		f.T.Fatalf("%s pass: %v", pass, err)
	}
	return res
}

// plant writes counters straight into the position, bypassing the engine
// and the ledger, as a bug or a hand-made UPDATE would.
func (f *fixture) plant(k stockd.PositionKey, c stockd.Counters) {
	f.T.Helper()
	tx, err := f.Store.Begin(ctx)
	if err != nil {
		f.T.Fatal(err)
	}
	if err := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: k, Counters: c}}}); err != nil {
		f.T.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		f.T.Fatal(err)
	}
}

func (f *fixture) open() []stockd.Discrepancy {
	f.T.Helper()
	ds, err := f.Store.DiscrepancyList(ctx, store.DiscrepancyListParams{Status: stockd.DiscrepancyOpen})
	if err != nil {
		f.T.Fatal(err)
	}
	return ds
}

func kinds(fs []stockd.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func openKinds(ds []stockd.Discrepancy) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Kind)
	}
	return out
}

var posA = stockd.PositionKey{SKU: "A", Location: "default", Pool: stockd.PoolDefault}

// TestMinuteDriftFoundNotFixedResolved: a counter drift planted through the
// store is found by the next minute pass, which changes nothing; an
// adjustment naming the discrepancy resolves it, and the pass after closes
// it. The day pass and verify agree.
func TestMinuteDriftFoundNotFixedResolved(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.SKU("B")
		f.Receive("A", "default", 10)
		f.Receive("B", "default", 4)
		if res := f.pass(stockd.PassMinute); !res.Clean() || len(res.Runs) != 1 || res.Runs[0].PositionsChecked != 2 {
			t.Fatalf("first pass = %+v, want clean over 2 positions", res)
		}
		f.Receive("A", "default", 2)
		f.plant(posA, stockd.Counters{OnHand: 15})

		res := f.pass(stockd.PassMinute)
		if got := kinds(res.Findings); !slices.Equal(got, []string{stockd.DiscrepancyLedgerSum, stockd.DiscrepancyLedgerLast}) {
			t.Fatalf("pass after the drift found %v, want ledger_sum and ledger_last", got)
		}
		if run := res.Runs[0]; run.PositionsChecked != 1 || run.Opened != 2 {
			t.Fatalf("run = %+v, want 1 position checked (only A changed) and 2 opened", run)
		}
		if c := f.Counters("A", "default"); c.OnHand != 15 {
			t.Fatalf("the pass changed the books: %+v", c)
		}
		open := f.open()
		if len(open) != 2 || open[0].Expected.OnHand != 12 || open[0].Actual.OnHand != 15 || open[0].Position != posA {
			t.Fatalf("open discrepancies = %+v, want the drift 12 -> 15 at A", open)
		}
		if v := openGauge(t, f.reg, stockd.DiscrepancyLedgerSum); v != 1 {
			t.Fatalf("open ledger_sum gauge = %v, want 1", v)
		}

		// Nothing changed A since: still open, not re-found, not closed.
		f.Clock.Advance(time.Minute)
		if res := f.pass(stockd.PassMinute); !res.Clean() || res.Runs[0].Closed != 0 {
			t.Fatalf("idle pass = %+v, want clean and nothing closed", res)
		}
		if len(f.open()) != 2 {
			t.Fatal("an idle pass closed the drift")
		}

		// Resolution: the count says 12; the adjustment names the drift.
		adj := f.MustDo(stockd.Command{Actor: "clerk", Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonCorrection,
			Set: true, SetOnHand: 12, ExpectedOnHand: 15, DiscrepancyID: open[0].ID}})
		if adj.Position.OnHand != 12 {
			t.Fatalf("adjustment left %+v", adj.Position)
		}
		entries, err := f.Store.LedgerList(ctx, store.LedgerListParams{SKU: "A", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		last := entries[len(entries)-1]
		if last.BusinessType != stockd.BusinessReconciliation || last.Reference != "discrepancy:"+itoa(open[0].ID) || last.Delta.OnHand != -3 {
			t.Fatalf("resolution entry = %+v, want a reconciliation of -3 naming discrepancy %d", last, open[0].ID)
		}
		f.Clock.Advance(time.Minute)
		res = f.pass(stockd.PassMinute)
		if !res.Clean() || res.Runs[0].Closed != 2 {
			t.Fatalf("pass after the resolution = %+v, want clean with 2 closed", res)
		}
		for _, id := range []int64{open[0].ID, open[1].ID} {
			d, err := f.Store.DiscrepancyGet(ctx, id)
			if err != nil || d.Status != stockd.DiscrepancyClosed || d.ClosedByRun != res.Runs[0].ID {
				t.Fatalf("discrepancy %d = %+v, %v; want closed by run %d", id, d, err, res.Runs[0].ID)
			}
		}
		if v := openGauge(t, f.reg, stockd.DiscrepancyLedgerSum); v != 0 {
			t.Fatalf("open ledger_sum gauge = %v, want 0", v)
		}
		if res := f.pass(stockd.PassDay); !res.Clean() {
			t.Fatalf("day pass after the resolution found %+v", res.Findings)
		}
		f.Verify()
	})
}

// TestDriftThroughApproval: a large resolution waits for a second key's
// approval, and the drift closes only once it is approved and applied.
func TestDriftThroughApproval(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 10)
		f.plant(posA, stockd.Counters{OnHand: 510})
		res := f.pass(stockd.PassMinute)
		if len(res.Findings) != 2 {
			t.Fatalf("found %v, want the drift", kinds(res.Findings))
		}
		id := f.open()[0].ID
		pending := f.MustDo(stockd.Command{Actor: "clerk", Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonCorrection,
			Set: true, SetOnHand: 10, ExpectedOnHand: 510, DiscrepancyID: id}})
		if !pending.Pending {
			t.Fatalf("a correction of 500 applied without approval: %+v", pending)
		}
		f.Clock.Advance(time.Minute)
		if res := f.pass(stockd.PassMinute); len(f.open()) != 2 || !res.Clean() {
			t.Fatalf("pending approval: pass %+v, open %v; want the drift still open", res, openKinds(f.open()))
		}
		var ap stockd.Approval
		objectOf(t, pending, &ap)
		if got := f.MustDo(stockd.Command{Actor: "boss", Op: &stockd.ApprovalDecision{ID: ap.ID}}); got.Err != nil {
			t.Fatal(got.Err)
		}
		f.Clock.Advance(time.Minute)
		if res := f.pass(stockd.PassMinute); !res.Clean() || len(f.open()) != 0 {
			t.Fatalf("after approval: pass %+v, open %v; want clean and closed", res, openKinds(f.open()))
		}
		f.Verify()
	})
}

// TestIdleDriftFoundByDay: a drift at a position no entry touches since is
// beyond the minute pass (it reads the ledger, not the table); the day
// pass finds it, and closes it once resolved.
func TestIdleDriftFoundByDay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 10)
		f.pass(stockd.PassMinute)
		f.plant(posA, stockd.Counters{OnHand: 7})
		if res := f.pass(stockd.PassMinute); !res.Clean() {
			t.Fatalf("minute pass found %v at an idle position", kinds(res.Findings))
		}
		res := f.pass(stockd.PassDay)
		if got := kinds(res.Findings); !slices.Equal(got, []string{stockd.DiscrepancyLedgerSum, stockd.DiscrepancyLedgerLast}) {
			t.Fatalf("day pass found %v, want ledger_sum and ledger_last", got)
		}
		if res.Runs[0].PositionsChecked != 1 {
			t.Fatalf("day run = %+v, want 1 position", res.Runs[0])
		}
		f.MustDo(stockd.Command{Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonFound, Delta: 3, DiscrepancyID: f.open()[0].ID}})
		if res := f.pass(stockd.PassDay); !res.Clean() || res.Runs[0].Closed != 2 {
			t.Fatalf("day pass after the resolution = %+v, want clean, 2 closed", res)
		}
	})
}

// TestMinuteBatches: a backlog is read in batches of BatchEntries, one run
// each, the cursor advancing past each; a position whose entries straddle
// two batches is compared once, by the batch with its last entry.
func TestMinuteBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{BatchEntries: 2})
		for _, sku := range []string{"A", "B", "C"} {
			f.SKU(sku)
		}
		f.Receive("A", "default", 1)
		f.Receive("B", "default", 1)
		f.Receive("A", "default", 1)
		f.Receive("C", "default", 1)
		f.Receive("A", "default", 1)
		// 5 receipts and the back-in-stock events (position and pool) of
		// the first of each SKU: 11 entries, 6 runs of 2; events check no
		// position.
		res := f.pass(stockd.PassMinute)
		if !res.Clean() || len(res.Runs) != 6 {
			t.Fatalf("pass = %+v, want 6 clean runs", res)
		}
		checked := 0
		for i, run := range res.Runs {
			checked += run.PositionsChecked
			if i > 0 && run.CursorFrom != res.Runs[i-1].CursorTo {
				t.Fatalf("run %d starts at %d, the one before ended at %d", i, run.CursorFrom, res.Runs[i-1].CursorTo)
			}
		}
		if checked != 3 {
			t.Fatalf("positions checked %d over the runs, want each of 3 once", checked)
		}
		cursor, err := f.Store.ReconcileCursor(ctx, stockd.PassMinute)
		if err != nil || cursor != res.Runs[5].CursorTo {
			t.Fatalf("cursor = %d, %v; want %d", cursor, err, res.Runs[5].CursorTo)
		}
	})
}

// TestMinuteReservations: reserved that no pending reservation holds is
// found at the position's next entry.
func TestMinuteReservations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 10)
		f.Reserve(stockd.LineRequest{SKU: "A", Quantity: 2})
		if res := f.pass(stockd.PassMinute); !res.Clean() {
			t.Fatalf("found %v in clean books", kinds(res.Findings))
		}
		f.plant(posA, stockd.Counters{OnHand: 10, Reserved: 3})
		f.Receive("A", "default", 1)
		got := kinds(f.pass(stockd.PassMinute).Findings)
		if !slices.Equal(got, []string{stockd.DiscrepancyLedgerChain, stockd.DiscrepancyLedgerSum, stockd.DiscrepancyReservations}) {
			t.Fatalf("found %v, want ledger_chain, ledger_sum and reservations", got)
		}
	})
}

// TestHourPass: a hold past its deadline and the grace, an order confirmed
// and never shipped, an approval past its expiry; each closes when the
// thing is dealt with.
func TestHourPass(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{HoldGrace: time.Minute, UnshippedAge: 48 * time.Hour})
		f.SKU("A")
		f.Receive("A", "default", 1000)
		hold := f.Reserve(stockd.LineRequest{SKU: "A", Quantity: 1}).Reservation
		order := f.Reserve(stockd.LineRequest{SKU: "A", Quantity: 2}).Reservation
		f.Transition(stockd.KindConfirm, order.ID)
		approval := f.MustDo(stockd.Command{Actor: "clerk", Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonLoss, Delta: -500}})
		if res := f.pass(stockd.PassHour); !res.Clean() {
			t.Fatalf("hour pass found %v at once", kinds(res.Findings))
		}
		f.Clock.Advance(3 * 24 * time.Hour)
		res := f.pass(stockd.PassHour)
		got := kinds(res.Findings)
		slices.Sort(got)
		if !slices.Equal(got, []string{stockd.DiscrepancyOverdueApproval, stockd.DiscrepancyOverdueHold, stockd.DiscrepancyUnshipped}) {
			t.Fatalf("hour pass found %v, want an overdue hold, an unshipped order, an overdue approval", got)
		}
		var ap stockd.Approval
		objectOf(t, approval, &ap)
		f.Transition(stockd.KindExpire, hold.ID)
		f.Transition(stockd.KindFulfil, order.ID)
		f.Do(stockd.Command{Actor: "boss", Op: &stockd.ApprovalDecision{ID: ap.ID, Reject: true}})
		if res := f.pass(stockd.PassHour); !res.Clean() || res.Runs[0].Closed != 3 {
			t.Fatalf("hour pass after = %+v, want clean with 3 closed", res)
		}
	})
}

// TestScheduleBounds: intervals outside their bounds are refused.
func TestScheduleBounds(t *testing.T) {
	for _, tc := range []struct {
		s  reconcile.Schedule
		ok bool
	}{
		{reconcile.DefaultSchedule, true},
		{reconcile.Schedule{}, true},
		{reconcile.Schedule{Minute: time.Millisecond}, false},
		{reconcile.Schedule{Hour: 48 * time.Hour}, false},
		{reconcile.Schedule{Day: time.Minute}, false},
	} {
		if err := tc.s.Check(); (err == nil) != tc.ok {
			t.Errorf("Check(%+v) = %v, want ok %v", tc.s, err, tc.ok)
		}
	}
}

// TestRunSchedules: Run runs the passes on their ticks and stops with its
// context.
func TestRunSchedules(t *testing.T) {
	b := testdb.Backends()[0]
	f := newFixture(t, b, reconcile.Config{})
	f.SKU("A")
	f.Receive("A", "default", 1)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.r.Run(runCtx, reconcile.Schedule{Minute: reconcile.MinuteIntervalMin})
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		cursor, err := f.Store.ReconcileCursor(ctx, stockd.PassMinute)
		if err != nil {
			t.Fatal(err)
		}
		if cursor > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no minute pass ran within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
}

// TestExceptionsGauge: a late payment's exception shows in
// stockd_exceptions_open until it is resolved.
func TestExceptionsGauge(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 1)
		hold := f.Reserve(stockd.LineRequest{SKU: "A", Quantity: 1}).Reservation
		f.Clock.Advance(stockd.ReservationTTLDefault)
		late := f.Transition(stockd.KindConfirm, hold.ID)
		if late.Err == nil || late.Err.ExceptionID == "" {
			t.Fatalf("late confirm = %+v, want an exception", late.Err)
		}
		refresh := func(want float64) {
			t.Helper()
			if err := f.r.RefreshMetrics(ctx); err != nil {
				t.Fatal(err)
			}
			if got := gauge(t, f.reg, "stockd_exceptions_open", stockd.ExceptionLatePayment); got != want {
				t.Fatalf("stockd_exceptions_open{kind=late_payment} = %v, want %v", got, want)
			}
			if got := gauge(t, f.reg, "stockd_exceptions_open", stockd.ExceptionGateOversell); got != 0 {
				t.Fatalf("stockd_exceptions_open{kind=gate_oversell} = %v, want 0", got)
			}
		}
		refresh(1)
		f.MustDo(stockd.Command{Op: &stockd.ExceptionResolve{ID: late.Err.ExceptionID, Note: "refunded"}})
		refresh(0)
	})
}

// openGauge reads stockd_discrepancies_open for kind.
func openGauge(t *testing.T, reg *prometheus.Registry, kind string) float64 {
	t.Helper()
	return gauge(t, reg, "stockd_discrepancies_open", kind)
}

// gauge reads the gauge name for kind.
func gauge(t *testing.T, reg *prometheus.Registry, name, kind string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{kind=%q}", name, kind)
	return 0
}

func objectOf(t *testing.T, res stockd.Result, v any) {
	t.Helper()
	if err := json.Unmarshal(res.Object, v); err != nil {
		t.Fatalf("answer %s: %v", res.Object, err)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestCountAsOfItsTime: a count taken while orders kept shipping is
// compared with on_hand as the ledger had it when counted, not as it is
// when the count arrives; a mismatch opens a discrepancy, a later count
// that agrees closes it.
func TestCountAsOfItsTime(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 10)
		countedAt := f.Clock.Now().Add(10 * time.Minute)
		f.Clock.Advance(20 * time.Minute)
		order := f.Reserve(stockd.LineRequest{SKU: "A", Quantity: 3}).Reservation
		f.Transition(stockd.KindConfirm, order.ID)
		f.Transition(stockd.KindFulfil, order.ID)
		if c := f.Counters("A", "default"); c.OnHand != 7 {
			t.Fatalf("on_hand after shipping = %d, want 7", c.OnHand)
		}
		f.Clock.Advance(10 * time.Minute)
		count := func(counted int64, at time.Time) reconcile.Result {
			t.Helper()
			res, err := f.r.Count(ctx, []stockd.CountRow{{SKU: "A", CountedOnHand: counted, CountedAt: at}})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		if res := count(10, countedAt); !res.Clean() {
			t.Fatalf("a right count taken before the shipment found %+v", res.Findings)
		}
		res := count(9, countedAt)
		if len(res.Findings) != 1 || res.Findings[0].Expected.OnHand != 10 || res.Findings[0].Actual.OnHand != 9 {
			t.Fatalf("a count one short found %+v, want expected 10, actual 9", res.Findings)
		}
		if c := f.Counters("A", "default"); c.OnHand != 7 {
			t.Fatalf("the count changed the books: %+v", c)
		}
		if res := count(7, f.Clock.Now()); !res.Clean() || res.Runs[0].Closed != 1 {
			t.Fatalf("a right count now = %+v, want clean with the mismatch closed", res)
		}
		for _, rows := range [][]stockd.CountRow{
			{{SKU: "NOPE", CountedAt: countedAt}},
			{{SKU: "A", CountedOnHand: -1, CountedAt: countedAt}},
			{{SKU: "A", CountedAt: f.Clock.Now().Add(time.Hour)}},
			{},
		} {
			if _, err := f.r.Count(ctx, rows); err == nil {
				t.Errorf("count %+v accepted", rows)
			}
		}
	})
}

// TestMinuteResolutionAcrossBatches: the adjustment that resolves a drift
// lands in one batch and the position's last entry in the next; the batch
// that compares the position still counts it as acknowledged and closes
// the drift.
func TestMinuteResolutionAcrossBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{BatchEntries: 2})
		f.SKU("A")
		f.SKU("B")
		f.Receive("A", "default", 10)
		// B in stock before the drift: its first receipt's back-in-stock
		// events would fill a batch of their own below.
		f.Receive("B", "default", 1)
		f.plant(posA, stockd.Counters{OnHand: 15})
		if res := f.pass(stockd.PassMinute); len(res.Findings) != 2 {
			t.Fatalf("found %v, want the drift", kinds(res.Findings))
		}
		f.MustDo(stockd.Command{Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonCorrection,
			Set: true, SetOnHand: 10, ExpectedOnHand: 15, DiscrepancyID: f.open()[0].ID}})
		f.Receive("B", "default", 1)
		f.Receive("A", "default", 1)
		res := f.pass(stockd.PassMinute)
		if !res.Clean() || len(res.Runs) != 2 {
			t.Fatalf("pass = %+v, want 2 clean runs", res)
		}
		if open := f.open(); len(open) != 0 {
			t.Fatalf("open after the resolution = %v, want none", openKinds(open))
		}
	})
}

// TestCountBeforeArchiveCut: a count dated before the ledger's archive cut
// is refused (its entries are in the archive's file); one at the cut is
// compared as any other.
func TestCountBeforeArchiveCut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		feb := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
		f.Clock.Set(feb.AddDate(0, 0, -20))
		f.SKU("A")
		f.Receive("A", "default", 10)
		f.Clock.Set(feb.AddDate(0, 1, 0))
		if _, err := f.Store.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: feb, CutSeq: 1, Path: "/archive.jsonl", At: f.Clock.Now()}); err != nil {
			t.Fatal(err)
		}
		_, err := f.r.Count(ctx, []stockd.CountRow{{SKU: "A", CountedOnHand: 10, CountedAt: feb.Add(-time.Hour)}})
		var verr *stockd.Error
		if !errors.As(err, &verr) || verr.Code != stockd.CodeInvalidInput || verr.Field != "counted_at" {
			t.Fatalf("a count before the cut: %v; want invalid_input on counted_at", err)
		}
		res, err := f.r.Count(ctx, []stockd.CountRow{{SKU: "A", CountedOnHand: 10, CountedAt: feb}})
		if err != nil || !res.Clean() {
			t.Fatalf("a right count at the cut: %+v, %v; want it clean", res, err)
		}
	})
}

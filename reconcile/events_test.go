package reconcile_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
)

func withNotify(f *fixture, cfg reconcile.Config) *fixture {
	cfg.Store, cfg.Now, cfg.BatchPause = f.Store, f.Clock.Now, time.Millisecond
	cfg.Notify = func(ctx context.Context, n []stockd.Notice) error { return f.Engine.Notify(ctx, "reconcile", n) }
	f.r = reconcile.New(cfg)
	return f
}

// notices lists the discrepancy events of the ledger as business ids.
func notices(t *testing.T, f *fixture) []string {
	t.Helper()
	entries, err := f.Store.LedgerList(ctx, store.LedgerListParams{Limit: stockd.PageSizeMax})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.BusinessType, "discrepancy_") {
			if e.Delta != (stockd.Counters{}) || e.Actor != "reconcile" {
				t.Fatalf("notice %+v: want zero delta, by the reconciler", e)
			}
			out = append(out, e.BusinessID+"@"+e.Position.SKU+"/"+e.Position.Location)
		}
	}
	return out
}

// TestDiscrepancyEvents: a drift opened and closed reaches the ledger as
// events at its position, once each; the events, whose counters copy the
// drifted position, never carry the drift forward: the passes after them
// still see it until the adjustment that names it.
func TestDiscrepancyEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		withNotify(f, reconcile.Config{})
		f.SKU("A")
		f.Receive("A", "default", 10)
		f.pass(stockd.PassMinute)
		f.plant(posA, stockd.Counters{OnHand: 15})
		f.Receive("A", "default", 1) // the minute pass looks at A again
		if res := f.pass(stockd.PassMinute); len(res.Findings) != 2 || res.Runs[0].Opened != 2 {
			t.Fatalf("pass after the drift = %+v, want 2 opened", res)
		}
		open := f.open()
		ids := []string{strconv.FormatInt(open[0].ID, 10), strconv.FormatInt(open[1].ID, 10)}
		want := []string{"discrepancy_opened:" + ids[0] + "@A/default", "discrepancy_opened:" + ids[1] + "@A/default"}
		if got := notices(t, f); !slices.Equal(got, want) {
			t.Fatalf("notices %q, want %q", got, want)
		}
		// The notices are the only entries since: the next minute pass
		// checks no position and closes nothing; the day pass (verify)
		// still sees the drift.
		if res := f.pass(stockd.PassMinute); len(res.Runs) != 1 || res.Runs[0].PositionsChecked != 0 || res.Runs[0].Closed != 0 {
			t.Fatalf("pass over the notices = %+v, want nothing checked or closed", res)
		}
		if res := f.pass(stockd.PassDay); res.Clean() || res.Runs[0].Closed != 0 {
			t.Fatalf("day pass after the notices = %+v, want the drift still seen", res)
		}
		f.MustDo(stockd.Command{Op: &stockd.Adjust{Position: posA, Reason: stockd.ReasonCorrection,
			Set: true, SetOnHand: 11, ExpectedOnHand: 16, DiscrepancyID: open[0].ID}})
		if res := f.pass(stockd.PassMinute); !res.Clean() || res.Runs[0].Closed != 2 {
			t.Fatalf("pass after the resolution = %+v, want clean, 2 closed", res)
		}
		want = append(want, "discrepancy_closed:"+ids[0]+"@A/default", "discrepancy_closed:"+ids[1]+"@A/default")
		if got := notices(t, f); !slices.Equal(got, want) {
			t.Fatalf("notices %q, want %q", got, want)
		}
		if rep := f.Verify(); !rep.Clean() {
			t.Fatalf("verify after the resolution: %+v", rep)
		}
	})
}

// TestHourRelayLag: the hour pass reports a relay or an enabled webhook
// too old or too many events behind the ledger as relay_lag, closes it
// once it caught up, and a pass that checks no relay (the command line)
// leaves it open.
func TestHourRelayLag(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		f := newFixture(t, b, reconcile.Config{})
		withNotify(f, reconcile.Config{RelayNames: []string{"nats:STOCKD"}, Webhooks: true, RelayLagMax: 5 * time.Minute, RelayLagEventsMax: 5})
		f.SKU("A")
		f.Receive("A", "default", 1) // the receipt and its two back-in-stock events
		w, secret, err := stockd.NewWebhook("https://hooks.example.com/stockd", []string{stockd.BusinessReceipt}, f.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		w.Cursor = 3
		if err := f.Store.WebhookCreate(ctx, store.WebhookCreateParams{Webhook: w, Secret: secret}); err != nil {
			t.Fatal(err)
		}
		if res := f.pass(stockd.PassHour); !res.Clean() {
			t.Fatalf("hour pass 3 events and no time behind = %v, want clean", kinds(res.Findings))
		}
		f.Clock.Advance(10 * time.Minute)
		res := f.pass(stockd.PassHour)
		if len(res.Findings) != 1 || res.Findings[0].Kind != stockd.DiscrepancyRelayLag || res.Findings[0].Subject != "relay:nats:STOCKD" {
			t.Fatalf("hour pass 10 minutes behind = %+v, want the relay's lag", res.Findings)
		}
		// Three more receipts: the webhook is 3 behind, within the bound;
		// the relay still too old.
		for range 3 {
			f.Receive("A", "default", 1)
		}
		if res := f.pass(stockd.PassHour); len(res.Findings) != 1 || res.Runs[0].Opened != 0 {
			t.Fatalf("hour pass = %+v, want the relay's lag, already open", res)
		}
		lease, err := f.Store.RelayLeaseTry(ctx, "nats:STOCKD")
		if err != nil {
			t.Fatal(err)
		}
		last, err := f.Store.LedgerSeqMax(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.CursorAdvance(ctx, last, f.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		if err := lease.Release(ctx); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			f.Receive("A", "default", 1)
		}
		// The relay caught up (3 behind, new); the webhook is 6 behind.
		res = f.pass(stockd.PassHour)
		if len(res.Findings) != 1 || res.Findings[0].Subject != "webhook:"+w.ID || res.Runs[0].Closed != 1 || res.Runs[0].Opened != 1 {
			t.Fatalf("hour pass = %+v, want the relay's closed and the webhook's opened", res)
		}
		// A pass that checks no relay leaves the webhook's lag open.
		cli := reconcile.New(reconcile.Config{Store: f.Store, Now: f.Clock.Now})
		if res, err := cli.Pass(ctx, stockd.PassHour); err != nil || !res.Clean() || res.Runs[0].Closed != 0 {
			t.Fatalf("hour pass without relays = %+v, %v; want clean, nothing closed", res, err)
		}
		if open := f.open(); len(open) != 1 || open[0].Subject != "webhook:"+w.ID {
			t.Fatalf("open = %+v, want the webhook's lag", open)
		}
		if got := notices(t, f); len(got) != 3 || !strings.HasPrefix(got[0], "discrepancy_opened:") || !strings.HasPrefix(got[1], "discrepancy_closed:") || got[2] != "discrepancy_opened:"+strconv.FormatInt(f.open()[0].ID, 10)+"@/" {
			t.Fatalf("notices %q: want the relay's opened and closed, the webhook's opened, at no position", got)
		}
	})
}

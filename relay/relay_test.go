package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/relay"
)

// TestRelayKilledMidRun: a relay stopped in the middle of thousands of
// events (mid-window: published, cursor not yet written) and a new one
// started on the same database deliver every event, in order, repeats
// only with the same id.
func TestRelayKilledMidRun(t *testing.T) {
	url := natsURL(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		tg := newTarget(t, url)
		p := newProducer(t, s)
		p.receipts(4, 750)

		first := start(t, tg.config(s))
		eventually(t, 60*time.Second, "first relay publishes 1000 events", func() bool { return first.relay.Status().Cursor >= 1000 })
		first.stop()
		stoppedAt := first.relay.Status().Cursor

		second := start(t, tg.config(s))
		if err := p.wait(); err != nil {
			t.Fatal(err)
		}
		caughtUp(t, s, second.relay, 60*time.Second)
		duplicates := checkDelivered(t, s, tg)
		if st := second.relay.Status(); st.State != relay.StateLeading {
			t.Fatalf("second relay state %+v; want leading", st)
		}
		t.Logf("first relay stopped at %d; %d duplicates stored", stoppedAt, duplicates)

		// A relay whose cursor is behind what the stream holds (a crash
		// between the acks and the cursor write, here the whole ledger)
		// publishes it all again: JetStream drops every repeat by its id.
		reg := prometheus.NewRegistry()
		behind := tg.config(s)
		behind.Name, behind.Registerer = "nats:behind", reg
		third := start(t, behind)
		caughtUp(t, s, third.relay, 60*time.Second)
		if again := checkDelivered(t, s, tg); again != duplicates {
			t.Fatalf("stream holds %d duplicates after a full repeat; want %d (all dropped)", again, duplicates)
		}
		last, err := s.LedgerSeqMax(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := counter(t, reg, "stockd_relay_duplicates_total"); got != float64(countLedger(t, s)) {
			t.Fatalf("duplicates acknowledged = %v; want every one of the %d events (last seq %d)", got, countLedger(t, s), last)
		}
	})
}

// TestRelayNATSDown: the relay's NATS server killed mid-run and started
// again a while later, on its own port and directory, loses nothing and
// keeps the order.
func TestRelayNATSDown(t *testing.T) {
	natsURL(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		server := newNATSServer(t)
		tg := newTarget(t, server.url())
		p := newProducer(t, s)
		p.receipts(3, 500)

		r := start(t, tg.config(s))
		eventually(t, 60*time.Second, "relay publishes 300 events", func() bool { return r.relay.Status().Cursor >= 300 })
		server.stop()
		down := r.relay.Status().Cursor
		p.receipts(2, 200) // events keep committing while it is down
		eventually(t, 10*time.Second, "relay notices NATS is down", func() bool { return r.relay.Status().State == relay.StateFailing })
		time.Sleep(time.Second)
		if st := r.relay.Status(); st.Cursor > down+256 || st.LagEvents == 0 {
			t.Fatalf("status %+v while NATS was down since cursor %d; want the cursor held and a lag", st, down)
		}
		server.start()
		if err := p.wait(); err != nil {
			t.Fatal(err)
		}
		caughtUp(t, s, r.relay, 60*time.Second)
		checkDelivered(t, s, tg)
		if st := r.relay.Status(); st.State != relay.StateLeading || st.Error != "" {
			t.Fatalf("status after catching up %+v; want leading, no error", st)
		}
	})
}

// TestRelayStreamChecked: an existing stream that does not capture the
// relay's subjects is refused, not changed.
func TestRelayStreamChecked(t *testing.T) {
	url := natsURL(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		tg := newTarget(t, url)
		// A first relay creates the stream for its environment; a second
		// one with another environment finds it capturing other subjects.
		first := start(t, tg.config(s))
		eventually(t, 10*time.Second, "first relay leads", func() bool { return first.relay.Status().State == relay.StateLeading })
		first.stop()
		other := tg.config(s)
		other.Environment = "other" + tg.env
		second := start(t, other)
		eventually(t, 10*time.Second, "second relay refuses the stream", func() bool {
			st := second.relay.Status()
			return st.State == relay.StateFailing && st.Error != ""
		})
		if _, err := s.RelayCursorGet(context.Background(), "nats:"+tg.stream); err != nil {
			t.Fatal(err)
		}
	})
}

package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// referencePoison marks the receipt whose write the poisoned store makes
// the database refuse.
const referencePoison = "poison"

// poisonedStore makes the database itself refuse the write of any batch
// holding a receipt referenced "poison", the way PostgreSQL refused a NUL
// byte in a reference: the write of that command's data fails at the
// database, after the decision. How it is refused is the backend's real
// refusal: a NUL byte where the database refuses one (nul), or a counter
// below zero for the CHECK constraints (check).
type poisonedStore struct {
	store.Store
	how string
}

func (p *poisonedStore) Begin(ctx context.Context) (store.Tx, error) {
	tx, err := p.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &poisonedTx{Tx: tx, how: p.how}, nil
}

type poisonedTx struct {
	store.Tx
	how string
}

func (t *poisonedTx) Write(ctx context.Context, w *stockd.BatchWrites) error {
	for i, e := range w.Ledger {
		if e.Reference != referencePoison {
			continue
		}
		if t.how == "nul" {
			w.Ledger[i].Reference = "poi\x00son"
			continue
		}
		for j := range w.Positions {
			if w.Positions[j].PositionKey == e.Position {
				w.Positions[j].OnHand = -1
			}
		}
	}
	return t.Tx.Write(ctx, w)
}

// submitTogether submits cmds at once behind the store's closed gate, so
// that they form one batch, and returns each outcome in order. A first
// command (a receipt of an unknown SKU, which changes nothing) takes the
// applier to the gate alone; cmds then queue up whole behind it, where an
// applier that took the first few of them would leave the rest queued in
// an unknowable number of batches.
func submitTogether(t *testing.T, e *engine.Engine, gated *gatedStore, cmds []stockd.Command) []error {
	t.Helper()
	gated.arrived = make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = e.Submit(ctx, receiveCmd("gate-opener", "no-such-sku", 1)) })
	<-gated.arrived
	errs := make([]error, len(cmds))
	results := make([]stockd.Result, len(cmds))
	for i := range cmds {
		wg.Go(func() { results[i], errs[i] = e.Submit(ctx, cmds[i]) })
	}
	for e.Queued() < len(cmds) {
		time.Sleep(time.Millisecond)
	}
	close(gated.gate)
	wg.Wait()
	for i := range cmds {
		if errs[i] == nil && results[i].Err != nil {
			errs[i] = results[i].Err
		}
	}
	return errs
}

// TestRefusedWriteFailsOnlyItsCommand: one receipt whose data the database
// refuses at write time, among 60 good commands in one batch. Before
// isolation the whole batch failed and every caller got 500 (560 of 800
// valid reservations in the outside drill); now only the poisoned receipt
// fails, with an incident, and the others are applied.
func TestRefusedWriteFailsOnlyItsCommand(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ways := []string{"check"}
		if b.Name == "postgres" {
			ways = append(ways, "nul") // SQLite stores a NUL byte
		}
		for _, how := range ways {
			t.Run(how, func(t *testing.T) {
				s := b.New(t)
				seed(t, newEngine(t, s, engine.Config{}), "a", 1000)
				gated := &gatedStore{Store: &poisonedStore{Store: s, how: how}, gate: make(chan struct{})}
				reg := prometheus.NewRegistry()
				e := newEngine(t, gated, engine.Config{Metrics: engine.NewMetrics(reg)})
				cmds := make([]stockd.Command, 61)
				for i := range cmds {
					cmds[i] = reserveCmd(fmt.Sprintf("r-%d", i), "a", 1)
				}
				cmds[37] = receiveCmd("poisoned", "a", 5)
				cmds[37].Op.(*stockd.Receive).Reference = referencePoison
				errs := submitTogether(t, e, gated, cmds)
				for i, err := range errs {
					var incident *stockd.Incident
					switch {
					case i == 37 && !errors.As(err, &incident):
						t.Errorf("poisoned receipt: %v, want an incident", err)
					case i != 37 && err != nil:
						t.Errorf("command %d failed beside the poisoned one: %v", i, err)
					}
				}
				if got := counterValue(t, reg, "stockd_engine_incidents_total"); got != 1 {
					t.Errorf("incidents %v, want 1", got)
				}
				if got := counterValue(t, reg, "stockd_database_refusals_total"); got != 1 {
					t.Errorf("database refusals %v, want 1: the poisoned receipt", got)
				}
				if counterValue(t, reg, "stockd_batch_splits_total") == 0 {
					t.Error("no batch was split: the poisoned receipt did not share a batch")
				}
				if got := retriesByCause(t, reg); got[engine.RetryCauseSplit] == 0 || got[engine.RetryCausePanic] != 0 {
					t.Errorf("retries by cause %v, want split above 0 and no panic", got)
				}
				c := counters(t, s, "a")
				if c.OnHand != 1000 || c.Reserved != 60 {
					t.Errorf("counters %+v, want on_hand 1000 (the poisoned receipt not applied) and 60 reserved", c)
				}
			})
		}
	})
}

// TestDecisionPanicFailsOnlyItsCommand: a document that no longer decodes
// (written outside the engine) makes deciding one reservation panic. Before
// containment the panic crashed the process from the applier's goroutine;
// now that reservation gets an incident and its batch's others are applied.
func TestDecisionPanicFailsOnlyItsCommand(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		seed(t, newEngine(t, s, engine.Config{}), "a", 100)
		writeThroughSeam(t, s, &stockd.BatchWrites{Documents: []stockd.Document{{
			DocKey: stockd.DocKey{Kind: stockd.DocPool, ID: "broken"}, Version: 1,
			Body: []byte(`{"kind":5}`), CreatedAt: time.Now(), UpdatedAt: time.Now(),
		}}})
		gated := &gatedStore{Store: s, gate: make(chan struct{})}
		reg := prometheus.NewRegistry()
		e := newEngine(t, gated, engine.Config{Metrics: engine.NewMetrics(reg)})
		cmds := make([]stockd.Command, 20)
		for i := range cmds {
			cmds[i] = reserveCmd(fmt.Sprintf("r-%d", i), "a", 1)
		}
		cmds[11].Op.(*stockd.Reserve).Lines[0].Pool = "broken"
		errs := submitTogether(t, e, gated, cmds)
		for i, err := range errs {
			var incident *stockd.Incident
			switch {
			case i == 11 && !errors.As(err, &incident):
				t.Errorf("reservation on the broken pool: %v, want an incident", err)
			case i != 11 && err != nil:
				t.Errorf("command %d failed beside the panicking one: %v", i, err)
			}
		}
		if c := counters(t, s, "a"); c.Reserved != 19 {
			t.Errorf("reserved %d, want 19", c.Reserved)
		}
		if got := retriesByCause(t, reg); got[engine.RetryCausePanic] != 1 || got[engine.RetryCauseSplit] != 0 {
			t.Errorf("retries by cause %v, want one panic (the batch applied again without it) and no split", got)
		}
		// The engine goes on.
		if res := mustSubmit(t, e, reserveCmd("after", "a", 1)); res.Err != nil {
			t.Errorf("after the panic: %v", res.Err)
		}
	})
}

// TestBrokenBooksHaltTheEngine: a pending reservation whose line the
// position's counters do not hold (written outside the engine: the books
// disagree with themselves) makes its release break an invariant. The
// engine stops through its deliberate path: the caller and every later one
// get ErrHalted, OnHalt is told, health says halted, and nothing is written.
func TestBrokenBooksHaltTheEngine(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		seed(t, newEngine(t, s, engine.Config{}), "a", 10)
		now := time.Now().UTC().Truncate(time.Microsecond)
		writeThroughSeam(t, s, &stockd.BatchWrites{ReservationsNew: []stockd.Reservation{{
			ID: "planted", Key: "planted", Status: stockd.StatusPending, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now,
			Lines: []stockd.ReservationLine{{SKU: "a", Quantity: 5, Location: stockd.LocationDefault, Pool: stockd.PoolDefault}},
		}}})
		halted := make(chan error, 1)
		e := newEngine(t, s, engine.Config{OnHalt: func(err error) { halted <- err }, Logger: discardLogger()})
		_, err := e.Submit(ctx, stockd.Command{IdempotencyKey: "release", RequestHash: "release",
			Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: "planted"}})
		if !errors.Is(err, stockd.ErrHalted) {
			t.Fatalf("release of the planted reservation: %v, want ErrHalted", err)
		}
		select {
		case err := <-halted:
			var bi stockd.BrokenInvariant
			if !errors.Is(err, stockd.ErrHalted) || !errors.As(err, &bi) {
				t.Errorf("OnHalt got %v, want ErrHalted and the broken invariant", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("OnHalt was not called")
		}
		if _, err := e.Submit(ctx, reserveCmd("later", "a", 1)); !errors.Is(err, stockd.ErrHalted) {
			t.Errorf("a later command: %v, want ErrHalted", err)
		}
		if h := e.WriteHealth(time.Now()); h.OK || h.Reason != stockd.CodeHalted {
			t.Errorf("health %+v, want halted", h)
		}
		if c := counters(t, s, "a"); c != (stockd.Counters{OnHand: 10}) {
			t.Errorf("counters %+v after the halt, want them untouched", c)
		}
	})
}

func writeThroughSeam(t *testing.T, s store.Store, w *stockd.BatchWrites) {
	t.Helper()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}()
	if err := tx.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func counters(t *testing.T, s store.Store, sku string) stockd.Counters {
	t.Helper()
	positions, err := s.PositionListBySKU(ctx, sku)
	if err != nil || len(positions) != 1 {
		t.Fatalf("positions of %s: %v %v", sku, positions, err)
	}
	return positions[0].Counters
}

// discardLogger keeps the stacks a test provokes out of its output.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

package engine_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// clockAt returns a clock frozen at t.
func clockAt(t time.Time) func() time.Time { return func() time.Time { return t } }

// TestConfirmRacingExpiry lets a confirm (its engine's clock before the
// deadline) race the expiry worker (its clock after) on separate engines,
// so separate transactions: exactly one of them may win.
func TestConfirmRacingExpiry(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		start := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
		payer := newEngine(t, s, engine.Config{Now: clockAt(start.Add(59 * time.Second))})
		worker := newEngine(t, s, engine.Config{Now: clockAt(start.Add(61 * time.Second))})
		reserver := newEngine(t, s, engine.Config{Now: clockAt(start)})
		seed(t, reserver, "a", raceRounds)
		confirmedWins, expiryWins := 0, 0
		for round := range raceRounds {
			key := fmt.Sprintf("order-%d", round)
			res, err := reserver.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
				Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 1}}, TTL: time.Minute}})
			if err != nil || res.Err != nil {
				t.Fatalf("reserve: %v %v", err, res.Err)
			}
			id := res.Reservation.ID
			var confirm, expire stockd.Result
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				confirm, _ = payer.Submit(ctx, stockd.Command{IdempotencyKey: key + "-pay", RequestHash: "p",
					Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: id}})
			}()
			go func() {
				defer wg.Done()
				expire, _ = worker.Submit(ctx, stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: id}})
			}()
			wg.Wait()
			final, err := s.ReservationGet(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case confirm.Err == nil && final.Status == stockd.StatusConfirmed && expire.Reservation.Status == stockd.StatusConfirmed:
				confirmedWins++
			case confirm.Err != nil && confirm.Err.Code == stockd.CodeReservationExpired && final.Status == stockd.StatusExpired:
				expiryWins++
			default:
				t.Fatalf("round %d: confirm %+v, expire %+v, final %s: not exactly one winner", round, confirm.Err, expire.Err, final.Status)
			}
		}
		h := flowtest.Harness{T: t, Store: s}
		if c := h.Counters("a", "default"); c.Committed != int64(confirmedWins) || c.Reserved != 0 {
			t.Fatalf("counters %+v, want %d committed", c, confirmedWins)
		}
		h.Verify()
		t.Logf("confirm won %d, expiry won %d", confirmedWins, expiryWins)
	})
}

// TestRepeatedTransitions fires the same and conflicting transitions at
// once, each in its own transaction: stock moves exactly once.
func TestRepeatedTransitions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		e := newEngine(t, s, engine.Config{BatchSizeMax: 1, Appliers: 4})
		seed(t, e, "a", 100)
		reserve := func(key string) string {
			res, err := e.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
				Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2}}}})
			if err != nil || res.Err != nil {
				t.Fatalf("reserve: %v %v", err, res.Err)
			}
			return res.Reservation.ID
		}
		fire := func(id string, kinds ...stockd.CommandKind) (ok, invalid int) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i, k := range kinds {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := fmt.Sprintf("%s-%s-%d", id, k, i)
					r, err := e.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
						Op: &stockd.Transition{Action: k, ReservationID: id}})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						t.Errorf("%s: %v", k, err)
					case r.Err == nil:
						ok++
					case r.Err.Code == stockd.CodeInvalidTransition:
						invalid++
					default:
						t.Errorf("%s: %v", k, r.Err)
					}
				}()
			}
			wg.Wait()
			return ok, invalid
		}
		released := reserve("release-thrice")
		if ok, _ := fire(released, stockd.KindRelease, stockd.KindRelease, stockd.KindRelease); ok != 3 {
			t.Fatalf("release ×3: %d answered 200, want 3", ok)
		}
		confirmed := reserve("confirm-thrice")
		if ok, _ := fire(confirmed, stockd.KindConfirm, stockd.KindConfirm, stockd.KindConfirm); ok != 3 {
			t.Fatalf("confirm ×3: %d answered 200, want 3", ok)
		}
		contested := reserve("confirm-vs-release")
		if ok, invalid := fire(contested, stockd.KindConfirm, stockd.KindRelease); ok != 1 || invalid != 1 {
			t.Fatalf("confirm vs release: %d won, %d refused; want exactly one of each", ok, invalid)
		}
		final, err := s.ReservationGet(ctx, contested)
		if err != nil {
			t.Fatal(err)
		}
		wantConfirms, wantReleases, wantCommitted := 1, 1, int64(2)
		if final.Status == stockd.StatusConfirmed {
			wantConfirms, wantCommitted = 2, 4
			if _, invalid := fire(contested, stockd.KindRelease); invalid != 1 {
				t.Fatal("release after confirm was not refused")
			}
		} else {
			wantReleases = 2
			if _, invalid := fire(contested, stockd.KindConfirm); invalid != 1 {
				t.Fatal("confirm after release was not refused")
			}
		}
		h := flowtest.Harness{T: t, Store: s}
		if c := h.Counters("a", "default"); c.Reserved != 0 || c.Committed != wantCommitted {
			t.Fatalf("counters %+v, want %d committed", c, wantCommitted)
		}
		entries, err := s.LedgerList(ctx, store.LedgerListParams{Limit: stockd.PageSizeMax})
		if err != nil {
			t.Fatal(err)
		}
		confirms, releases := 0, 0
		for _, en := range entries {
			switch en.BusinessType {
			case stockd.BusinessConfirm:
				confirms++
			case stockd.BusinessRelease:
				releases++
			}
		}
		if confirms != wantConfirms || releases != wantReleases {
			t.Fatalf("ledger has %d confirms and %d releases, want %d and %d", confirms, releases, wantConfirms, wantReleases)
		}
		h.Verify()
	})
}

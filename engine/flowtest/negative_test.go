package flowtest

// Negative controls for the issue-4 races (see ../shared/STYLE.md: a test
// that guards against a race shows that it can fail). Each test runs the
// race twice: once against a deliberately naive check-then-act
// implementation, asserting that the race's check catches it, and once
// through the engine, asserting that it never happens. A barrier between
// every contender's check and its act makes the bad interleaving certain,
// not lucky: every check reads the state before any act writes.

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

const (
	negativeWorkers = 10
	negativeAllowed = 3
	// negativeRounds repeats the engine's side of a race: the interleaving
	// differs from round to round.
	negativeRounds = 3
)

// contend runs check(i) for every worker, waits until all have checked,
// then runs act(i) for those whose check passed, all at once.
func contend(t *testing.T, workers int, check func(i int) (bool, error), act func(i int) error) {
	t.Helper()
	var checked, done sync.WaitGroup
	checked.Add(workers)
	errs := make([]error, workers)
	for i := range workers {
		done.Add(1)
		go func() {
			defer done.Done()
			ok, err := check(i)
			checked.Done()
			checked.Wait() // the barrier between check and act
			if err != nil || !ok {
				errs[i] = err
				return
			}
			errs[i] = act(i)
		}()
	}
	done.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", i, err)
		}
	}
}

// usageOf sums what customer's usage document counts against limit.
func usageOf(t testing.TB, h *Harness, customer, limit string) int64 {
	t.Helper()
	d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocUsage, ID: customer})
	if err != nil {
		t.Fatalf("usage of %s: %v", customer, err)
	}
	var u stockd.Usage
	if err := json.Unmarshal(d.Body, &u); err != nil {
		t.Fatal(err)
	}
	var used int64
	for _, e := range u.Entries {
		if e.Limit == limit && h.Clock.Now().Before(e.Until) {
			used += e.Quantity
		}
	}
	return used
}

// naiveLimitReserve is the purchase limit done as check-then-act: read the
// customer's usage, unlocked; if one more fits, reserve through the engine
// without the customer (the stock side stays right) and then record the
// usage in a transaction of its own. Each step is correct alone; the check
// is stale by the time the act lands.
func naiveLimitReserve(t *testing.T, h *Harness, sku, customer string) (check func(int) (bool, error), act func(int) error) {
	limit := stockd.LimitID(stockd.LimitScopeSKU, sku)
	check = func(int) (bool, error) {
		d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocLimit, ID: limit})
		if err != nil {
			return false, err
		}
		var lim stockd.PurchaseLimit
		if err := json.Unmarshal(d.Body, &lim); err != nil {
			return false, err
		}
		return usageOf(t, h, customer, limit)+1 <= lim.MaxQuantityPerCustomer, nil
	}
	act = func(i int) error {
		key := fmt.Sprintf("naive-%s-%d", sku, i)
		res, err := h.submit(key, "", stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line(sku, 1)}}})
		if err != nil || res.Err != nil {
			return fmt.Errorf("naive reserve: %v %v", err, res.Err)
		}
		now := h.Clock.Now()
		return h.naiveDocUpdate(stockd.DocKey{Kind: stockd.DocUsage, ID: customer}, func(body []byte) ([]byte, error) {
			var u stockd.Usage
			if err := json.Unmarshal(body, &u); err != nil {
				return nil, err
			}
			u.Entries = append(u.Entries, stockd.UsageEntry{Limit: limit, ReservationID: res.Reservation.ID, Quantity: 1, At: now, Until: now.Add(time.Hour)})
			return json.Marshal(u)
		}, nil)
	}
	return check, act
}

// naiveDocUpdate rewrites an existing document under its lock, with the
// extra writes of the same transaction: a correct write, whatever was
// decided before it.
func (h *Harness) naiveDocUpdate(k stockd.DocKey, update func([]byte) ([]byte, error), extra func(tx store.Tx) (*stockd.BatchWrites, error)) error {
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	docs, err := tx.DocumentsLock(ctx, []stockd.DocKey{k})
	if err != nil || len(docs) != 1 {
		return fmt.Errorf("lock %s/%s: %d documents, %v", k.Kind, k.ID, len(docs), err)
	}
	body, err := update(docs[0].Body)
	if err != nil {
		return err
	}
	w := &stockd.BatchWrites{}
	if extra != nil {
		if w, err = extra(tx); err != nil {
			return err
		}
	}
	d := docs[0]
	d.Version, d.Body, d.UpdatedAt = d.Version+1, body, h.Clock.Now()
	w.Documents = []stockd.Document{d}
	if err := tx.Write(ctx, w); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// TestNegativeLimitRace: parallel reservations by one customer at the
// limit. The check-then-act implementation lets every one through; the
// engine passes exactly what the limit allows.
func TestNegativeLimitRace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := NewHarness(t, b.New(t))
		customerOrder := customer("greedy")
		for _, sku := range []string{"naive", "engine"} {
			h.SKU(sku)
			h.Receive(sku, "default", 100)
			h.MustDo(setLimit(stockd.LimitScopeSKU, sku, negativeAllowed, 3600))
		}
		// One order of the customer's own, through the engine, creates the
		// usage document both sides then read.
		if res := h.reserveWith(customerOrder, line("naive", 1)); res.Err != nil {
			t.Fatal(res.Err)
		}

		check, act := naiveLimitReserve(t, h, "naive", "greedy")
		contend(t, negativeWorkers, check, act)
		naiveLimit := stockd.LimitID(stockd.LimitScopeSKU, "naive")
		if used := usageOf(t, h, "greedy", naiveLimit); used <= negativeAllowed {
			t.Fatalf("naive: the customer holds %d of a limit of %d; the check-then-act implementation should have passed it", used, negativeAllowed)
		}
		if reserved := h.Counters("naive", "default").Reserved; reserved <= negativeAllowed {
			t.Fatalf("naive: %d reserved; the check-then-act implementation should have passed the limit of %d", reserved, negativeAllowed)
		}
		t.Logf("caught, as it should: the naive implementation let the customer hold %d of a limit of %d", usageOf(t, h, "greedy", naiveLimit), negativeAllowed)

		engineLimit := stockd.LimitID(stockd.LimitScopeSKU, "engine")
		var passed int
		for range negativeRounds {
			results := h.race(negativeWorkers, func(int) *stockd.Reserve {
				return &stockd.Reserve{CustomerID: "greedy", Lines: []stockd.LineRequest{line("engine", 1)}}
			})
			passed += countPassed(t, results, stockd.CodePurchaseLimitExceeded)
		}
		if used := usageOf(t, h, "greedy", engineLimit); passed != negativeAllowed || used != negativeAllowed || h.Counters("engine", "default").Reserved != negativeAllowed {
			t.Fatalf("engine: %d passed, %d used, %d reserved; want exactly %d", passed, used, h.Counters("engine", "default").Reserved, negativeAllowed)
		}
		h.Verify()
	})
}

// naiveApprove is approval done as check-then-act: read the approval,
// unlocked; if it is pending and the approver is not the requester, apply
// its adjustment and mark it approved in a transaction of its own, keyed
// like any adjustment by the request's key.
func naiveApprove(t *testing.T, h *Harness, id string) (check func(int) (bool, error), act func(int) error) {
	read := func(body []byte) (stockd.Approval, error) {
		var ap stockd.Approval
		return ap, json.Unmarshal(body, &ap)
	}
	approver := func(i int) string { return fmt.Sprintf("boss-%d", i) }
	check = func(i int) (bool, error) {
		d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocApproval, ID: id})
		if err != nil {
			return false, err
		}
		ap, err := read(d.Body)
		return err == nil && ap.Status == stockd.ApprovalPending && ap.RequestedBy != approver(i), err
	}
	act = func(i int) error {
		var ap stockd.Approval
		return h.naiveDocUpdate(stockd.DocKey{Kind: stockd.DocApproval, ID: id}, func(body []byte) ([]byte, error) {
			var err error
			if ap, err = read(body); err != nil {
				return nil, err
			}
			now := h.Clock.Now()
			ap.Status, ap.DecidedBy, ap.DecidedAt = stockd.ApprovalApproved, approver(i), &now
			return json.Marshal(ap)
		}, func(tx store.Tx) (*stockd.BatchWrites, error) {
			a := ap.Adjustment
			ps, err := tx.PositionsLock(ctx, []string{a.SKU})
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if p.Location != a.Location || p.Pool != a.Pool {
					continue
				}
				delta := stockd.Counters{OnHand: *a.Delta}
				after := p.Counters.Add(delta)
				return &stockd.BatchWrites{
					Positions: []stockd.Position{{PositionKey: p.PositionKey, Counters: after}},
					Ledger: []stockd.LedgerEntry{{BusinessType: stockd.BusinessAdjustment, BusinessID: fmt.Sprintf("naive-approve-%d", i),
						Position: p.PositionKey, Delta: delta, After: after, Actor: ap.RequestedBy, Approver: approver(i),
						Reason: a.Reason, CreatedAt: h.Clock.Now()}},
				}, nil
			}
			return nil, fmt.Errorf("no position %s@%s/%s", a.SKU, a.Location, a.Pool)
		})
	}
	return check, act
}

// TestNegativeApprovalRace: two approvals of one pending adjustment at
// once. The check-then-act implementation applies it twice; the engine,
// on two replicas racing in the database, applies it once.
func TestNegativeApprovalRace(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := NewHarness(t, b.New(t))
		h.SKU("naive")
		h.Receive("naive", "default", 10)
		ap := h.requestApproval("clerk", "naive", 500)
		check, act := naiveApprove(t, h, ap.ID)
		contend(t, 2, check, act)
		if c := h.Counters("naive", "default"); c.OnHand != 1010 {
			t.Fatalf("naive: on_hand %d; the check-then-act implementation should have applied 500 twice (1010)", c.OnHand)
		}
		t.Logf("caught, as it should: the naive implementation applied one approval twice")

		for round := range negativeRounds {
			sku := fmt.Sprintf("engine-%d", round)
			h.SKU(sku)
			h.Receive(sku, "default", 10)
			ap := h.requestApproval("clerk", sku, 500)
			engines := h.replicas(2)
			results := make([]stockd.Result, 2)
			check := func(int) (bool, error) { return true, nil }
			contend(t, 2, check, func(i int) error {
				cmd := decision(ap.ID, false)
				key := fmt.Sprintf("approve-%d-%d", round, i)
				cmd.IdempotencyKey, cmd.RequestHash, cmd.Actor = key, key, fmt.Sprintf("boss-%d", i)
				var err error
				results[i], err = engines[i].Submit(ctx, cmd)
				if err == nil && results[i].Err != nil {
					err = results[i].Err
				}
				return err
			})
			for i, res := range results {
				if got := object[stockd.Approval](t, res); got.Status != stockd.ApprovalApproved {
					t.Fatalf("round %d: approval %d answered %+v", round, i, got)
				}
			}
			var entries int
			for _, e := range h.ledgerOf(sku, stockd.BusinessAdjustment) {
				if e.BusinessID == ap.ID {
					entries++
				}
			}
			if c := h.Counters(sku, "default"); c.OnHand != 510 || entries != 1 {
				t.Fatalf("round %d: on_hand %d with %d entries; want 510, applied once", round, c.OnHand, entries)
			}
		}
		h.Verify()
	})
}

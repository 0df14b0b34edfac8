package gate

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// ReturnerLease names the returner's lease and cursor (the relay's table):
// one process at a time gives units back to the gate.
const ReturnerLease = "gate-return"

const (
	// returnBatchMax bounds the ledger entries one read of the returner
	// takes.
	returnBatchMax = 500
	// returnPoll is the returner's pause once it has read the whole ledger.
	returnPoll = 200 * time.Millisecond
	// returnStandby is how often a process that does not lead asks for the
	// lease, and how often an idle leader checks it still holds it.
	returnStandby = time.Second
	// returnRetryMax caps the returner's backoff after a failure.
	returnRetryMax = 5 * time.Second
	// returnStoreTimeout bounds each of the returner's database calls.
	returnStoreTimeout = 5 * time.Second
	// returnLagInterval is how often the leader measures its lag.
	returnLagInterval = time.Second
)

// ReturnerStatus is what the returner reports of itself.
type ReturnerStatus struct {
	Leading bool `json:"leading"`
	// Cursor is the ledger seq up to which entries were examined.
	Cursor int64 `json:"cursor"`
	// LagEntries is the ledger's last seq minus the cursor.
	LagEntries int64 `json:"lag_entries"`
	// LagSeconds is the age of the oldest entry not examined.
	LagSeconds float64 `json:"lag_seconds"`
	LastError  string  `json:"last_error,omitempty"`
}

// ReturnerStatus returns the returner's state in this process.
func (g *Gate) ReturnerStatus() ReturnerStatus {
	g.returnerMu.Lock()
	defer g.returnerMu.Unlock()
	return g.returner
}

func (g *Gate) setReturner(f func(*ReturnerStatus)) {
	g.returnerMu.Lock()
	defer g.returnerMu.Unlock()
	f(&g.returner)
}

// stepError is a failure of one step of the return, counted under it.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// Returner gives the units of releases, expiries and refunds of gated
// pools back to the gate's Redis until ctx ends: the database has them first (the
// release is the engine's), then the returner, holding the gate-return
// lease, tails the ledger from its cursor and adds each entry's units to
// its position once (returnScript's mark). A failure is counted by step
// (database: the ledger or the cursor; redis: the add) and retried with a
// backoff from where the cursor stands.
func (g *Gate) Returner(ctx context.Context) {
	backoff := returnStandby
	for ctx.Err() == nil {
		led, err := g.returnLeadOnce(ctx)
		if err != nil && ctx.Err() == nil {
			step := stepDatabase
			var se *stepError
			if errors.As(err, &se) {
				step = se.step
			}
			g.metrics.returnFailures.WithLabelValues(step).Inc()
			g.setReturner(func(s *ReturnerStatus) { s.LastError = err.Error() })
			g.log.Warn("gate: returner", "step", step, "err", err, "retry_in", backoff)
			if sleep(ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, returnRetryMax)
			continue
		}
		backoff = returnStandby
		if !led && sleep(ctx, returnStandby) != nil {
			return
		}
	}
}

// returnLeadOnce takes the lease if it is free and returns units until
// something fails or ctx ends; led says whether it held the lease.
func (g *Gate) returnLeadOnce(ctx context.Context) (led bool, err error) {
	try, cancel := context.WithTimeout(ctx, returnStoreTimeout)
	lease, err := g.cfg.Store.RelayLeaseTry(try, ReturnerLease)
	cancel()
	if errors.Is(err, store.ErrLeaseHeld) {
		return false, nil
	}
	if err != nil {
		return false, &stepError{stepDatabase, fmt.Errorf("take lease: %w", err)}
	}
	defer func() {
		release, cancel := context.WithTimeout(context.Background(), returnStoreTimeout)
		defer cancel()
		if err := lease.Release(release); err != nil {
			g.log.Warn("gate: returner: release lease", "err", err)
		}
		g.metrics.leader.Set(0)
		g.setReturner(func(s *ReturnerStatus) { s.Leading, s.LagEntries, s.LagSeconds = false, 0, 0 })
	}()
	g.metrics.leader.Set(1)
	g.setReturner(func(s *ReturnerStatus) { s.Leading = true })
	cursor, err := withTimeout(ctx, lease.Cursor)
	if err != nil {
		return true, &stepError{stepDatabase, fmt.Errorf("read cursor: %w", err)}
	}
	checked, measured := time.Now(), time.Time{}
	for ctx.Err() == nil {
		if time.Since(measured) >= returnLagInterval {
			g.measureReturnLag(ctx, cursor)
			measured = time.Now()
		}
		next, n, err := g.returnPage(ctx, lease, cursor)
		if next > cursor {
			cursor, checked = next, time.Now()
			g.setReturner(func(s *ReturnerStatus) { s.Cursor, s.LastError = cursor, "" })
		}
		if err != nil {
			return true, err
		}
		if n > 0 {
			continue
		}
		if time.Since(checked) >= returnStandby {
			if err := withTimeoutErr(ctx, lease.Check); err != nil {
				return true, &stepError{stepDatabase, fmt.Errorf("lease: %w", err)}
			}
			checked = time.Now()
		}
		if sleep(ctx, returnPoll) != nil {
			break
		}
	}
	return true, nil
}

// ReturnPass takes the lease and returns the units of every ledger entry
// after the cursor, then gives the lease up: what the Returner does, once,
// for tests and drills. It answers store.ErrLeaseHeld (wrapped) while
// another process leads.
func (g *Gate) ReturnPass(ctx context.Context) error {
	lease, err := g.cfg.Store.RelayLeaseTry(ctx, ReturnerLease)
	if err != nil {
		return err
	}
	defer func() { _ = lease.Release(context.WithoutCancel(ctx)) }()
	cursor, err := lease.Cursor(ctx)
	if err != nil {
		return err
	}
	for {
		next, n, err := g.returnPage(ctx, lease, cursor)
		if err != nil || n == 0 {
			return err
		}
		cursor = next
	}
}

// returnPage returns the units of one page of entries after cursor and
// moves the cursor past those done, through the lease (a process that
// lost it cannot move it). It answers the new cursor and how many entries
// the page held; on a failure the cursor stops before the entry that
// failed, which the next page reads first.
func (g *Gate) returnPage(ctx context.Context, lease store.RelayLease, cursor int64) (int64, int, error) {
	entries, err := withTimeout(ctx, func(ctx context.Context) ([]stockd.LedgerEntry, error) {
		return g.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: cursor, Limit: returnBatchMax})
	})
	if err != nil {
		return cursor, 0, &stepError{stepDatabase, fmt.Errorf("read ledger after %d: %w", cursor, err)}
	}
	done := cursor
	var failed error
	for _, e := range entries {
		if failed = g.returnEntry(ctx, e); failed != nil {
			break
		}
		done = e.Seq
	}
	if done > cursor {
		if err := withTimeoutErr(ctx, func(ctx context.Context) error { return lease.CursorAdvance(ctx, done, g.cfg.Now()) }); err != nil {
			return cursor, len(entries), &stepError{stepDatabase, fmt.Errorf("advance cursor to %d: %w", done, err)}
		}
	}
	return done, len(entries), failed
}

// returnedTypes are the ledger entries whose units go back to the gate:
// those that make a win's units available again in its pool. A release or
// an expiry frees a pending win; a refund, a confirmed one's units before
// shipment (returns.go), which would otherwise wait for the next settle.
var returnedTypes = map[string]bool{
	stockd.BusinessRelease: true,
	stockd.BusinessExpire:  true,
	stockd.BusinessRefund:  true,
}

// returnEntry adds the units e returned to its gated position, once.
// Entries of other types (returnedTypes), of pools without the gate, of
// closed campaigns (shut: no win after the close) and positions the gate
// holds no key for (the refill that creates it reads the database) give
// nothing back.
func (g *Gate) returnEntry(ctx context.Context, e stockd.LedgerEntry) error {
	if !returnedTypes[e.BusinessType] {
		return nil
	}
	pool := e.Position.Pool
	q := e.Delta.Available()
	if pool == "" || pool == stockd.PoolDefault || q <= 0 {
		return nil
	}
	p, gated, err := g.Pool(ctx, pool)
	if err != nil {
		return &stepError{stepDatabase, fmt.Errorf("read pool %s: %w", pool, err)}
	}
	if !gated || p.ClosedAt != nil {
		return nil
	}
	f := field(e.Position.SKU, e.Position.Location)
	added, err := returnScript.Run(ctx, g.rdb, []string{g.stockKey(pool, f), g.markKey(pool, f)}, e.Seq, q, g.markCheckArg()).Int64()
	if err != nil {
		return &stepError{stepRedis, fmt.Errorf("return %d of %s to pool %s (seq %d): %w", q, f, pool, e.Seq, err)}
	}
	switch added {
	case 1:
		g.metrics.returned.Add(float64(q))
	case -2:
		g.log.Warn("gate: a position without a mark keeps its count: preheat the campaign to take the returned units in",
			"pool", pool, "position", f, "seq", e.Seq, "quantity", q)
	}
	return nil
}

// measureReturnLag records how far the returner is behind the ledger.
func (g *Gate) measureReturnLag(ctx context.Context, cursor int64) {
	last, err := withTimeout(ctx, g.cfg.Store.LedgerSeqMax)
	if err != nil {
		g.log.Warn("gate: returner: measure lag", "err", err)
		return
	}
	var age float64
	if last > cursor {
		next, err := withTimeout(ctx, func(ctx context.Context) ([]stockd.LedgerEntry, error) {
			return g.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: cursor, Limit: 1})
		})
		if err == nil && len(next) == 1 {
			age = max(0, time.Since(next[0].CreatedAt).Seconds())
		}
	}
	g.setReturner(func(s *ReturnerStatus) { s.LagEntries, s.LagSeconds = max(0, last-cursor), age })
}

func withTimeout[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, returnStoreTimeout)
	defer cancel()
	return fn(ctx)
}

func withTimeoutErr(ctx context.Context, fn func(context.Context) error) error {
	_, err := withTimeout(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
	return err
}

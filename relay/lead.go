package relay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// publisher is the relay's NATS side.
type publisher struct {
	relay *Relay
	nc    *nats.Conn
	js    jetstream.JetStream
}

// leadOnce takes the lease if it is free and publishes until something
// fails or ctx ends; led says whether it held the lease at all.
func (p *publisher) leadOnce(ctx context.Context) (led bool, err error) {
	r := p.relay
	tryCtx, cancel := context.WithTimeout(ctx, storeTimeout)
	lease, err := r.cfg.Store.RelayLeaseTry(tryCtx, r.cfg.Name)
	cancel()
	if errors.Is(err, store.ErrLeaseHeld) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("relay: take lease: %w", err)
	}
	defer func() {
		releaseCtx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		if err := lease.Release(releaseCtx); err != nil {
			r.log.Warn("relay: release lease", "err", err)
		}
		r.metrics.leader.Set(0)
	}()
	r.metrics.leader.Set(1)
	return true, p.lead(ctx, lease)
}

// lead publishes from the lease's cursor on.
func (p *publisher) lead(ctx context.Context, lease store.RelayLease) error {
	r := p.relay
	if err := p.ensureStream(ctx); err != nil {
		return err
	}
	cursor, err := callStore(ctx, lease.Cursor)
	if err != nil {
		return fmt.Errorf("relay: read cursor: %w", err)
	}
	r.setStatus(func(s *Status) { s.State, s.Error, s.Cursor = StateLeading, "", cursor })
	r.log.Info("relay leading", "cursor", cursor, "stream", r.cfg.Stream)
	checked, measured := r.cfg.Now(), time.Time{}
	for ctx.Err() == nil {
		if now := r.cfg.Now(); now.Sub(measured) >= lagInterval {
			measureCtx, cancel := context.WithTimeout(ctx, storeTimeout)
			r.measureLag(measureCtx, cursor)
			cancel()
			measured = now
		}
		entries, err := callStore(ctx, func(ctx context.Context) ([]stockd.LedgerEntry, error) {
			return r.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: cursor, Limit: r.cfg.WindowMax})
		})
		if err != nil {
			return fmt.Errorf("relay: read ledger after %d: %w", cursor, err)
		}
		if len(entries) == 0 {
			// Idle, a lost NATS would go unseen until the next event:
			// say so now, on /healthz, rather than claim to lead.
			if p.nc.Status() != nats.CONNECTED {
				return errors.New("relay: nats not connected")
			}
			if r.cfg.Now().Sub(checked) >= r.cfg.StandbyInterval {
				if err := callStoreErr(ctx, lease.Check); err != nil {
					return fmt.Errorf("relay: lease: %w", err)
				}
				checked = r.cfg.Now()
			}
			sleep(ctx, r.cfg.PollInterval)
			continue
		}
		acked, pubErr := p.publishWindow(ctx, entries)
		if acked > 0 {
			seq := entries[acked-1].Seq
			// Written through the lease: a relay that lost it cannot
			// move the cursor, and stops here.
			if err := callStoreErr(ctx, func(ctx context.Context) error { return lease.CursorAdvance(ctx, seq, r.cfg.Now()) }); err != nil {
				return fmt.Errorf("relay: advance cursor to %d: %w", seq, err)
			}
			cursor, checked = seq, r.cfg.Now()
			r.metrics.published.Add(float64(acked))
			r.setStatus(func(s *Status) { s.Cursor = cursor })
		}
		if pubErr != nil {
			return pubErr
		}
	}
	return nil
}

// publishWindow publishes entries without waiting between them, then
// waits for their acks, and returns how many of the first entries were
// acknowledged (stored, or dropped as duplicates of stored ones).
//
// Order: JetStream stores what one connection sends in the order sent.
// An event lost with a broken connection must not be followed by a later
// one sent on the next connection, so publishing stops at the first
// failure or reconnect (and nats.ReconnectBufSize(-1) makes publishes
// fail rather than queue while disconnected). What was acknowledged after
// the first event that was not is published again in the next window,
// with its id: JetStream drops it as a duplicate.
func (p *publisher) publishWindow(ctx context.Context, entries []stockd.LedgerEntry) (int, error) {
	r := p.relay
	reconnects := p.nc.Stats().Reconnects
	futures := make([]jetstream.PubAckFuture, 0, len(entries))
	var stopped error
	for _, e := range entries {
		if p.nc.Status() != nats.CONNECTED || p.nc.Stats().Reconnects != reconnects {
			stopped = errors.New("relay: nats connection lost during a window")
			break
		}
		m, err := r.message(e)
		if err != nil {
			stopped = err
			break
		}
		// No retries inside the client: a retried event would land behind
		// the later events of its window.
		f, err := p.js.PublishMsgAsync(m, jetstream.WithRetryAttempts(0), jetstream.WithExpectStream(r.cfg.Stream))
		if err != nil {
			stopped = fmt.Errorf("relay: publish event %d: %w", e.Seq, err)
			break
		}
		futures = append(futures, f)
	}
	timer := time.NewTimer(r.cfg.AckTimeout + time.Second)
	defer timer.Stop()
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Duplicate {
				r.metrics.duplicates.Inc()
			}
		case err := <-f.Err():
			return i, fmt.Errorf("relay: event %d not acknowledged: %w", entries[i].Seq, err)
		case <-timer.C:
			return i, fmt.Errorf("relay: event %d: no ack within %s", entries[i].Seq, r.cfg.AckTimeout)
		case <-ctx.Done():
			return i, ctx.Err()
		}
	}
	return len(futures), stopped
}

// ensureStream creates the stream, or checks that the one there captures
// the relay's subjects and drops duplicates. It never changes a stream
// someone else configured.
func (p *publisher) ensureStream(ctx context.Context) error {
	r := p.relay
	ctx, cancel := context.WithTimeout(ctx, r.cfg.AckTimeout)
	defer cancel()
	subjects := SubjectPrefix + "." + r.cfg.Environment + ".>"
	stream, err := p.js.Stream(ctx, r.cfg.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = p.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:        r.cfg.Stream,
			Description: "stockd ledger events (relay " + r.cfg.Name + ")",
			Subjects:    []string{subjects},
			Storage:     jetstream.FileStorage,
			Duplicates:  r.cfg.DuplicatesWindow,
		})
		if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return fmt.Errorf("relay: create stream %s: %w", r.cfg.Stream, err)
		}
		if err == nil {
			r.log.Info("relay created stream", "stream", r.cfg.Stream, "subjects", subjects)
			return nil
		}
		stream, err = p.js.Stream(ctx, r.cfg.Stream)
	}
	if err != nil {
		return fmt.Errorf("relay: stream %s: %w", r.cfg.Stream, err)
	}
	cfg := stream.CachedInfo().Config
	if !capturesAny(cfg.Subjects, subjects) {
		return fmt.Errorf("relay: stream %s captures %v, not %s: add the subject to it or choose another stream", r.cfg.Stream, cfg.Subjects, subjects)
	}
	if cfg.Duplicates <= 0 {
		return fmt.Errorf("relay: stream %s has no duplicates window: a takeover's repeats would be stored twice", r.cfg.Stream)
	}
	return nil
}

// capturesAny reports whether one of the filters matches every subject
// that want (a filter ending in >) matches.
func capturesAny(filters []string, want string) bool {
	for _, f := range filters {
		if covers(splitTokens(f), splitTokens(want)) {
			return true
		}
	}
	return false
}

func covers(filter, want []string) bool {
	for i, t := range filter {
		if t == ">" {
			return true
		}
		if i >= len(want) || want[i] == ">" {
			return false
		}
		if t != "*" && t != want[i] {
			return false
		}
	}
	return len(filter) == len(want)
}

func splitTokens(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// validStreamName follows JetStream's rule for stream names.
func validStreamName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c <= ' ', c == 0x7f, c == '.', c == '*', c == '>', c == '/', c == '\\':
			return false
		}
	}
	return true
}

// callStore runs one database call under storeTimeout.
func callStore[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	return fn(ctx)
}

func callStoreErr(ctx context.Context, fn func(context.Context) error) error {
	_, err := callStore(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
	return err
}

package bench

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/store"
)

const (
	// seedWorkersMax bounds the concurrent submissions that seed a dataset:
	// enough to fill the engine's batches.
	seedWorkersMax = 512
	// settlePassesMax bounds the expiry passes Settle runs.
	settlePassesMax = 1000
	// positionReadsMax is the dataset size up to which Check reads
	// positions SKU by SKU instead of scanning them all.
	positionReadsMax = 64
	actor            = "bench"
)

// engineTarget drives stockd's engine in-process: no HTTP, no JSON on the
// way in, the same batches and the same database as serve.
type engineTarget struct {
	store    store.Store
	engine   *engine.Engine
	expiry   *expiry.Worker
	registry *prometheus.Registry
	steps    *stepTimes
	names    []string // current dataset's SKU names, by index
	// requestTimeout is each call's deadline, as serve gives each request;
	// zero means none.
	requestTimeout time.Duration
}

func newEngineTarget(s store.Store, cfg engine.Config, requestTimeout time.Duration) *engineTarget {
	steps := &stepTimes{}
	cfg.Store = tracedStore{Store: s, times: steps}
	registry := prometheus.NewRegistry()
	cfg.Metrics = engine.NewMetrics(registry)
	e := engine.New(cfg)
	return &engineTarget{
		store:    s,
		engine:   e,
		registry: registry,
		steps:    steps,

		requestTimeout: requestTimeout,
		// Never started: Settle runs passes itself, so a row's expiries
		// happen when the bench asks, not in the middle of another row.
		expiry: expiry.New(expiry.Config{Store: s, Engine: e}),
	}
}

func (t *engineTarget) Name() string { return "stockd-engine" }

// batchStats reads the engine's batch histograms: batches applied so far,
// commands in them, and seconds spent applying them.
func (t *engineTarget) batchStats() (batchStats, error) {
	families, err := t.registry.Gather()
	if err != nil {
		return batchStats{}, err
	}
	s := batchStats{steps: t.steps.snapshot()}
	for _, f := range families {
		if len(f.GetMetric()) == 0 || f.GetMetric()[0].GetHistogram() == nil {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		switch f.GetName() {
		case "stockd_batch_commands":
			s.batches, s.commands = int64(h.GetSampleCount()), h.GetSampleSum()
		case "stockd_batch_duration_seconds":
			s.seconds = h.GetSampleSum()
		}
	}
	return s, nil
}

// Setup creates the SKUs and receives their stock through the engine, all
// submitted at once so that they coalesce into full batches.
func (t *engineTarget) Setup(ctx context.Context, d *Dataset) error {
	t.names = d.SKUs
	return parallel(ctx, len(d.SKUs), seedWorkersMax, func(i int) error {
		sku := d.SKUs[i]
		res, err := t.engine.Submit(ctx, stockd.Command{
			IdempotencyKey: sku + "-create", RequestHash: "create", Actor: actor,
			Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: sku, Name: "bench " + sku}},
		})
		if err := resultErr(res, err); err != nil {
			return fmt.Errorf("create sku %s: %w", sku, err)
		}
		res, err = t.engine.Submit(ctx, stockd.Command{
			IdempotencyKey: sku + "-receive", RequestHash: "receive", Actor: actor,
			Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: d.Stock, Reference: "bench seed"},
		})
		if err := resultErr(res, err); err != nil {
			return fmt.Errorf("receive %s: %w", sku, err)
		}
		return nil
	})
}

func resultErr(res stockd.Result, err error) error {
	if err != nil {
		return err
	}
	if res.Err != nil {
		return res.Err
	}
	return nil
}

func (t *engineTarget) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	lines := make([]stockd.LineRequest, len(req.Lines))
	for i, l := range req.Lines {
		lines[i] = stockd.LineRequest{SKU: t.names[l.SKU], Quantity: l.Quantity}
	}
	ctx, cancel := t.deadline(ctx)
	defer cancel()
	res, err := t.engine.Submit(ctx, stockd.Command{
		IdempotencyKey: req.Key, RequestHash: requestHash(t.names, req), Actor: actor,
		Op: &stockd.Reserve{Lines: lines, TTL: req.TTL},
	})
	return outcomeOf(res, err)
}

func (t *engineTarget) Confirm(ctx context.Context, id, key string) (Outcome, error) {
	return t.transition(ctx, stockd.KindConfirm, id, key)
}

func (t *engineTarget) Release(ctx context.Context, id, key string) (Outcome, error) {
	return t.transition(ctx, stockd.KindRelease, id, key)
}

// deadline gives a call the target's request timeout, if any.
func (t *engineTarget) deadline(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.requestTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, t.requestTimeout)
}

func (t *engineTarget) transition(ctx context.Context, kind stockd.CommandKind, id, key string) (Outcome, error) {
	ctx, cancel := t.deadline(ctx)
	defer cancel()
	res, err := t.engine.Submit(ctx, stockd.Command{
		IdempotencyKey: key, RequestHash: string(kind) + " " + id, Actor: actor,
		Op: &stockd.Transition{Action: kind, ReservationID: id},
	})
	return outcomeOf(res, err)
}

// outcomeOf maps an engine answer to an Outcome; errors that are no
// business answer are returned as err.
func outcomeOf(res stockd.Result, err error) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Replayed: res.Replayed}
	if res.Err != nil {
		switch res.Err.Code {
		case stockd.CodeInsufficientStock, stockd.CodeInvalidTransition:
			out.Status = Rejected
		case stockd.CodeReservationExpired:
			out.Status, out.Expired = Rejected, true
		case stockd.CodeOverloaded:
			out.Status = Overloaded
		default:
			return Outcome{}, res.Err
		}
		return out, nil
	}
	if res.Reservation != nil {
		out.ReservationID, out.ReservationStatus = res.Reservation.ID, string(res.Reservation.Status)
	}
	return out, nil
}

// requestHash fingerprints a reservation the way a server hashes a body:
// the same key with the same lines is a replay.
func requestHash(names []string, req *Request) string {
	h := fnv.New64a()
	for _, l := range req.Lines {
		h.Write([]byte(names[l.SKU]))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, l.Quantity, 10))
		h.Write([]byte{0})
	}
	h.Write(strconv.AppendInt(nil, int64(req.TTL), 10))
	return strconv.FormatUint(h.Sum64(), 16)
}

// Settle waits for the deadline, then runs expiry passes until none finds
// anything due.
func (t *engineTarget) Settle(ctx context.Context, deadline time.Time) error {
	if err := sleepUntil(ctx, deadline); err != nil {
		return err
	}
	for range settlePassesMax {
		n, err := t.expiry.RunOnce(ctx)
		if err != nil {
			return fmt.Errorf("expiry pass: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
	return fmt.Errorf("reservations still due after %d expiry passes", settlePassesMax)
}

func sleepUntil(ctx context.Context, deadline time.Time) error {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// Check reads the dataset's positions and compares them with want.
func (t *engineTarget) Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error) {
	got := make(map[string]stockd.Counters, len(d.SKUs))
	add := func(p stockd.Position) {
		got[p.SKU] = got[p.SKU].Add(p.Counters)
	}
	if len(d.SKUs) <= positionReadsMax {
		for _, sku := range d.SKUs {
			positions, err := t.store.PositionListBySKU(ctx, sku)
			if err != nil {
				return CheckResult{}, fmt.Errorf("read positions of %s: %w", sku, err)
			}
			for _, p := range positions {
				add(p)
			}
		}
	} else {
		err := t.store.AuditRead(ctx, func(r store.AuditReader) error {
			return r.PositionEach(ctx, func(p stockd.Position) error {
				if strings.HasPrefix(p.SKU, d.Prefix+"-") {
					add(p)
				}
				return nil
			})
		})
		if err != nil {
			return CheckResult{}, fmt.Errorf("read positions: %w", err)
		}
	}
	return compareBooks(d, want, func(i int) (stockd.Counters, bool) {
		c, ok := got[d.SKUs[i]]
		return c, ok
	}), nil
}

// compareBooks checks each SKU's counters against the stock and want.
func compareBooks(d *Dataset, want []Held, counters func(i int) (stockd.Counters, bool)) CheckResult {
	var r CheckResult
	for i, sku := range d.SKUs {
		c, ok := counters(i)
		if !ok {
			r.mismatch("%s: no position", sku)
			continue
		}
		r.Oversold += max(0, -c.Available())
		if c.OnHand != d.Stock || c.Reserved != want[i].Reserved || c.Committed != want[i].Committed {
			r.mismatch("%s: on_hand %d reserved %d committed %d, want %d, %d, %d",
				sku, c.OnHand, c.Reserved, c.Committed, d.Stock, want[i].Reserved, want[i].Committed)
		}
	}
	return r
}

func (r *CheckResult) mismatch(format string, args ...any) {
	if r.Mismatches == 0 {
		r.Detail = fmt.Sprintf(format, args...)
	}
	r.Mismatches++
}

// Cleanup keeps everything: stockd's books are history, not scratch.
func (t *engineTarget) Cleanup(context.Context, *Dataset) error { return nil }

func (t *engineTarget) Close() error {
	t.engine.Close()
	return t.store.Close()
}

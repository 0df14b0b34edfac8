package bench

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// tally is one worker's counts; merged into the row after the run.
type tally struct {
	requests   int64 // reserve requests answered (won, rejected or overloaded)
	won        int64
	rejected   int64
	overloaded int64
	errors     int64
	lines      int64 // lines of won reservations
	firstErr   error

	// Lifecycle only.
	confirms         int64
	releases         int64
	left             int64 // won and left to expire
	expiredEarly     int64 // confirm that lost to the deadline
	retries          int64
	replays          int64
	replayMismatches int64
	deadline         time.Time // latest deadline of a reservation left pending

	// unknown counts failed reservations whose outcome a retry under the
	// same key could not learn either (resolveUnanswered).
	unknown int64
	// lateWon counts failed reservations that a retry found applied.
	lateWon int64
}

func (t *tally) fail(err error) {
	t.errors++
	if t.firstErr == nil {
		t.firstErr = err
	}
}

func (t *tally) merge(o *tally) {
	t.requests += o.requests
	t.won += o.won
	t.rejected += o.rejected
	t.overloaded += o.overloaded
	t.errors += o.errors
	t.lines += o.lines
	if t.firstErr == nil {
		t.firstErr = o.firstErr
	}
	t.confirms += o.confirms
	t.releases += o.releases
	t.left += o.left
	t.expiredEarly += o.expiredEarly
	t.retries += o.retries
	t.replays += o.replays
	t.replayMismatches += o.replayMismatches
	if o.deadline.After(t.deadline) {
		t.deadline = o.deadline
	}
}

// heldCounter is the bench's own account of one SKU, from the answers.
type heldCounter struct {
	reserved  atomic.Int64
	committed atomic.Int64
}

// drive is one row's load: concurrency closed-loop workers against target.
type drive struct {
	target   Target
	w        workload
	d        *Dataset
	workers  int
	duration time.Duration
	// answered feeds the progress bar.
	answered *atomic.Int64

	held      []heldCounter
	failed    unanswered
	phase     int // runs so far
	stop      atomic.Bool
	contender atomic.Int64
	budget    atomic.Int64
}

type driveResult struct {
	tally    tally
	elapsed  time.Duration
	latency  latencySummary
	expected []Held
}

// run drives the load for dr.duration (or until every contender was
// answered). It may be called again: the bench's account of the books
// carries over, the counts and latencies start afresh.
func (dr *drive) run(ctx context.Context) driveResult {
	if dr.held == nil {
		dr.held = make([]heldCounter, len(dr.d.SKUs))
	}
	dr.phase++
	dr.stop.Store(false)
	dr.budget.Store(latencySamplesMax)
	tallies := make([]tally, dr.workers)
	recorders := make([]*recorder, dr.workers)
	var wg sync.WaitGroup
	start := time.Now()
	if dr.w.contenders == 0 {
		timer := time.AfterFunc(dr.duration, func() { dr.stop.Store(true) })
		defer timer.Stop()
	}
	for i := range dr.workers {
		recorders[i] = newRecorder(&dr.budget)
		wg.Add(1)
		go func() {
			defer wg.Done()
			dr.worker(ctx, i, &tallies[i], recorders[i])
		}()
	}
	wg.Wait()
	res := driveResult{elapsed: time.Since(start), latency: summarize(recorders)}
	for i := range tallies {
		res.tally.merge(&tallies[i])
	}
	res.expected = dr.account()
	return res
}

// account is the bench's account of the books so far, per SKU.
func (dr *drive) account() []Held {
	expected := make([]Held, len(dr.held))
	for i := range dr.held {
		expected[i] = Held{Reserved: dr.held[i].reserved.Load(), Committed: dr.held[i].committed.Load()}
	}
	return expected
}

// more reports whether the worker should send another reservation.
func (dr *drive) more(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if dr.w.contenders > 0 {
		return dr.contender.Add(1) <= int64(dr.w.contenders)
	}
	return !dr.stop.Load()
}

func (dr *drive) worker(ctx context.Context, id int, t *tally, rec *recorder) {
	r := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	pick := dr.w.newPicker(r)
	// Keys are unique per run of the drive, or a measured request would
	// replay a warm-up answer.
	keyPrefix := dr.d.Prefix + "-" + strconv.Itoa(dr.phase) + "w" + strconv.Itoa(id) + "-"
	var lines []Line
	for seq := 0; dr.more(ctx); seq++ {
		lines = pick(lines)
		req := Request{Key: keyPrefix + strconv.Itoa(seq), Lines: lines, TTL: dr.w.ttl}
		out, ok := dr.reserve(ctx, &req, t, rec)
		if ok && dr.w.lifecycle {
			dr.resolve(ctx, r, &req, out, t, rec)
		}
		if ok && dr.w.lifecycle && r.IntN(100) < retryPercent {
			// A client that lost the answer retries with the same key:
			// it must get the first answer back, with no new effect.
			again, err := dr.timed(ctx, rec, func() (Outcome, error) { return dr.target.Reserve(ctx, &req) })
			dr.checkReplay(t, out, again, err)
		}
	}
}

func (dr *drive) timed(ctx context.Context, rec *recorder, call func() (Outcome, error)) (Outcome, error) {
	start := time.Now()
	out, err := call()
	rec.record(time.Since(start))
	return out, err
}

// reserve sends one reservation and accounts for its answer; ok is true
// when the stock is held.
func (dr *drive) reserve(ctx context.Context, req *Request, t *tally, rec *recorder) (Outcome, bool) {
	out, err := dr.timed(ctx, rec, func() (Outcome, error) { return dr.target.Reserve(ctx, req) })
	if err != nil {
		t.fail(err)
		dr.failed.add(req)
		return out, false
	}
	dr.answered.Add(1)
	t.requests++
	switch out.Status {
	case Won:
		t.won++
		for _, l := range req.Lines {
			dr.held[l.SKU].reserved.Add(l.Quantity)
			t.lines++
		}
		return out, true
	case Rejected:
		t.rejected++
	case Overloaded:
		t.overloaded++
	}
	return out, false
}

// resolve confirms, releases or abandons a won lifecycle reservation.
func (dr *drive) resolve(ctx context.Context, r *rand.Rand, req *Request, won Outcome, t *tally, rec *recorder) {
	lt := dr.target.(lifecycleTarget)
	dice := r.IntN(100)
	if dice >= confirmPercent+releasePercent {
		t.left++
		// Expected after Settle: expired, holding nothing.
		dr.move(req.Lines, -1, 0)
		if d := time.Now().Add(req.TTL); d.After(t.deadline) {
			t.deadline = d
		}
		return
	}
	confirm := dice < confirmPercent
	key := req.Key + "-release"
	call := func() (Outcome, error) { return lt.Release(ctx, won.ReservationID, key) }
	if confirm {
		key = req.Key + "-confirm"
		call = func() (Outcome, error) { return lt.Confirm(ctx, won.ReservationID, key) }
	}
	out, err := dr.timed(ctx, rec, call)
	switch {
	case err != nil:
		t.fail(err)
		return
	case out.Expired:
		t.expiredEarly++
		dr.move(req.Lines, -1, 0)
	case out.Status != Won:
		t.fail(errUnexpected(key, out))
		return
	case confirm:
		t.confirms++
		dr.move(req.Lines, -1, 1)
	default:
		t.releases++
		dr.move(req.Lines, -1, 0)
	}
	if r.IntN(100) < retryPercent {
		again, err := dr.timed(ctx, rec, call)
		dr.checkReplay(t, out, again, err)
	}
}

// move shifts each line's quantity out of reserved (sign -1) and into
// committed (sign 1), in the bench's own account.
func (dr *drive) move(lines []Line, reserved, committed int64) {
	for _, l := range lines {
		dr.held[l.SKU].reserved.Add(reserved * l.Quantity)
		dr.held[l.SKU].committed.Add(committed * l.Quantity)
	}
}

// checkReplay counts a retry: it must replay the first answer.
func (dr *drive) checkReplay(t *tally, first, again Outcome, err error) {
	t.retries++
	if err != nil {
		t.fail(err)
		return
	}
	if again.Replayed && again.Status == first.Status && again.ReservationID == first.ReservationID &&
		again.ReservationStatus == first.ReservationStatus {
		t.replays++
		return
	}
	t.replayMismatches++
}

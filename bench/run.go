package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// implementation is one column of a row group: stockd or a baseline,
// or the reason it cannot run.
type implementation struct {
	name     string
	target   Target
	baseline bool
	skip     string
}

// Run runs every scenario at every concurrency against stockd and the
// baselines, one row at a time, and returns the report. A row whose
// implementation fails is reported as such and the run goes on; err is
// for a run that could not start, or ctx ending.
func Run(ctx context.Context, cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Report{}, err
	}
	runID, err := newRunID()
	if err != nil {
		return Report{}, err
	}
	env, err := openEnv(ctx, cfg)
	if err != nil {
		return Report{}, err
	}
	defer env.close()
	env.database.Analyzed = env.analyze != nil
	rep := Report{
		RunID: runID, Started: time.Now().UTC(), Target: cfg.Target, Database: env.database,
		Machine:         Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()},
		DurationSeconds: cfg.Duration.Seconds(), WarmupSeconds: max(cfg.Warmup, 0).Seconds(), Appliers: env.appliers, BatchSizeMax: cfg.BatchSizeMax,
		BaselineConns: cfg.BaselineConns, Baselines: cfg.Baselines,
	}
	prog := newProgress(cfg.Progress, len(cfg.Scenarios)*len(cfg.Concurrency)*len(env.implementations))
	defer prog.finish()
	for _, scenario := range cfg.Scenarios {
		w := newWorkload(cfg, scenario)
		for _, conc := range cfg.Concurrency {
			group := make([]Row, 0, len(env.implementations))
			for i, impl := range env.implementations {
				prefix := fmt.Sprintf("b%s-%s-c%d-%d", runID, scenario, conc, i)
				row := runRow(ctx, cfg, env, impl, w, conc, prefix, prog)
				group = append(group, row)
				if err := ctx.Err(); err != nil {
					rep.Rows = append(rep.Rows, group...)
					return rep, err
				}
			}
			addRatios(group)
			rep.Rows = append(rep.Rows, group...)
		}
	}
	return rep, nil
}

func runRow(ctx context.Context, cfg Config, env *env, impl implementation, w workload, conc int, prefix string, prog *progress) Row {
	row := Row{Scenario: w.name, Implementation: impl.name, Baseline: impl.baseline, Concurrency: conc}
	defer prog.rowDone()
	if impl.skip != "" {
		row.Skipped = "skipped: " + impl.skip
		return row
	}
	lt, isLifecycle := impl.target.(lifecycleTarget)
	if w.lifecycle && !isLifecycle {
		row.Skipped = "skipped: the baseline has no reservation lifecycle"
		return row
	}
	d := newDataset(prefix, w)
	prog.describe(fmt.Sprintf("%s c=%d %s: seeding %d SKUs", w.name, conc, impl.name, len(d.SKUs)), nil)
	if err := impl.target.Setup(ctx, d); err != nil {
		row.Skipped = fmt.Sprintf("failed: setup: %v", err)
		return row
	}
	var answered atomic.Int64
	dr := &drive{target: impl.target, w: w, d: d, workers: conc, answered: &answered}
	env.slowDown(true)
	defer env.slowDown(false) // on every way out; measured rows switch it off sooner
	var warm driveResult
	if cfg.Warmup > 0 && w.contenders == 0 {
		// Connections, prepared statements and caches warm up, and the
		// tables hold some rows before the planner's statistics are taken.
		prog.describe(fmt.Sprintf("%s c=%d %s: warming up", w.name, conc, impl.name), &answered)
		dr.duration = cfg.Warmup
		warm = dr.run(ctx)
	}
	if env.analyze != nil {
		if err := env.analyze(ctx); err != nil {
			row.Skipped = fmt.Sprintf("failed: analyze: %v", err)
			return row
		}
	}
	prog.describe(fmt.Sprintf("%s c=%d %s", w.name, conc, impl.name), &answered)
	dr.duration = cfg.Duration
	stats, hasStats := impl.target.(batchStatser)
	var before batchStats
	if hasStats {
		before, _ = stats.batchStats() // without stats the row only lacks its batch columns
	}
	res := dr.run(ctx)
	env.slowDown(false)
	if warm.tally.deadline.After(res.tally.deadline) {
		res.tally.deadline = warm.tally.deadline
	}
	var resolvedDeadline time.Time
	res.tally.lateWon, res.tally.unknown, resolvedDeadline = dr.resolveUnanswered(ctx)
	if resolvedDeadline.After(res.tally.deadline) {
		res.tally.deadline = resolvedDeadline
	}
	res.expected = dr.account()
	fill(&row, res)
	if hasStats {
		if after, err := stats.batchStats(); err == nil && after.batches > before.batches {
			n := float64(after.batches - before.batches)
			row.Batches = after.batches - before.batches
			row.BatchSizeMean = (after.commands - before.commands) / n
			row.BatchMsMean = (after.seconds - before.seconds) / n * 1000
			row.BatchStepsMs = map[string]float64{}
			for i, name := range batchSteps {
				row.BatchStepsMs[name] = float64(after.steps[i]-before.steps[i]) / n / 1e6
			}
		}
	}
	if w.lifecycle && (res.tally.left+warm.tally.left > 0 || !resolvedDeadline.IsZero()) {
		prog.describe(fmt.Sprintf("%s c=%d %s: waiting for expiry", w.name, conc, impl.name), nil)
		if err := lt.Settle(ctx, res.tally.deadline); err != nil {
			row.Skipped = fmt.Sprintf("failed: settle: %v", err)
			return row
		}
	}
	prog.describe(fmt.Sprintf("%s c=%d %s: checking", w.name, conc, impl.name), nil)
	check, err := impl.target.Check(ctx, d, res.expected)
	if err != nil {
		row.Skipped = fmt.Sprintf("failed: check: %v", err)
		return row
	}
	judge(&row, w, d, res, check)
	if pd, ok := impl.target.(interface{ persistDrain() time.Duration }); ok {
		row.PersistDrainSeconds = pd.persistDrain().Seconds()
	}
	if !impl.baseline {
		row.Verify = verifySkipped
		if v := env.verifier; v != nil && !cfg.SkipVerify {
			if row.Verify, row.VerifyClean, err = v.Verify(ctx); err != nil {
				row.Verify = fmt.Sprintf("error: %v", err)
			}
		}
	}
	if err := impl.target.Cleanup(ctx, d); err != nil && row.FirstError == "" {
		row.FirstError = fmt.Sprintf("cleanup: %v", err)
	}
	return row
}

// fill copies the drive's counts and latencies into the row.
func fill(row *Row, res driveResult) {
	t := res.tally
	secs := res.elapsed.Seconds()
	row.ElapsedSeconds = secs
	row.Requests, row.Successes, row.Rejections, row.Overloaded, row.Errors = t.requests, t.won, t.rejected, t.overloaded, t.errors
	row.Lines = t.lines
	if t.firstErr != nil {
		row.FirstError = t.firstErr.Error()
	}
	if secs > 0 {
		row.ReservationsPerSecond = float64(t.won+t.rejected) / secs
		row.LinesPerSecond = float64(t.lines) / secs
	}
	l := res.latency
	row.LatencySamples = l.Samples
	row.LatencyP50Ms, row.LatencyP95Ms, row.LatencyP99Ms, row.LatencyMaxMs =
		milliseconds(l.P50), milliseconds(l.P95), milliseconds(l.P99), milliseconds(l.Max)
}

// judge sets oversold and the check verdict: the books must hold exactly
// what the answers said, no SKU may give more than its stock, and a flash
// sale must have exactly as many winners as units (or contenders).
func judge(row *Row, w workload, d *Dataset, res driveResult, check CheckResult) {
	row.Oversold = check.Oversold
	var clientOversold int64
	for _, h := range res.expected {
		clientOversold += max(0, h.Reserved+h.Committed-d.Stock)
	}
	row.Oversold = max(row.Oversold, clientOversold)
	row.Check, row.CheckClean = "clean", true
	if check.Mismatches > 0 {
		row.Check, row.CheckClean = fmt.Sprintf("%d SKUs differ (%s)", check.Mismatches, check.Detail), false
	}
	if res.tally.lateWon > 0 {
		row.Check = fmt.Sprintf("%s, %d won after their caller gave up", row.Check, res.tally.lateWon)
	}
	if res.tally.unknown > 0 {
		// The books may hold what the bench could not learn of.
		row.Check = fmt.Sprintf("%s, %d outcomes unknown", row.Check, res.tally.unknown)
		row.CheckClean = false
	}
	if w.contenders > 0 {
		want := min(d.Stock, int64(w.contenders))
		verdict := fmt.Sprintf("winners %d/%d", res.tally.won, want)
		if res.tally.won != want {
			row.CheckClean = false
		}
		if res.tally.errors > 0 {
			// An unanswered contender may have won: the count proves nothing.
			verdict += fmt.Sprintf(" with %d unanswered", res.tally.errors)
			row.CheckClean = false
		}
		row.Check = verdict + ", " + row.Check
	}
	if w.lifecycle {
		t := res.tally
		row.Lifecycle = &LifecycleCounts{
			Confirmed: t.confirms, Released: t.releases, LeftToExpire: t.left, ExpiredEarly: t.expiredEarly,
			Retries: t.retries, Replays: t.replays, ReplayMismatches: t.replayMismatches,
		}
		if t.replayMismatches > 0 {
			row.Check, row.CheckClean = fmt.Sprintf("%d retries not replayed; %s", t.replayMismatches, row.Check), false
		}
	}
}

// parallel runs fn(0..n-1) on at most workersMax goroutines and returns
// the first error.
func parallel(ctx context.Context, n, workersMax int, fn func(i int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workersMax)
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(i) })
	}
	return g.Wait()
}

func newRunID() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("run id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

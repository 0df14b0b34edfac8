package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is the outcome of Run; it encodes to JSON as --json writes it.
type Report struct {
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Target   string    `json:"target"`
	Database Database  `json:"database"`
	Machine  Machine   `json:"machine"`
	// Settings echoes what shaped the run.
	DurationSeconds float64  `json:"duration_seconds"`
	WarmupSeconds   float64  `json:"warmup_seconds"`
	Appliers        int      `json:"appliers"`
	BatchSizeMax    int      `json:"batch_size_max"`
	BaselineConns   int      `json:"baseline_conns"`
	Baselines       []string `json:"baselines"`
	Rows            []Row    `json:"rows"`
}

// Database describes where the books were.
type Database struct {
	Kind              string `json:"kind"` // postgres, sqlite or none
	URL               string `json:"url"`  // password redacted
	Version           string `json:"version,omitempty"`
	SynchronousCommit string `json:"synchronous_commit,omitempty"`
	Fsync             string `json:"fsync,omitempty"`
	Autovacuum        string `json:"autovacuum,omitempty"`
	// Analyzed is true when the bench ran ANALYZE after seeding each row.
	Analyzed bool `json:"analyzed"`
}

// Machine describes the load generator's host.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// Row is one implementation under one scenario at one concurrency.
type Row struct {
	Scenario       string `json:"scenario"`
	Implementation string `json:"implementation"`
	Baseline       bool   `json:"baseline"`
	Concurrency    int    `json:"concurrency"`
	// Skipped says why the row did not run (or failed part-way).
	Skipped string `json:"skipped,omitempty"`

	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Requests counts reserve requests answered: won, rejected or shed.
	Requests   int64  `json:"requests"`
	Successes  int64  `json:"successes"`
	Rejections int64  `json:"rejections"`
	Overloaded int64  `json:"overloaded"`
	Errors     int64  `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
	// Lines counts the lines of won reservations.
	Lines int64 `json:"lines"`
	// ReservationsPerSecond is (successes + rejections) per second.
	ReservationsPerSecond float64 `json:"reservations_per_second"`
	LinesPerSecond        float64 `json:"lines_per_second"`

	LatencySamples int     `json:"latency_samples"`
	LatencyP50Ms   float64 `json:"latency_p50_ms"`
	LatencyP95Ms   float64 `json:"latency_p95_ms"`
	LatencyP99Ms   float64 `json:"latency_p99_ms"`
	LatencyMaxMs   float64 `json:"latency_max_ms"`

	// Oversold is units handed out beyond the stock: must be 0.
	Oversold int64 `json:"oversold"`
	// Check is the implementation's own books against the answers the
	// bench received ("clean" or what differs); for flash it includes the
	// count of winners, which must equal the stock.
	Check      string `json:"check"`
	CheckClean bool   `json:"check_clean"`
	// Verify is stockd's audit of its whole books after the row.
	Verify      string `json:"verify,omitempty"`
	VerifyClean bool   `json:"verify_clean,omitempty"`
	// PersistDrainSeconds is how long stockd-gate's persister took, after
	// the load ended, to write every win to the database.
	PersistDrainSeconds float64 `json:"persist_drain_seconds,omitempty"`

	// Batches, BatchSizeMean and BatchMsMean describe the engine's batches
	// during the row (engine target only): how many, how many commands
	// each, and how long each took to apply and commit.
	Batches       int64   `json:"batches,omitempty"`
	BatchSizeMean float64 `json:"batch_size_mean,omitempty"`
	BatchMsMean   float64 `json:"batch_ms_mean,omitempty"`
	// BatchStepsMs is the mean wall time per batch of each storage step;
	// what BatchMsMean has beyond their sum is the engine's own work.
	BatchStepsMs map[string]float64 `json:"batch_steps_ms,omitempty"`

	Lifecycle *LifecycleCounts `json:"lifecycle,omitempty"`
	// Ratios is this row's reservations/s over each baseline's, measured
	// in the same run, scenario and concurrency.
	Ratios map[string]float64 `json:"ratios,omitempty"`
}

// LifecycleCounts are the transitions of the lifecycle scenario.
type LifecycleCounts struct {
	Confirmed        int64 `json:"confirmed"`
	Released         int64 `json:"released"`
	LeftToExpire     int64 `json:"left_to_expire"`
	ExpiredEarly     int64 `json:"expired_before_confirm"`
	Retries          int64 `json:"retries"`
	Replays          int64 `json:"replays"`
	ReplayMismatches int64 `json:"replay_mismatches"`
}

// Failed reports whether a row broke a safety property: oversold, books
// that disagree with the answers, a verify with differences, or a replay
// that was not one.
func (r *Report) Failed() bool {
	for _, row := range r.Rows {
		if row.Skipped != "" && !strings.HasPrefix(row.Skipped, "failed") {
			continue
		}
		if row.Skipped != "" || row.Oversold != 0 || !row.CheckClean || (row.Verify != "" && !row.VerifyClean && row.Verify != verifySkipped) {
			return true
		}
		if row.Lifecycle != nil && row.Lifecycle.ReplayMismatches != 0 {
			return true
		}
	}
	return false
}

const verifySkipped = "skipped"

// addRatios fills each stockd row's ratio to every baseline of its group.
func addRatios(group []Row) {
	for i := range group {
		if group[i].Baseline || group[i].Skipped != "" {
			continue
		}
		for _, b := range group {
			if !b.Baseline || b.Skipped != "" {
				continue
			}
			if ratio, ok := Ratio(group[i].ReservationsPerSecond, b.ReservationsPerSecond); ok {
				if group[i].Ratios == nil {
					group[i].Ratios = map[string]float64{}
				}
				group[i].Ratios[b.Implementation] = ratio
			}
		}
	}
}

// WriteTable prints the report as one aligned table, then the lifecycle
// details and the first errors, if any.
func (r *Report) WriteTable(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario", "implementation", "conc", "res/s", "lines/s", "p50 ms", "p95 ms", "p99 ms",
		"successes", "rejections", "errors", "oversold", "check", "verify", "batch"}
	for _, b := range r.Baselines {
		head = append(head, "× "+b)
	}
	fmt.Fprintln(w, strings.Join(head, "\t")+"\t")
	for _, row := range r.Rows {
		cells := []string{row.Scenario, row.Implementation, fmt.Sprint(row.Concurrency)}
		if row.Skipped != "" {
			// The reason goes below the table, where its length aligns nothing.
			// Every line keeps every cell, or tabwriter ends the column there.
			word, _, _ := strings.Cut(row.Skipped, ":")
			cells = append(cells, word)
			for len(cells) < len(head) {
				cells = append(cells, "-")
			}
			fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
			continue
		}
		lines := "-"
		if row.Scenario == ScenarioOrders {
			lines = fmt.Sprintf("%.0f", row.LinesPerSecond)
		}
		cells = append(cells, fmt.Sprintf("%.0f", row.ReservationsPerSecond), lines,
			fmt.Sprintf("%.2f", row.LatencyP50Ms), fmt.Sprintf("%.2f", row.LatencyP95Ms), fmt.Sprintf("%.2f", row.LatencyP99Ms),
			fmt.Sprint(row.Successes), fmt.Sprint(row.Rejections), fmt.Sprint(row.Errors+row.Overloaded),
			fmt.Sprint(row.Oversold), row.Check, orDash(row.Verify), batchCell(row))
		for _, b := range r.Baselines {
			if ratio, ok := row.Ratios[b]; ok {
				cells = append(cells, fmt.Sprintf("%.1f×", ratio))
			} else {
				cells = append(cells, "-")
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if row.Skipped != "" {
			fmt.Fprintf(out, "%s %s c=%d: %s\n", row.Scenario, row.Implementation, row.Concurrency, row.Skipped)
		}
		if l := row.Lifecycle; l != nil {
			fmt.Fprintf(out, "lifecycle %s c=%d: confirmed %d, released %d, left to expire %d, expired before confirm %d; retries %d, replays %d, replay mismatches %d\n",
				row.Implementation, row.Concurrency, l.Confirmed, l.Released, l.LeftToExpire, l.ExpiredEarly, l.Retries, l.Replays, l.ReplayMismatches)
		}
		if row.Batches > 0 {
			fmt.Fprintf(out, "batches %s %s c=%d: %d of %.0f commands, %.2f ms each:", row.Scenario, row.Implementation,
				row.Concurrency, row.Batches, row.BatchSizeMean, row.BatchMsMean)
			var steps float64
			for _, name := range batchSteps {
				if ms := row.BatchStepsMs[name]; ms >= 0.005 {
					fmt.Fprintf(out, " %s %.2f", name, ms)
					steps += ms
				}
			}
			fmt.Fprintf(out, ", engine %.2f\n", row.BatchMsMean-steps)
		}
		if row.FirstError != "" {
			fmt.Fprintf(out, "first error %s %s c=%d (%d errors, %d overloaded): %s\n",
				row.Scenario, row.Implementation, row.Concurrency, row.Errors, row.Overloaded, row.FirstError)
		}
	}
	return nil
}

// batchCell is "mean size × mean ms" of the row's engine batches.
func batchCell(row Row) string {
	if row.Batches == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f×%.1fms", row.BatchSizeMean, row.BatchMsMean)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func errUnexpected(what string, out Outcome) error {
	return fmt.Errorf("%s: unexpected answer %+v", what, out)
}

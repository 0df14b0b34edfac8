package postgres

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// BenchmarkWriteReserves times Tx.Write of a hot SKU's batch:
// reserveBatch reservations of one unit each on one position, with their
// ledger entries and idempotency answers, as the engine writes them. It
// reports the database work per reservation, the figure the hot path is
// bound by (docs/benchmarks.md, "What bounds it"), without the lock waits
// of a contended run: the wall time of Write (ns/reservation) and, where
// the server runs on this machine, the CPU time its backend spent on it
// (backend-ns/reservation, from /proc/PID/stat), which load from other
// processes moves far less.
//
// With STOCKD_BENCH_WRITE_SQL set (statements ending in ";" and a
// newline), a second schema gets them after its migrations, batches
// alternate between the two, and v/a is the second's backend time over
// the first's: what dropping an index would save, say, measured side by
// side on a noisy machine.
func BenchmarkWriteReserves(b *testing.B) {
	writers := []*hotWriter{newHotWriter(b, "a-", "")}
	if sql := os.Getenv("STOCKD_BENCH_WRITE_SQL"); sql != "" {
		writers = append(writers, newHotWriter(b, "v-", sql))
	}
	b.ResetTimer()
	for batch := 0; batch < b.N; batch++ {
		for _, h := range writers {
			h.write(b, batch)
		}
	}
	for _, h := range writers {
		h.report(b)
	}
	if len(writers) == 2 && writers[0].ticks > 0 {
		b.ReportMetric(float64(writers[1].ticks)/float64(writers[0].ticks), "v/a")
	}
}

// reserveBatch is the commands of one hot batch at 256 callers and more.
const reserveBatch = 256

// hotWriter writes hot batches to a store of its own and sums their cost.
type hotWriter struct {
	s        *Store
	prefix   string // of its metrics
	counters stockd.Counters
	elapsed  time.Duration
	ticks    int64
	batches  int
}

var hotPosition = stockd.PositionKey{SKU: "hot", Location: "default", Pool: "normal"}

// newHotWriter migrates a schema, runs sql on it and seeds the hot
// position.
func newHotWriter(b *testing.B, prefix, sql string) *hotWriter {
	s := newTestStore(b)
	for _, stmt := range strings.Split(sql, ";\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := s.pool.Exec(b.Context(), stmt); err != nil {
			b.Fatal(stmt, err)
		}
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	seed := &stockd.BatchWrites{
		SKUs:         []stockd.SKU{{ID: "hot", Name: "hot", Unit: "piece", Deduction: stockd.DeductionAtOrder, CreatedAt: now}},
		NewPositions: []stockd.Position{{PositionKey: hotPosition}},
	}
	if err := writeCommit(b, s, seed); err != nil {
		b.Fatal(err)
	}
	return &hotWriter{s: s, prefix: prefix, counters: stockd.Counters{OnHand: 1 << 40}}
}

// write writes and commits batch number batch, timing Write alone.
func (h *hotWriter) write(b *testing.B, batch int) {
	ctx := b.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := &stockd.BatchWrites{}
	for i := 0; i < reserveBatch; i++ {
		id := fmt.Sprintf("res-%08d-%04d", batch, i)
		key := fmt.Sprintf("bench-key-%08d-%04d", batch, i)
		res := stockd.Reservation{
			ID: id, Key: key, Status: stockd.StatusPending,
			Lines:     []stockd.ReservationLine{{SKU: hotPosition.SKU, Quantity: 1, Location: hotPosition.Location, Pool: hotPosition.Pool}},
			ExpiresAt: now.Add(10 * time.Minute), CreatedAt: now, UpdatedAt: now,
		}
		h.counters.Reserved++
		answer, err := json.Marshal(stockd.Result{Reservation: &res, Created: true})
		if err != nil {
			b.Fatal(err)
		}
		w.ReservationsNew = append(w.ReservationsNew, res)
		w.Idempotency = append(w.Idempotency, stockd.IdempotencyRecord{Key: key, RequestHash: "hash-" + key, Result: answer, CreatedAt: now})
		w.Ledger = append(w.Ledger, stockd.LedgerEntry{
			BusinessType: stockd.BusinessReserve, BusinessID: id, Position: hotPosition,
			Delta: stockd.Counters{Reserved: 1}, After: h.counters, ReservationID: id, Actor: "bench", CreatedAt: now,
		})
	}
	w.Positions = []stockd.Position{{PositionKey: hotPosition, Counters: h.counters}}
	tx, err := h.s.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := tx.PositionsLock(ctx, []string{hotPosition.SKU}); err != nil {
		b.Fatal(err)
	}
	pid := tx.(*Tx).tx.Conn().PgConn().PID()
	ticksBefore := backendTicks(pid)
	start := time.Now()
	if err := tx.Write(ctx, w); err != nil {
		b.Fatal(err)
	}
	h.elapsed += time.Since(start)
	h.ticks += backendTicks(pid) - ticksBefore
	h.batches++
	if err := tx.Commit(ctx); err != nil {
		b.Fatal(err)
	}
}

// report reports the cost per reservation.
func (h *hotWriter) report(b *testing.B) {
	n := float64(h.batches * reserveBatch)
	b.ReportMetric(float64(h.elapsed.Nanoseconds())/n, h.prefix+"ns/reservation")
	b.ReportMetric(float64(h.ticks)*float64(time.Second/clockTicksPerSecond)/n, h.prefix+"backend-ns/reservation")
}

// clockTicksPerSecond is Linux's USER_HZ, the unit of /proc/PID/stat.
const clockTicksPerSecond = 100

// backendTicks is the CPU time of process pid so far in clock ticks, 0
// where /proc does not show it (a server on another machine).
func backendTicks(pid uint32) int64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which may hold spaces: state is
	// field 3 of proc(5), utime 14 and stime 15.
	stat := string(raw)
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	user, _ := strconv.ParseInt(fields[11], 10, 64)
	system, _ := strconv.ParseInt(fields[12], 10, 64)
	return user + system
}

// writeCommit writes w in a transaction of its own.
func writeCommit(tb testing.TB, s *Store, w *stockd.BatchWrites) error {
	tb.Helper()
	tx, err := s.Begin(tb.Context())
	if err != nil {
		return err
	}
	defer tx.Rollback(tb.Context())
	if err := tx.Write(tb.Context(), w); err != nil {
		return err
	}
	return tx.Commit(tb.Context())
}

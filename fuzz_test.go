package stockd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// FuzzBatchDecision reads its input as a program: a few batches of
// commands of every kind, each normalized (a refusal there is correct and
// skipped) and applied to a BatchState read the way the engine reads one,
// from an in-memory store that keeps what every batch wrote. After each
// batch it checks what the database and the books would: no panic, valid
// counters, a ledger that adds up to them, documents and stored answers
// that decode and fit, times both databases keep, text PostgreSQL takes,
// the rows a write expects to find (or not), and the counters the
// reservations, transfers and purchase orders imply.
//
// Each batch is also decided a second time against a state holding every
// row of the store: the engine locks only what Touches names, so a
// decision that differs when it sees everything read a row it did not
// lock, which on PostgreSQL is a lost update.
//
// The input format is fuzzProgram's; the corpus in
// testdata/fuzz/FuzzBatchDecision is written in it, so a change of the
// format must rewrite the corpus (fuzzSeeds builds the typical programs).
func FuzzBatchDecision(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzInput{data: data}
		st := newFuzzStore()
		batches := 1 + in.pick(fuzzBatchesMax)
		for b := 0; b < batches && !in.done(); b++ {
			st.now = st.now.Add(fuzzClockSteps[in.pick(len(fuzzClockSteps))])
			n := 1 + in.pick(fuzzCommandsPerBatchMax)
			var cmds []Command
			for i := 0; i < n && !in.done(); i++ {
				c := st.decodeCommand(in)
				if c.Normalize() != nil {
					continue
				}
				cmds = append(cmds, c)
				st.sent = append(st.sent, c)
			}
			if len(cmds) > 0 {
				st.batch(t, cmds)
			}
		}
	})
}

// Bounds of one fuzz program, so that an iteration stays well under a
// millisecond.
const (
	fuzzBatchesMax          = 4
	fuzzCommandsPerBatchMax = 8
	fuzzLinesMax            = 4
	fuzzRawTextLengthMax    = 16
)

// The names a program picks from: few, so that commands meet on the same
// rows, and a malformed one of each, so that normalization is reached.
var (
	fuzzSKUs       = []string{"a", "b", "c", "s", "kit", "d", "kit2", "a b", ""}
	fuzzLocations  = []string{"", LocationDefault, "w1", "w2", "w3", "nowhere", "x/y"}
	fuzzPools      = []string{"", PoolDefault, "ch", "sale", "flash", "x", "p q"}
	fuzzCustomers  = []string{"", "c1", "c2", "c 3"}
	fuzzActors     = []string{"", "alice", "bob"}
	fuzzKeyIDs     = []string{"", "key_a", "key_b"}
	fuzzOrderIDs   = []string{"", "po1", "po2", "po 3"}
	fuzzDeductions = []string{"", DeductionAtOrder, DeductionAtPayment, DeductionAtShipment, "never"}
	fuzzReasons    = []string{ReasonCycleCount, ReasonDamage, ReasonLoss, ReasonFound, ReasonCorrection, "", "theft"}
	fuzzRelease    = []string{"", ReleaseCancelled, ReleasePaymentFailed, ReleaseRiskRejected, ReleaseOther, ReleaseRefunded, "bored"}
	fuzzStrategies = []string{"", StrategyPriority, StrategySingleLocation, StrategySplit, "random"}
	fuzzStates     = []string{StateAvailable, StateQuarantined, "reserved"}
	// fuzzTexts holds the free text that once crashed (a NUL, other
	// control characters, invalid UTF-8, a UTF-16 surrogate encoded in
	// UTF-8) beside text that is fine, up to the bound in bytes.
	fuzzTexts = []string{"", "ref", "a\x00b", "\x1b[2J", "two\nlines", "\xff\xfe", "\xed\xa0\x80", "é",
		strings.Repeat("r", ReferenceLengthMax+1), strings.Repeat("é", ReferenceLengthMax/2)}
	fuzzQuantities = []int64{0, 1, 2, 5, 100, 101, 1000, QuantityMax, QuantityMax + 1, -1, CounterMax}
	fuzzThresholds = []int64{0, 1, 5, 100, QuantityMax, -1, QuantityMax + 1}
	fuzzPriorities = []int{0, 1, 2, 3, LocationPriorityMax, -1, LocationPriorityMax + 1}
	fuzzTTLs       = []time.Duration{0, time.Second, 30 * time.Second, 15 * time.Minute, ReservationTTLMax,
		ReservationTTLMax + time.Second, -time.Second, 500 * time.Millisecond}
	fuzzWindowsSeconds = []int64{0, 1, 60, 3600, 86400, int64(LimitWindowMax / time.Second), int64(LimitWindowMax/time.Second) + 1, -1}
	// fuzzClockSteps move the clock between batches past the deadlines:
	// a reservation's TTL, a limit's window, an approval's.
	fuzzClockSteps = []time.Duration{0, time.Second, time.Minute, ReservationTTLDefault, time.Hour,
		ReservationTTLMax + time.Second, ApprovalTTL, LimitWindowMax + time.Hour}
)

// fuzzTimes are the times a program picks beyond those near the clock:
// the crashers of years outside 1 to 9999 in UTC (from an offset that
// moves a time in range out of it), the bounds themselves, and zero.
var fuzzTimes = []time.Time{
	time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", -10*3600)),
	time.Date(0, 1, 1, 0, 0, 0, 0, time.FixedZone("", 5*3600)),
	time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	{},
}

// Kinds of the commands a program writes, in the order of its kind byte.
var fuzzKinds = []CommandKind{
	KindSKUCreate, KindLocationCreate, KindReceive, KindAdjust, KindAdjust, KindReserve, KindReserve,
	KindConfirm, KindRelease, KindExpire, KindFulfil,
	KindPoolCreate, KindCampaignClose, KindAllocate,
	KindPurchaseOrder, KindPurchaseOrderReceipt, KindPurchaseOrderCancel,
	KindTransfer, KindTransferReceipt, KindTransferCancel,
	KindReturn, KindQuarantineRelease, KindQuarantineScrap, KindMove, KindShipment,
	KindLimitSet, KindBundleCreate, KindLocationUpdate, KindSKUUpdate, KindApprove, KindReject,
	KindExtend, KindReplenishmentDefaultsUpdate,
}

// decide applies cmds to s, failing the test on a panic with what it
// needs to reproduce it.
func decideFuzzBatch(t *testing.T, s *BatchState, cmds []Command, what string) ([]Result, *BatchWrites) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		kind := "panic"
		if _, ok := p.(BrokenInvariant); ok {
			kind = "broken invariant of the books"
		}
		t.Fatalf("%s deciding the batch (%s): %v\ncommands: %s\n%s", kind, what, p, describeCommands(cmds), debug.Stack())
	}()
	results := s.Apply(cmds)
	return results, s.Writes()
}

func describeCommands(cmds []Command) string {
	var b strings.Builder
	for i, c := range cmds {
		payload, err := json.Marshal(c.Op)
		if err != nil {
			payload = []byte(err.Error())
		}
		fmt.Fprintf(&b, "\n  %d: %s key=%q hash=%q actor=%q key_id=%q %s", i, c.Kind(), c.IdempotencyKey, c.RequestHash, c.Actor, c.KeyID, payload)
	}
	return b.String()
}

// batch decides one batch, checks it, and writes it to the store.
func (st *fuzzStore) batch(t *testing.T, cmds []Command) {
	t.Helper()
	var usedLocked, usedAll int
	locked, touches := st.read(cmds, st.fuzzNewID(&usedLocked))
	results, w := decideFuzzBatch(t, locked, cmds, "rows locked")
	all := st.readAll(st.fuzzNewID(&usedAll))
	resultsAll, wAll := decideFuzzBatch(t, all, cmds, "every row")
	if got, want := mustJSON(t, results), mustJSON(t, resultsAll); !bytes.Equal(got, want) {
		t.Fatalf("the batch decided otherwise when it saw rows it did not lock: a decision reads a row its Touches do not name\ncommands: %s\nlocked: %s\nevery row: %s",
			describeCommands(cmds), got, want)
	}
	if got, want := mustJSON(t, w), mustJSON(t, wAll); !bytes.Equal(got, want) {
		t.Fatalf("the batch wrote otherwise when it saw rows it did not lock\ncommands: %s\nlocked: %s\nevery row: %s", describeCommands(cmds), got, want)
	}
	st.checkAnswers(t, cmds, results, w.Idempotency)
	if err := st.write(w, touches); err != nil {
		t.Fatalf("the write of the batch would fail or break the books: %v\ncommands: %s\nwrites: %s", err, describeCommands(cmds), mustJSON(t, w))
	}
	st.ids += usedLocked
	if err := st.checkBooks(); err != nil {
		t.Fatalf("after the batch: %v\ncommands: %s\nwrites: %s", err, describeCommands(cmds), mustJSON(t, w))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return b
}

// checkAnswers checks the answers against the keys: each answer is the
// one stored under its key (what a retry will get), a replay answers
// exactly the first answer, a reused key only a different request.
func (st *fuzzStore) checkAnswers(t *testing.T, cmds []Command, results []Result, stored []IdempotencyRecord) {
	t.Helper()
	records := map[string][]byte{}
	for _, r := range stored {
		records[r.Key] = r.Result
	}
	for i, c := range cmds {
		r := results[i]
		if c.IdempotencyKey == "" {
			continue
		}
		first, seen := st.answers[c.IdempotencyKey]
		switch {
		case r.Replayed:
			if !seen || first.hash != c.RequestHash || !bytes.Equal(first.result, mustJSON(t, r)) {
				t.Fatalf("command %d replayed %s, want the first answer %s under key %q\ncommands: %s", i, mustJSON(t, r), first.result, c.IdempotencyKey, describeCommands(cmds))
			}
		case r.Err != nil && r.Err.Code == CodeIdempotencyKeyReused:
			if !seen || first.hash == c.RequestHash {
				t.Fatalf("command %d: key %q reported reused, first answer %+v\ncommands: %s", i, c.IdempotencyKey, first, describeCommands(cmds))
			}
		case seen:
			t.Fatalf("command %d under key %q decided afresh, want a replay or a refusal\ncommands: %s", i, c.IdempotencyKey, describeCommands(cmds))
		default:
			given := mustJSON(t, r)
			if !bytes.Equal(given, records[c.IdempotencyKey]) {
				t.Fatalf("command %d answered %s, but stored %s under key %q for its retries: a later command of the batch changed the answer\ncommands: %s",
					i, given, records[c.IdempotencyKey], c.IdempotencyKey, describeCommands(cmds))
			}
			st.answers[c.IdempotencyKey] = fuzzAnswer{hash: c.RequestHash, result: records[c.IdempotencyKey]}
		}
	}
}

// Package csvimporttest is the one suite of CSV imports that every way of
// sending a file runs: package csvimport itself, the HTTP API
// (POST /v1/imports/{kind}) and the command line (stockd import). Each
// gives Exercise a Send that imports a file its way and turns its answer
// back into a csvimport.Result and error, so that the same files must be
// refused the same way, line for line, and a file sent again must replay.
package csvimporttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/store"
)

// Env is a transport under test.
type Env struct {
	// Store reads the books the imports wrote.
	Store store.Store
	// Engine seeds what no file can: a second location.
	Engine csvimport.Submitter
	// Now is the importer's clock (reservation deadlines lie ahead of it).
	Now func() time.Time
	// Limits are the transport's; files above them are tried only when
	// small enough to build (LimitsHTTP).
	Limits csvimport.Limits
	// Send imports body as a file of kind. Its error is nil, a
	// *csvimport.BadFileError, a *csvimport.IncompleteError, an error
	// wrapping csvimport.ErrTooLarge, or a failure of the test's own.
	Send func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error)
}

// Exercise runs the suite on an empty database.
func Exercise(t *testing.T, env Env) {
	ctx := context.Background()
	send := func(kind csvimport.Kind, body string) (csvimport.Result, error) {
		t.Helper()
		return env.Send(t, kind, []byte(body))
	}
	mustSend := func(kind csvimport.Kind, body string, want csvimport.Result) csvimport.Result {
		t.Helper()
		got, err := send(kind, body)
		if err != nil {
			t.Fatalf("import %s: %v", kind, err)
		}
		if got.Kind != kind || len(got.Digest) != 16 || got.Rows != want.Rows || got.Applied != want.Applied || got.Replayed != want.Replayed || got.Unchanged != want.Unchanged {
			t.Fatalf("import %s = %+v, want %d rows, %d applied, %d replayed, %d unchanged", kind, got, want.Rows, want.Applied, want.Replayed, want.Unchanged)
		}
		return got
	}
	if res, err := env.Engine.Submit(ctx, stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: "back", Name: "Back room", Priority: 5}},
		IdempotencyKey: "suite-location-back", RequestHash: "suite-location-back"}); err != nil || res.Err != nil {
		t.Fatalf("create location back: %v %v", err, res.Err)
	}

	// SKUs; sent again, they exist as the file says.
	skus := "sku,name,unit\ntee-M,T-shirt M,piece\nmug,Mug,piece\n"
	mustSend(csvimport.KindSKUs, skus, csvimport.Result{Rows: 2, Applied: 2})
	mustSend(csvimport.KindSKUs, skus, csvimport.Result{Rows: 2, Unchanged: 2})

	// Bad files: every bad line named, nothing written.
	past := env.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	future := env.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		name  string
		kind  csvimport.Kind
		body  string
		lines []int
	}{
		{"empty", csvimport.KindStock, "", []int{1}},
		{"header", csvimport.KindStock, "sku,quantity\nmug,1\n", []int{1}},
		{"no rows", csvimport.KindStock, "sku,location,pool,quantity,reference\n", []int{1}},
		{"fields", csvimport.KindStock, "sku,location,pool,quantity,reference\nmug,,,1,\nmug,,,1\nmug,,,1,,\n", []int{3, 4}},
		{"quote", csvimport.KindStock, "sku,location,pool,quantity,reference\nmug,,,1,\nmu\"g,,,1,\n", []int{3}},
		{"stock rows", csvimport.KindStock, "sku,location,pool,quantity,reference\nmug,,,1,\nnope,,,1,\nmug,,,0,\nmug,nowhere,,1,\nmug,,vip,1,\nmug,,,x,\nmug,,,1,PO-9\nmug,,,2,PO-9\nmug,default,normal,1,\n", []int{3, 4, 5, 6, 7, 9, 10}},
		{"skus", csvimport.KindSKUs, "sku,name,unit\nC,C,piece\nC,C,piece\nmug,Cup,piece\nbad sku,x,piece\n", []int{3, 4, 5}},
		{"reservations", csvimport.KindReservations, "key,sku,location,pool,quantity,status,expires_at,customer_id\n" +
			"o-1,mug,,,1,pending," + past + ",\no-2,mug,,,1,shipped,,\no-3,mug,,,1,confirmed,,\no-3,mug,,,1,pending,,\no-4,nope,,,1,confirmed,,\n", []int{2, 3, 5, 6}},
		{"demand", csvimport.KindDemand, "sku,date,quantity\nmug,2025-01-01,3\nmug,2025-02-30,1\nmug,2025-01-02,-4\nnope,2025-01-02,1\nmug,2025-01-01,5\nmug,2025-01-04,x\n", []int{3, 4, 5, 6, 7}},
		{"counts", csvimport.KindCounts, "sku,location,counted_on_hand,counted_at\nmug,,1," + past + "\nmug,,1," + future + "\nnope,,1," + past + "\nmug,,-1," + past + "\nmug,,1,yesterday\n", []int{3, 4, 5, 6}},
	} {
		_, err := send(c.kind, c.body)
		var bad *csvimport.BadFileError
		if !errors.As(err, &bad) {
			t.Errorf("%s: %v, want a bad file", c.name, err)
			continue
		}
		var got []int
		for _, l := range bad.Lines {
			if l.Detail == "" {
				t.Errorf("%s: line %d without a detail", c.name, l.Line)
			}
			got = append(got, l.Line)
		}
		if !reflect.DeepEqual(got, c.lines) || bad.Count != len(c.lines) {
			t.Errorf("%s: bad lines %v (count %d), want %v: %v", c.name, got, bad.Count, c.lines, err)
		}
	}
	if entries, err := env.Store.LedgerList(ctx, store.LedgerListParams{Limit: 10}); err != nil || len(entries) != 0 {
		t.Fatalf("ledger after bad files: %d entries, %v; want none", len(entries), err)
	}
	if days, err := env.Store.DemandHistoryList(ctx, store.DemandHistoryListParams{SKU: "mug", From: "2025-01-01", To: "2025-12-31"}); err != nil || len(days) != 0 {
		t.Fatalf("demand after a bad file: %v, %v; want none", days, err)
	}
	if counts, err := env.Store.DiscrepancyOpenCounts(ctx); err != nil || len(counts) != 0 {
		t.Fatalf("discrepancies after a bad count: %v, %v; want none", counts, err)
	}

	// Opening stock: a SKU at two locations without a reference of its
	// own; sent again, it replays and changes nothing.
	stock := "sku,location,pool,quantity,reference\ntee-M,,,50,PO-1\nmug,default,normal,30,\nmug,back,,5,\n"
	mustSend(csvimport.KindStock, stock, csvimport.Result{Rows: 3, Applied: 3})
	mustSend(csvimport.KindStock, stock, csvimport.Result{Rows: 3, Replayed: 3})
	wantOnHand(t, env.Store, "mug", map[string]int64{"default": 30, "back": 5})
	wantOnHand(t, env.Store, "tee-M", map[string]int64{"default": 50})
	references := map[string]string{}
	entries, err := env.Store.LedgerList(ctx, store.LedgerListParams{SKU: "mug", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.BusinessType == stockd.BusinessReceipt { // not the derived back-in-stock events
			references[e.Position.Location] = e.Reference
		}
	}
	if want := map[string]string{"default": "opening-balance:default:normal", "back": "opening-balance:back:normal"}; !reflect.DeepEqual(references, want) {
		t.Errorf("references of the opening balances %v, want %v", references, want)
	}
	// The same rows in another file (CRLF line ends: other bytes, another
	// digest) are new requests, which the references refuse: the stock
	// does not come in twice, and each refused row is named.
	_, err = send(csvimport.KindStock, strings.ReplaceAll(stock, "\n", "\r\n"))
	var incomplete *csvimport.IncompleteError
	if !errors.As(err, &incomplete) || incomplete.Count != 3 || len(incomplete.Refused) != 3 || incomplete.Refused[0].Line != 2 ||
		!strings.Contains(incomplete.Refused[0].Detail, stockd.CodeDuplicateReference) {
		t.Fatalf("the opening stock in another file: %v, want lines 2 to 4 refused as duplicate_reference", err)
	}
	wantOnHand(t, env.Store, "mug", map[string]int64{"default": 30, "back": 5})

	// Open holds and paid orders; one asks for more than there is and is
	// refused while applying, the others are applied; the file sent again
	// replays them and names the same line.
	deadline := env.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)
	holds := "key,sku,location,pool,quantity,status,expires_at,customer_id\n" +
		"o-1,tee-M,,,2,pending," + deadline + ",c-1\n" +
		"o-1,mug,,,1,pending," + deadline + ",c-1\n" +
		"o-2,mug,,,3,confirmed,,\n" +
		"o-3,mug,back,,6,confirmed,,\n"
	for i, want := range []csvimport.Result{{Applied: 2}, {Replayed: 2}} {
		_, err := send(csvimport.KindReservations, holds)
		if !errors.As(err, &incomplete) || incomplete.Count != 1 || incomplete.Refused[0].Line != 5 ||
			!strings.Contains(incomplete.Refused[0].Detail, stockd.CodeInsufficientStock) {
			t.Fatalf("reservations, send %d: %v, want line 5 refused as insufficient_stock", i+1, err)
		}
		if r := incomplete.Result; r.Rows != 4 || r.Applied != want.Applied || r.Replayed != want.Replayed {
			t.Errorf("reservations, send %d: %+v, want %d applied, %d replayed", i+1, r, want.Applied, want.Replayed)
		}
	}
	positions, err := env.Store.PositionListBySKU(ctx, "mug")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range positions {
		if p.Location == "default" && (p.Counters.Reserved != 1 || p.Counters.Committed != 3) {
			t.Errorf("mug at default after the holds: %+v, want 1 reserved and 3 committed", p.Counters)
		}
	}

	// Demand, twice: the same history.
	var demand strings.Builder
	demand.WriteString("sku,date,quantity\n")
	for day := 1; day <= 30; day++ {
		fmt.Fprintf(&demand, "mug,2026-01-%02d,%d\n", day, day%7)
	}
	mustSend(csvimport.KindDemand, demand.String(), csvimport.Result{Rows: 30, Applied: 30})
	mustSend(csvimport.KindDemand, demand.String(), csvimport.Result{Rows: 30, Applied: 30})
	if days, err := env.Store.DemandHistoryList(ctx, store.DemandHistoryListParams{SKU: "mug", From: "2026-01-01", To: "2026-01-31"}); err != nil || len(days) != 30 {
		t.Errorf("demand imported: %d days, %v; want 30", len(days), err)
	}

	// A count: the back room is one short.
	counted := env.Now().UTC().Format(time.RFC3339Nano)
	res := mustSend(csvimport.KindCounts, "sku,location,counted_on_hand,counted_at\nmug,default,30,"+counted+"\nmug,back,4,"+counted+"\n",
		csvimport.Result{Rows: 2, Applied: 2})
	if res.Count == nil || len(res.Count.Findings) != 1 || res.Count.Findings[0].Position.Location != "back" || res.Count.Findings[0].Expected.OnHand != 5 {
		t.Errorf("count: %+v, want one mismatch at back against 5", res.Count)
	}

	if env.Limits != csvimport.LimitsHTTP {
		return
	}
	// Above the bounds: refused before any row is looked at.
	var rows strings.Builder
	rows.WriteString("sku,date,quantity\n")
	for i := range env.Limits.RowsMax + 1 {
		fmt.Fprintf(&rows, "mug,%s,1\n", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly))
	}
	if _, err := send(csvimport.KindDemand, rows.String()); !errors.Is(err, csvimport.ErrTooLarge) {
		t.Errorf("%d rows: %v, want too large", env.Limits.RowsMax+1, err)
	}
	big := "sku,date,quantity\n" + strings.Repeat("mug,2000-01-01,1\n", int(env.Limits.BytesMax)/17+1)
	if _, err := send(csvimport.KindDemand, big); !errors.Is(err, csvimport.ErrTooLarge) {
		t.Errorf("%d bytes: %v, want too large", len(big), err)
	}
}

// wantOnHand checks the on-hand quantity of sku at each location.
func wantOnHand(t *testing.T, s store.Store, sku string, want map[string]int64) {
	t.Helper()
	positions, err := s.PositionListBySKU(context.Background(), sku)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, p := range positions {
		got[p.Location] += p.Counters.OnHand
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s on hand by location %v, want %v", sku, got, want)
	}
}

package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/csvimport/csvimporttest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
)

// importOverHTTP sends a file with the client and turns the answer back
// into what csvimport returns, for the shared suite.
func importOverHTTP(client *Client) func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error) {
	return func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error) {
		t.Helper()
		res, err := client.Import(context.Background(), kind, body)
		if err == nil {
			out := csvimport.Result{Kind: csvimport.Kind(res.Kind), Digest: res.Digest, Rows: res.Rows, Applied: res.Applied, Replayed: res.Replayed, Unchanged: res.Unchanged}
			if res.Count != nil {
				out.Count = &reconcile.Result{}
				for _, f := range res.Count.Findings {
					out.Count.Findings = append(out.Count.Findings, stockd.Finding{Kind: f.Kind,
						Position: stockd.PositionKey{SKU: f.SKU, Location: f.Location, Pool: f.Pool}, Expected: stockd.Counters(f.Expected), Actual: stockd.Counters(f.Actual)})
				}
			}
			return out, nil
		}
		e, ok := errors.AsType[*stockd.Error](err)
		if !ok {
			return csvimport.Result{}, err
		}
		switch e.Code {
		case stockd.CodeBodyTooLarge:
			return csvimport.Result{}, fmt.Errorf("%w: %s", csvimport.ErrTooLarge, e.Message)
		case stockd.CodeInvalidCSV:
			bad := &csvimport.BadFileError{Lines: e.LineErrors}
			if _, err := fmt.Sscanf(e.Message, "%d bad lines", &bad.Count); err != nil {
				t.Fatalf("invalid_csv detail %q: %v", e.Message, err)
			}
			return csvimport.Result{}, bad
		case stockd.CodeImportIncomplete:
			inc := &csvimport.IncompleteError{Refused: e.LineErrors, Result: csvimport.Result{Kind: kind}}
			if _, err := fmt.Sscanf(e.Message, "%d of %d rows refused while applying (%d applied, %d replayed)",
				&inc.Count, &inc.Result.Rows, &inc.Result.Applied, &inc.Result.Replayed); err != nil {
				t.Fatalf("import_incomplete detail %q: %v", e.Message, err)
			}
			return inc.Result, inc
		}
		return csvimport.Result{}, err
	}
}

// TestImportsOverHTTP runs package csvimport's suite through
// POST /v1/imports/{kind} and the Go client: the same files refused line
// for line as by the command line, the same replays, the bounds of
// csvimport.LimitsHTTP.
func TestImportsOverHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		csvimporttest.Exercise(t, csvimporttest.Env{Store: h.store, Engine: h.server.engine, Now: h.clock.Now, Limits: csvimport.LimitsHTTP,
			Send: importOverHTTP(NewClient(h.url))})
	})
}

// TestImportCrossesTransports: a file imported by the command line's path
// (csvimport directly, with an engine of its own) replays when sent over
// HTTP, whatever API key sends it: its rows' keys are the file's.
func TestImportCrossesTransports(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(0, "A")
		ctx := context.Background()
		file := []byte("sku,location,pool,quantity,reference\nA,,,7,\n")
		f, err := csvimport.Read(strings.NewReader(string(file)), csvimport.KindStock, csvimport.LimitsFile)
		if err != nil {
			t.Fatal(err)
		}
		p, err := csvimport.Check(ctx, h.store, f, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if res, err := p.Apply(ctx, csvimport.Apply{Engine: h.server.engine}); err != nil || res.Applied != 1 {
			t.Fatalf("import by the command line's path = %+v, %v", res, err)
		}
		_, secret := h.storeKey("importer", stockd.ScopeStock, stockd.ScopeRead)
		res, err := NewClient(h.url, WithAPIKey(secret)).Import(ctx, csvimport.KindStock, file)
		if err != nil || res.Replayed != 1 || res.Applied != 0 || res.Digest != f.Digest {
			t.Fatalf("the same file over HTTP = %+v, %v; want it replayed", res, err)
		}
	})
}

// exerciseImports drives each import to every answer the document lists
// for it (401, 403 and 429 come from the sweeps of every scoped route).
// It needs an open server (before exerciseKeys).
func exerciseImports(h *harness) {
	h.t.Helper()
	csv := func(method, path, body string, headers map[string]string, want int) answer {
		h.t.Helper()
		all := map[string]string{"Content-Type": "text/csv"}
		for k, v := range headers {
			all[k] = v
		}
		a := h.sendHeaders(method, path, []byte(body), all)
		if a.status != want {
			h.t.Fatalf("%s %s: %d, want %d: %s", method, path, a.status, want, a.body)
		}
		return a
	}
	h.must("POST", "/v1/skus", "import-sku-IMP", `{"sku":"IMP"}`, http.StatusCreated, nil)
	counted := h.clock.Now().UTC().Format(time.RFC3339)
	deadline := h.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	good := map[csvimport.Kind]string{
		csvimport.KindSKUs:         "sku,name,unit\nIMP-2,Imported,piece\n",
		csvimport.KindStock:        "sku,location,pool,quantity,reference\nIMP,,,5,\n",
		csvimport.KindReservations: "key,sku,location,pool,quantity,status,expires_at,customer_id\nimp-1,IMP,,,1,pending," + deadline + ",c-1\n",
		csvimport.KindDemand:       "sku,date,quantity\nIMP,2026-01-01,3\n",
		csvimport.KindCounts:       "sku,location,counted_on_hand,counted_at\nIMP,,5," + counted + "\n",
	}
	for _, kind := range csvimport.Kinds {
		path := "/v1/imports/" + string(kind)
		csv("POST", path, good[kind], nil, http.StatusOK)
		a := csv("POST", path, kind.Header()+"\nNOPE,1\n", nil, http.StatusBadRequest)
		if p := a.problem(h.t); p.Code != stockd.CodeInvalidCSV || len(p.LineErrors) != 1 || p.LineErrors[0].Line != 2 {
			h.t.Errorf("%s with a short row: %+v, want invalid_csv naming line 2", path, p)
		}
		h.sendHeaders("POST", path, []byte(good[kind]), map[string]string{"Content-Type": "application/json"})
		csv("POST", path, kind.Header()+"\n"+strings.Repeat("x", int(csvimport.LimitsHTTP.BytesMax)), nil, http.StatusRequestEntityTooLarge)
		for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultDown: http.StatusServiceUnavailable, faultTimeout: http.StatusServiceUnavailable} {
			csv("POST", path, good[kind], map[string]string{headerTestFault: fault}, status)
		}
		switch kind {
		case csvimport.KindSKUs, csvimport.KindStock, csvimport.KindReservations:
			// A file the books refuse while applying: the check passed,
			// then (faultRefused) each command lost a race.
			file := strings.Replace(strings.Replace(good[kind], "IMP-2", "IMP-3", 1), "\n", "\r\n", 1)
			a := csv("POST", path, file, map[string]string{headerTestFault: faultRefused}, http.StatusConflict)
			if p := a.problem(h.t); p.Code != stockd.CodeImportIncomplete || len(p.LineErrors) != 1 || p.LineErrors[0].Line != 2 {
				h.t.Errorf("%s refused while applying: %+v, want import_incomplete naming line 2", path, p)
			}
		}
	}
}

package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/csvimport"
)

// importTimeout is the deadline of one import: a file of
// csvimport.LimitsHTTP rows was applied in 1.3 s on SQLite and 2.8 s on
// PostgreSQL on a loaded machine (docs/benchmarks.md), so 20 s leaves room
// for a busy engine while staying under the HTTP server's write timeout.
const importTimeout = 20 * time.Second

// importScopes are the scopes each kind of file needs: what the same
// change needs by the other endpoints.
var importScopes = map[csvimport.Kind]stockd.Scope{
	csvimport.KindSKUs:         stockd.ScopeStock,
	csvimport.KindStock:        stockd.ScopeStock,
	csvimport.KindCounts:       stockd.ScopeStock,
	csvimport.KindReservations: stockd.ScopeReserve,
	csvimport.KindDemand:       stockd.ScopeAdmin,
}

func (s *Server) importRoutes() []route {
	routes := make([]route, 0, len(csvimport.Kinds))
	for _, kind := range csvimport.Kinds {
		routes = append(routes, route{"POST /v1/imports/" + string(kind), importOperation(kind), importScopes[kind], s.importFile(kind)})
	}
	return routes
}

func importOperation(kind csvimport.Kind) string { return "import_" + string(kind) }

// routeTimeout is the deadline of a route whose work outlasts
// RequestTimeout by design: the imports.
func routeTimeout(rt route) (time.Duration, bool) {
	for _, kind := range csvimport.Kinds {
		if rt.operation == importOperation(kind) {
			return importTimeout, true
		}
	}
	return 0, false
}

// ImportResult answers an import: what the file's rows did.
type ImportResult struct {
	Kind string `json:"kind"`
	// Digest names the file: its rows are applied under keys made of it
	// and their line, so the same file sent again replays.
	Digest    string `json:"digest"`
	Rows      int    `json:"rows"`
	Applied   int    `json:"applied"`
	Replayed  int    `json:"replayed"`
	Unchanged int    `json:"unchanged"`
	// Count is the comparison of a counts file.
	Count *ImportCount `json:"count,omitempty"`
}

// ImportCount is what comparing a counts file found: one reconciliation
// run per stockd.CountRowsMax rows.
type ImportCount struct {
	Runs     []int64   `json:"runs"`
	Checked  int       `json:"checked"`
	Opened   int       `json:"opened"`
	Closed   int       `json:"closed"`
	Findings []Finding `json:"findings"`
}

func importResultOut(res csvimport.Result) ImportResult {
	out := ImportResult{Kind: string(res.Kind), Digest: res.Digest, Rows: res.Rows, Applied: res.Applied, Replayed: res.Replayed, Unchanged: res.Unchanged}
	if res.Count != nil {
		c := &ImportCount{Runs: []int64{}, Findings: []Finding{}}
		for _, run := range res.Count.Runs {
			c.Runs = append(c.Runs, run.ID)
			c.Checked += run.PositionsChecked
			c.Opened += run.Opened
			c.Closed += run.Closed
		}
		for _, f := range res.Count.Findings {
			c.Findings = append(c.Findings, findingOut(f))
		}
		out.Count = c
	}
	return out
}

// importFile serves POST /v1/imports/{kind}: a CSV file, read, checked and
// applied by package csvimport as `stockd import` does. It takes no
// Idempotency-Key: each row is keyed by the file's digest and its line
// (reservations by their key column), the same whichever API key or the
// command line sends the file, so a file sent again replays.
func (s *Server) importFile(kind csvimport.Kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if verr := csvContentType(r); verr != nil {
			writeProblem(w, verr)
			return
		}
		actorName, verr := actor(r)
		if verr != nil {
			writeProblem(w, verr)
			return
		}
		lim := csvimport.LimitsHTTP
		if r.ContentLength > lim.BytesMax {
			writeProblem(w, csvTooLarge(lim))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, lim.BytesMax+1))
		if err != nil {
			// The read error names socket addresses; the caller needs none.
			writeProblem(w, stockd.Errorf(stockd.CodeInvalidCSV, "the body could not be read to its end"))
			return
		}
		f, err := csvimport.Read(bytes.NewReader(body), kind, lim)
		if errors.Is(err, csvimport.ErrTooLarge) {
			writeProblem(w, csvTooLarge(lim))
			return
		}
		if s.importRefused(w, err) {
			return
		}
		ctx := r.Context()
		p, err := csvimport.Check(ctx, s.store, f, s.now())
		if err != nil && !s.importRefused(w, err) {
			s.importFailure(w, r, err)
		}
		if err != nil {
			return
		}
		keyID := actingKeyID(r)
		if actorName == "" {
			actorName = keyID
		}
		res, err := p.Apply(ctx, csvimport.Apply{Engine: s.engine, Store: s.store, Counter: s.counts, Actor: actorName, KeyID: keyID, Now: s.now})
		if err != nil {
			if !s.importRefused(w, err) {
				s.importFailure(w, r, err)
			}
			return
		}
		s.audit(r, stockd.NewAuditEvent(s.now(), keyID, importOperation(kind),
			fmt.Sprintf("file %s: %d rows, %d applied, %d replayed, %d unchanged", res.Digest, res.Rows, res.Applied, res.Replayed, res.Unchanged), stockd.AuditOutcomeDone, ""))
		writeJSON(w, http.StatusOK, importResultOut(res))
	}
}

// importRefused answers the file's own faults (bad lines, rows refused
// while applying) and reports whether it did; nil is not answered.
func (s *Server) importRefused(w http.ResponseWriter, err error) bool {
	if bad, ok := errors.AsType[*csvimport.BadFileError](err); ok {
		e := stockd.Errorf(stockd.CodeInvalidCSV, "%d bad lines, nothing written", bad.Count)
		if bad.Count > len(bad.Lines) {
			e.Message += fmt.Sprintf(" (the first %d listed)", len(bad.Lines))
		}
		e.LineErrors = bad.Lines
		writeProblem(w, e)
		return true
	}
	if inc, ok := errors.AsType[*csvimport.IncompleteError](err); ok {
		e := stockd.Errorf(stockd.CodeImportIncomplete, "%d of %d rows refused while applying (%d applied, %d replayed): requests changed the books since the file was checked; send the file again: applied rows replay",
			inc.Count, inc.Result.Rows, inc.Result.Applied, inc.Result.Replayed)
		e.LineErrors = inc.Refused
		writeProblem(w, e)
		return true
	}
	return false
}

// importFailure answers a failure that is not the file's, naming the
// import's own deadline rather than RequestTimeout.
func (s *Server) importFailure(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		s.logger.Warn("import failed", "path", r.URL.Path, "err", err)
		writeProblem(w, stockd.Errorf(stockd.CodeTimeout, "the import did not finish within its deadline of %v; send the file again: applied rows replay", importTimeout))
		return
	}
	s.failure(w, r, err)
}

// csvContentType accepts text/csv alone (in UTF-8, the only charset
// stockd reads): curl --data-binary without -H sends a form label, and a
// JSON body read as CSV would fail line by line.
func csvContentType(r *http.Request) *stockd.Error {
	header := r.Header.Get("Content-Type")
	mediaType, params, err := mime.ParseMediaType(header)
	if err == nil && mediaType == "text/csv" && (params["charset"] == "" || equalFoldASCII(params["charset"], "utf-8")) {
		return nil
	}
	return stockd.Errorf(stockd.CodeUnsupportedMediaType, "Content-Type %q: send text/csv (UTF-8)", header)
}

func equalFoldASCII(a, b string) bool {
	return len(a) == len(b) && bytes.EqualFold([]byte(a), []byte(b))
}

func csvTooLarge(lim csvimport.Limits) *stockd.Error {
	return stockd.Errorf(stockd.CodeBodyTooLarge, "a file over HTTP holds at most %d bytes and %d rows: split it, or use stockd import", lim.BytesMax, lim.RowsMax)
}

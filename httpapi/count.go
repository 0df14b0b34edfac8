package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/reconcile"
)

func (s *Server) countRoutes() []route {
	return []route{
		{"POST /v1/counts", "count_create", stockd.ScopeStock, s.createCount},
	}
}

// countRequest is one physical count. It needs no Idempotency-Key: it
// changes no stock, and sending it again compares the same rows again,
// refreshing the same discrepancies (one per position and counted_at).
type countRequest struct {
	Rows []countRowRequest `json:"rows"`
}

type countRowRequest struct {
	SKU           string     `json:"sku"`
	Location      string     `json:"location,omitempty"`
	CountedOnHand *int64     `json:"counted_on_hand"`
	CountedAt     *time.Time `json:"counted_at"`
}

// Finding is what one reconciliation run saw.
type Finding struct {
	Kind     string   `json:"kind"`
	SKU      string   `json:"sku,omitempty"`
	Location string   `json:"location,omitempty"`
	Pool     string   `json:"pool,omitempty"`
	Subject  string   `json:"subject,omitempty"`
	Expected Counters `json:"expected"`
	Actual   Counters `json:"actual"`
	Evidence string   `json:"evidence"`
}

// CountResult is the answer of POST /v1/counts: the run that compared the
// rows, and the mismatches it found (each also a discrepancy).
type CountResult struct {
	Run      int64     `json:"run"`
	Checked  int       `json:"checked"`
	Opened   int       `json:"opened"`
	Closed   int       `json:"closed"`
	Findings []Finding `json:"findings"`
}

func findingOut(f stockd.Finding) Finding {
	return Finding{Kind: f.Kind, SKU: f.Position.SKU, Location: f.Position.Location, Pool: f.Position.Pool, Subject: f.Subject,
		Expected: Counters(f.Expected), Actual: Counters(f.Actual), Evidence: f.Evidence}
}

func (s *Server) createCount(w http.ResponseWriter, r *http.Request) {
	body, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	var req countRequest
	if verr := decodeStrict(body, &req); verr != nil {
		writeProblem(w, verr)
		return
	}
	if len(req.Rows) > stockd.CountRowsMax {
		writeProblem(w, stockd.InvalidField("rows", "must hold 1 to %d rows", stockd.CountRowsMax))
		return
	}
	rows := make([]stockd.CountRow, 0, len(req.Rows))
	for _, row := range req.Rows {
		if row.CountedOnHand == nil || row.CountedAt == nil {
			writeProblem(w, stockd.InvalidField("rows", "every row needs sku, counted_on_hand and counted_at"))
			return
		}
		rows = append(rows, stockd.CountRow{SKU: row.SKU, Location: row.Location, CountedOnHand: *row.CountedOnHand, CountedAt: *row.CountedAt})
	}
	res, err := s.counts.Count(r.Context(), rows)
	if e, ok := errors.AsType[*stockd.Error](err); ok {
		writeProblem(w, e)
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := CountResult{Findings: make([]Finding, 0, len(res.Findings))}
	for _, run := range res.Runs {
		out.Run, out.Checked, out.Opened, out.Closed = run.ID, run.PositionsChecked, run.Opened, run.Closed
	}
	for _, f := range res.Findings {
		out.Findings = append(out.Findings, findingOut(f))
	}
	writeJSON(w, http.StatusOK, out)
}

// newCounts is the reconciler that compares counts, sharing the server's
// store and clock; it registers no metrics (the scheduled passes' gauge
// picks the count's discrepancies up at its next refresh). The
// discrepancies it opens and closes are noticed on the ledger through the
// server's engine.
func newCounts(cfg Config) *reconcile.Reconciler {
	rc := reconcile.Config{Store: cfg.Store, Now: cfg.Now, Logger: cfg.Logger}
	if cfg.Engine != nil {
		rc.Notify = func(ctx context.Context, notices []stockd.Notice) error {
			return submitNotices(ctx, cfg.Engine, "reconcile", notices)
		}
	}
	return reconcile.New(rc)
}

// submitNotices writes notices one by one through the engine, each under
// its own idempotency key (stockd.NoticeCommand).
func submitNotices(ctx context.Context, e Submitter, actor string, notices []stockd.Notice) error {
	var errs []error
	for _, n := range notices {
		res, err := e.Submit(ctx, stockd.NoticeCommand(n, actor))
		if err == nil && res.Err != nil {
			err = res.Err
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("notice %s %q: %w", n.Type, n.Subject, err))
		}
	}
	return errors.Join(errs...)
}

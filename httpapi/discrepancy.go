package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func (s *Server) discrepancyRoutes() []route {
	return []route{
		{"GET /v1/discrepancies", "discrepancy_list", stockd.ScopeRead, s.listDiscrepancies},
		{"GET /v1/discrepancies/{id}", "discrepancy_get", stockd.ScopeRead, s.getDiscrepancy},
	}
}

// Discrepancy is one finding of the reconciliation passes as recorded:
// what was expected (the ledger's or the reservations' view) and what the
// books held, first and last seen, and whether a later pass no longer saw
// it (closed).
type Discrepancy struct {
	ID          int64      `json:"id"`
	Kind        string     `json:"kind"`
	SKU         string     `json:"sku,omitempty"`
	Location    string     `json:"location,omitempty"`
	Pool        string     `json:"pool,omitempty"`
	Subject     string     `json:"subject,omitempty"`
	Expected    Counters   `json:"expected"`
	Actual      Counters   `json:"actual"`
	Evidence    string     `json:"evidence"`
	Status      string     `json:"status"`
	FirstSeen   time.Time  `json:"first_seen"`
	LastSeen    time.Time  `json:"last_seen"`
	FirstRun    int64      `json:"first_run"`
	LastRun     int64      `json:"last_run"`
	ClosedAt    *time.Time `json:"closed_at,omitempty"`
	ClosedByRun int64      `json:"closed_by_run,omitempty"`
}

// DiscrepancyPage is one page of GET /v1/discrepancies. NextAfter is the
// cursor for the next page: the last id, or the request's after when
// empty.
type DiscrepancyPage struct {
	Discrepancies []Discrepancy `json:"discrepancies"`
	NextAfter     int64         `json:"next_after"`
}

func discrepancyOut(d stockd.Discrepancy) Discrepancy {
	return Discrepancy{
		ID: d.ID, Kind: d.Kind, SKU: d.Position.SKU, Location: d.Position.Location, Pool: d.Position.Pool, Subject: d.Subject,
		Expected: Counters(d.Expected), Actual: Counters(d.Actual), Evidence: d.Evidence, Status: d.Status,
		FirstSeen: d.FirstSeen.UTC(), LastSeen: d.LastSeen.UTC(), FirstRun: d.FirstRun, LastRun: d.LastRun,
		ClosedAt: d.ClosedAt, ClosedByRun: d.ClosedByRun,
	}
}

func (s *Server) listDiscrepancies(w http.ResponseWriter, r *http.Request) {
	params, verr := discrepancyParams(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	ds, err := s.store.DiscrepancyList(r.Context(), params)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	page := DiscrepancyPage{Discrepancies: make([]Discrepancy, 0, len(ds)), NextAfter: params.After}
	for _, d := range ds {
		page.Discrepancies = append(page.Discrepancies, discrepancyOut(d))
		page.NextAfter = d.ID
	}
	writeJSON(w, http.StatusOK, page)
}

// discrepancyParams reads the filters (status, kind, sku), the cursor
// (after) and the page size (limit).
func discrepancyParams(q url.Values) (store.DiscrepancyListParams, *stockd.Error) {
	page, verr := pageParams(q)
	p := store.DiscrepancyListParams{After: page.After, Limit: page.Limit}
	if verr != nil {
		return p, verr
	}
	if q.Has("status") {
		p.Status = q.Get("status")
		if p.Status != stockd.DiscrepancyOpen && p.Status != stockd.DiscrepancyClosed {
			return p, stockd.InvalidField("status", "must be open or closed")
		}
	}
	if q.Has("kind") {
		p.Kind = q.Get("kind")
		if !slices.Contains(stockd.DiscrepancyKinds, p.Kind) {
			return p, stockd.InvalidField("kind", "must be a discrepancy kind")
		}
	}
	if q.Has("sku") {
		p.SKU = q.Get("sku")
		if !stockd.ValidIdentifier(p.SKU) {
			return p, stockd.InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
	}
	return p, nil
}

func (s *Server) getDiscrepancy(w http.ResponseWriter, r *http.Request) {
	id, verr := discrepancyID(r.PathValue("id"))
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	d, err := s.store.DiscrepancyGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownDiscrepancy, "discrepancy %d not found", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, discrepancyOut(d))
}

func discrepancyID(v string) (int64, *stockd.Error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		return 0, stockd.InvalidField("id", "must be a positive integer")
	}
	return id, nil
}

// checkDiscrepancy refuses an adjustment that names a discrepancy which
// does not exist, is closed, or lies at another position. A retry of an
// adjustment already applied passes, so that it replays even after the
// discrepancy it resolved has closed: the engine answers it from its
// idempotency record.
func (s *Server) checkDiscrepancy(ctx context.Context, key string, a *stockd.Adjust) (*stockd.Error, error) {
	if a.DiscrepancyID == 0 {
		return nil, nil
	}
	records, err := s.store.IdempotencyGet(ctx, []string{key})
	if err != nil {
		return nil, err
	}
	if len(records) > 0 {
		return nil, nil
	}
	d, err := s.store.DiscrepancyGet(ctx, a.DiscrepancyID)
	if errors.Is(err, stockd.ErrNotFound) {
		return stockd.Errorf(stockd.CodeUnknownDiscrepancy, "discrepancy %d not found", a.DiscrepancyID), nil
	}
	if err != nil {
		return nil, err
	}
	if d.Status != stockd.DiscrepancyOpen {
		return stockd.Errorf(stockd.CodeDiscrepancyClosed, "discrepancy %d is closed: a later pass no longer saw it", d.ID), nil
	}
	k := a.Position
	if err := stockd.NormalizeKey(&k); err == nil && k != d.Position {
		return &stockd.Error{Code: stockd.CodeUnprocessable, Field: "discrepancy_id",
			Message: fmt.Sprintf("discrepancy %d is at %s/%s/%s, not at the adjusted position", d.ID, d.Position.SKU, d.Position.Location, d.Position.Pool)}, nil
	}
	return nil, nil
}

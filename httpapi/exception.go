package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Exceptions are read with the read scope and resolved with the reserve
// scope: the order service that confirms (and refunds) is the one that
// handles a late payment.
func (s *Server) exceptionRoutes() []route {
	return []route{
		{"GET /v1/exceptions", "exception_list", stockd.ScopeRead, s.listExceptions},
		{"GET /v1/exceptions/{id}", "exception_get", stockd.ScopeRead, s.getException},
		{"POST /v1/exceptions/{id}/resolve", "exception_resolve", stockd.ScopeReserve, s.resolveException},
	}
}

// ExceptionLine is one line an exception is about.
type ExceptionLine = stockd.ExceptionLine

// Exception is an order the books could not serve as the customer was
// told: a late payment (late_payment) or a gate win the database refused
// (gate_oversell). Its id sorts in handling order: payment time, else win
// time, else creation.
type Exception struct {
	ID               string          `json:"id"`
	Kind             string          `json:"kind"`
	Status           string          `json:"status"`
	ReservationID    string          `json:"reservation_id"`
	CustomerID       string          `json:"customer_id,omitempty"`
	OrderID          string          `json:"order_id,omitempty"`
	Pool             string          `json:"pool,omitempty"`
	Lines            []ExceptionLine `json:"lines"`
	PaymentReference string          `json:"payment_reference,omitempty"`
	PaidAt           *time.Time      `json:"paid_at,omitempty"`
	WonAt            *time.Time      `json:"won_at,omitempty"`
	Code             string          `json:"code"`
	Message          string          `json:"message"`
	CreatedAt        time.Time       `json:"created_at"`
	ResolvedAt       *time.Time      `json:"resolved_at,omitempty"`
	ResolvedBy       string          `json:"resolved_by,omitempty"`
	Note             string          `json:"note,omitempty"`
}

// ExceptionPage is one page of GET /v1/exceptions. NextAfter is the last
// id, or the request's after when the page is empty.
type ExceptionPage struct {
	Exceptions []Exception `json:"exceptions"`
	NextAfter  string      `json:"next_after,omitempty"`
}

type exceptionResolveRequest struct {
	Note string `json:"note"`
}

func exceptionOut(e stockd.Exception) Exception {
	lines := e.Lines
	if lines == nil {
		lines = []ExceptionLine{}
	}
	return Exception{
		ID: e.ID, Kind: e.Kind, Status: e.Status, ReservationID: e.ReservationID, CustomerID: e.CustomerID, OrderID: e.OrderID,
		Pool: e.Pool, Lines: lines, PaymentReference: e.PaymentReference, PaidAt: utcPtr(e.PaidAt), WonAt: utcPtr(e.WonAt),
		Code: e.Code, Message: e.Message, CreatedAt: e.CreatedAt.UTC(), ResolvedAt: utcPtr(e.ResolvedAt), ResolvedBy: e.ResolvedBy, Note: e.Note,
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *Server) listExceptions(w http.ResponseWriter, r *http.Request) {
	p, verr := exceptionParams(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	list, err := s.store.ExceptionList(r.Context(), p)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	page := ExceptionPage{Exceptions: make([]Exception, 0, len(list)), NextAfter: p.After}
	for _, e := range list {
		page.Exceptions = append(page.Exceptions, exceptionOut(e))
		page.NextAfter = e.ID
	}
	writeJSON(w, http.StatusOK, page)
}

// exceptionParams reads the filters (kind, status), the cursor (after, an
// exception id) and the page size (limit).
func exceptionParams(q url.Values) (store.ExceptionListParams, *stockd.Error) {
	p := store.ExceptionListParams{Limit: stockd.PageSizeDefault}
	if q.Has("after") {
		p.After = q.Get("after")
		if !stockd.ValidIdentifier(p.After) {
			return p, stockd.InvalidField("after", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
	}
	if q.Has("limit") {
		limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
		if err != nil || limit < 1 || limit > stockd.PageSizeMax {
			return p, stockd.InvalidField("limit", "must be an integer from 1 to %d", stockd.PageSizeMax)
		}
		p.Limit = int(limit)
	}
	if q.Has("kind") {
		p.Kind = q.Get("kind")
		if !slices.Contains(stockd.ExceptionKinds, p.Kind) {
			return p, stockd.InvalidField("kind", "must be late_payment or gate_oversell")
		}
	}
	if q.Has("status") {
		p.Status = q.Get("status")
		if p.Status != stockd.ExceptionOpen && p.Status != stockd.ExceptionResolved {
			return p, stockd.InvalidField("status", "must be open or resolved")
		}
	}
	return p, nil
}

func (s *Server) getException(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "id")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	e, err := s.store.ExceptionGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "exception %q not found", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, exceptionOut(e))
}

// resolveException closes an exception with a note, through the engine.
// Resolving a resolved one answers it as it is (the first note stands).
func (s *Server) resolveException(w http.ResponseWriter, r *http.Request) {
	var req exceptionResolveRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.ExceptionResolve{ID: id, Note: req.Note}}, nil
		},
		answer: objectOut(exceptionOut),
	})
}

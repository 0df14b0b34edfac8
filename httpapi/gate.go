package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
)

func (s *Server) gateRoutes() []route {
	return []route{
		{"POST /v1/campaigns/{pool}/preheat", "campaign_preheat", stockd.ScopeAdmin, s.preheatCampaign},
		{"GET /v1/campaigns/{pool}/reconciliation", "campaign_reconcile", stockd.ScopeAdmin, s.reconcileCampaign},
		{"GET /v1/gate/exceptions", "gate_exception_list", stockd.ScopeRead, s.listGateExceptions},
	}
}

// GateState is what the last preheat wrote to Redis and which positions
// the gate closed since.
type GateState = stockd.GateState

// GateException is a win the gate answered that the database refused.
type GateException = stockd.GateException

// GateExceptionList is a page of exceptions in reservation id order.
type GateExceptionList struct {
	Exceptions []GateException `json:"exceptions"`
	NextAfter  string          `json:"next_after,omitempty"`
}

// Reconciliation compares a gated campaign's Redis with the database.
type Reconciliation = gate.Report

func (s *Server) noGate() *stockd.Error {
	return stockd.Errorf(stockd.CodeUnprocessable, "this server runs without a gate (stockd serve --redis-url)")
}

func (s *Server) preheatCampaign(w http.ResponseWriter, r *http.Request) {
	var req emptyRequest
	s.mutate(w, r, mutation{
		body:         &req,
		bodyOptional: true,
		command: func() (stockd.Command, *stockd.Error) {
			pool, err := pathIdentifier(r, "pool")
			if err != nil {
				return stockd.Command{}, err
			}
			if s.gate == nil {
				return stockd.Command{}, s.noGate()
			}
			return stockd.Command{Op: &stockd.GatePreheat{Pool: pool}}, nil
		},
		submit: func(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
			if verr := cmd.Normalize(); verr != nil {
				return stockd.Result{Err: verr}, nil
			}
			return s.gate.Preheat(ctx, cmd)
		},
		answer: objectAnswer[GateState],
	})
}

func (s *Server) reconcileCampaign(w http.ResponseWriter, r *http.Request) {
	pool, verr := pathIdentifier(r, "pool")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if s.gate == nil {
		writeProblem(w, s.noGate())
		return
	}
	_, gated, err := s.gate.Pool(r.Context(), pool)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	if !gated {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "pool %q is no gated campaign", pool))
		return
	}
	rep, err := s.gate.Reconcile(r.Context(), pool)
	if errors.Is(err, gate.ErrUnavailable) {
		s.logger.Warn("gate: reconcile", "pool", pool, "err", err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, stockd.Errorf(stockd.CodeGateUnavailable, "the gate's Redis does not answer: retry later"))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (s *Server) listGateExceptions(w http.ResponseWriter, r *http.Request) {
	p, verr := documentPage(r.URL.Query(), stockd.DocGateException)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	list, next, err := listDocuments[GateException](s, r, p, nil)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, GateExceptionList{Exceptions: list, NextAfter: next})
}

// submitReservation sends a reservation naming a gated pool through the
// gate, and every other to the engine.
func (s *Server) submitReservation(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	r := cmd.Op.(*stockd.Reserve)
	if s.gate == nil || !namesPool(r) {
		return s.engine.Submit(ctx, cmd)
	}
	if verr := cmd.Normalize(); verr != nil {
		return stockd.Result{Err: verr}, nil
	}
	pool, gated, err := s.gate.Gated(ctx, r)
	if err != nil {
		return stockd.Result{}, err
	}
	if !gated {
		return s.engine.Submit(ctx, cmd)
	}
	return s.gate.Reserve(ctx, cmd, pool)
}

func namesPool(r *stockd.Reserve) bool {
	for _, l := range r.Lines {
		if l.Pool != "" && l.Pool != stockd.PoolDefault {
			return true
		}
	}
	return false
}

// submitTransition answers a retryable reservation_not_persisted for a
// gated win the persister has not yet written, before the engine could
// store a not_found under the caller's key. A reservation the database
// holds costs one read by id; only one it does not asks Redis.
func (s *Server) submitTransition(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	if s.gate == nil {
		return s.engine.Submit(ctx, cmd)
	}
	id := cmd.Op.(*stockd.Transition).ReservationID
	_, err := s.store.ReservationGet(ctx, id)
	if err == nil || !errors.Is(err, stockd.ErrNotFound) {
		if err != nil {
			return stockd.Result{}, err
		}
		return s.engine.Submit(ctx, cmd)
	}
	pending, err := s.gate.Pending(ctx, id)
	if errors.Is(err, gate.ErrUnavailable) {
		s.logger.Warn("gate: pending", "err", err)
		return stockd.Result{Err: stockd.Errorf(stockd.CodeGateUnavailable, "the gate's Redis does not answer: retry later with the same idempotency key")}, nil
	}
	if err != nil {
		return stockd.Result{}, err
	}
	if pending {
		return stockd.Result{Err: stockd.Errorf(stockd.CodeNotPersisted, "reservation %s is a win of the gate not yet in the database: retry shortly with the same idempotency key", id)}, nil
	}
	return s.engine.Submit(ctx, cmd)
}

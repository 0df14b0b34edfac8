package httpapi

import (
	"context"
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) adjustRoutes() []route {
	return []route{
		{"POST /v1/adjustments", "adjustment_create", stockd.ScopeStock, s.createAdjustment},
	}
}

// adjustmentRequest carries either Delta, or SetOnHand with
// ExpectedOnHand (compare-and-set for cycle counts); a Delta may carry
// ExpectedOnHand too, to apply only if on_hand is still what was seen.
type adjustmentRequest struct {
	SKU            string `json:"sku"`
	Location       string `json:"location,omitempty"`
	Pool           string `json:"pool,omitempty"`
	Reason         string `json:"reason"`
	Delta          *int64 `json:"delta,omitempty"`
	SetOnHand      *int64 `json:"set_on_hand,omitempty"`
	ExpectedOnHand *int64 `json:"expected_on_hand,omitempty"`
	Reference      string `json:"reference,omitempty"`
	// DiscrepancyID names the discrepancy the adjustment resolves.
	DiscrepancyID int64 `json:"discrepancy_id,omitempty"`
	// Counter is on_hand (the default) or, for a correction that always
	// waits for approval, reserved, committed, quarantined, in_transit or
	// incoming.
	Counter string `json:"counter,omitempty"`
	// Basis is a correction's free-text justification.
	Basis string `json:"basis,omitempty"`
}

func (s *Server) createAdjustment(w http.ResponseWriter, r *http.Request) {
	var req adjustmentRequest
	var adjust *stockd.Adjust
	s.mutate(w, r, mutation{
		check: func(ctx context.Context, keys []string) (*stockd.Error, error) {
			return s.checkDiscrepancy(ctx, keys, adjust)
		},
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			adjust = &stockd.Adjust{
				Position:      stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool},
				Reason:        req.Reason,
				Reference:     req.Reference,
				DiscrepancyID: req.DiscrepancyID,
				Counter:       req.Counter,
				Basis:         req.Basis,
			}
			if req.DiscrepancyID < 0 {
				return stockd.Command{}, stockd.InvalidField("discrepancy_id", "must be a positive integer")
			}
			// A correction of another counter is a delta: refused as bad
			// input here, before the shapes of on_hand below are weighed.
			if req.Counter != "" && req.Counter != stockd.CounterOnHand {
				switch {
				case req.SetOnHand != nil:
					return stockd.Command{}, stockd.InvalidField("set_on_hand", "a correction of %s is a delta: set_on_hand sets on_hand only", req.Counter)
				case req.ExpectedOnHand != nil:
					return stockd.Command{}, stockd.InvalidField("expected_on_hand", "a correction of %s is not conditional on on_hand", req.Counter)
				case req.Delta == nil:
					return stockd.Command{}, stockd.InvalidField("delta", "a correction of %s needs a delta", req.Counter)
				}
			}
			// Well-formed JSON that says two things, or nothing: 422, not a
			// guess at which one the caller meant.
			switch {
			case req.Delta != nil && req.SetOnHand != nil:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "give either delta, or set_on_hand with expected_on_hand, not both")
			case req.Delta != nil:
				adjust.Delta = *req.Delta
				if req.ExpectedOnHand != nil {
					adjust.Expect, adjust.ExpectedOnHand = true, *req.ExpectedOnHand
				}
			case req.SetOnHand != nil && req.ExpectedOnHand != nil:
				adjust.Set, adjust.SetOnHand, adjust.ExpectedOnHand = true, *req.SetOnHand, *req.ExpectedOnHand
			case req.SetOnHand != nil:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "set_on_hand needs expected_on_hand, the on_hand the count was taken against")
			case req.ExpectedOnHand != nil:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "expected_on_hand needs delta or set_on_hand")
			default:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "give delta, or set_on_hand with expected_on_hand")
			}
			// Normalized here, before check looks the discrepancy up: bad
			// input is 400 whatever discrepancy it names.
			cmd := stockd.Command{Op: adjust}
			if err := cmd.Normalize(); err != nil {
				return stockd.Command{}, err
			}
			return cmd, nil
		},
		answer: func(res stockd.Result) any {
			if res.Pending {
				return objectAnswer[Approval](res)
			}
			return positionOut(*res.Position)
		},
	})
}

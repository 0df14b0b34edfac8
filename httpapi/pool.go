package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) poolRoutes() []route {
	return []route{
		{"POST /v1/pools", "pool_create", stockd.ScopeAdmin, s.createPool},
		{"GET /v1/pools", "pool_list", stockd.ScopeRead, s.listPools},
		{"GET /v1/pools/{pool}", "pool_get", stockd.ScopeRead, s.getPool},
	}
}

// Pool is a pool other than normal: a channel's slice of stock, or a
// campaign's, sellable inside its window until it closes.
type Pool struct {
	Pool             string     `json:"pool"`
	Kind             string     `json:"kind"`
	Name             string     `json:"name,omitempty"`
	FallbackToNormal bool       `json:"fallback_to_normal,omitempty"`
	StartsAt         *time.Time `json:"starts_at,omitempty"`
	EndsAt           *time.Time `json:"ends_at,omitempty"`
	ClosedAt         *time.Time `json:"closed_at,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
	// Gate "redis" sends the campaign's reservations through the Redis
	// gate (serve --redis-url).
	Gate string `json:"gate,omitempty"`
	// PreheatLeadSeconds preheats the gate that long before starts_at.
	PreheatLeadSeconds int64 `json:"preheat_lead_seconds,omitempty"`
}

// PoolList is a page of pools in name order.
type PoolList struct {
	Pools []Pool `json:"pools"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

type poolRequest struct {
	Pool             string     `json:"pool"`
	Kind             string     `json:"kind"`
	Name             string     `json:"name,omitempty"`
	FallbackToNormal bool       `json:"fallback_to_normal,omitempty"`
	StartsAt         *time.Time `json:"starts_at,omitempty"`
	EndsAt           *time.Time `json:"ends_at,omitempty"`
	Gate             string     `json:"gate,omitempty"`
	// PreheatLeadSeconds is 0 to 86400.
	PreheatLeadSeconds int64 `json:"preheat_lead_seconds,omitempty"`
}

func (s *Server) createPool(w http.ResponseWriter, r *http.Request) {
	var req poolRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if req.Gate != "" && s.gate == nil {
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "gate %q needs a Redis: this server runs without one (stockd serve --redis-url)", req.Gate)
			}
			op := &stockd.PoolCreate{Pool: stockd.Pool{
				ID: req.Pool, Kind: req.Kind, Name: req.Name, FallbackToNormal: req.FallbackToNormal,
				StartsAt: req.StartsAt, EndsAt: req.EndsAt, Gate: req.Gate, PreheatLeadSeconds: req.PreheatLeadSeconds,
			}}
			return stockd.Command{Op: op}, nil
		},
		answer: objectAnswer[Pool],
	})
}

func (s *Server) getPool(w http.ResponseWriter, r *http.Request) {
	getDocument[Pool](s, w, r, stockd.DocPool, "pool")
}

func (s *Server) listPools(w http.ResponseWriter, r *http.Request) {
	p, verr := documentPage(r.URL.Query(), stockd.DocPool)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	pools, next, err := listDocuments[Pool](s, r, p, nil)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, PoolList{Pools: pools, NextAfter: next})
}

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// gateDrainPoll paces the reads of Check while the persister catches up.
const gateDrainPoll = 20 * time.Millisecond

// httpGateTarget is stockd's Redis gate over HTTP: a running server, or
// several replicas of one database, started with --redis-url. Each row's
// dataset is seeded as stockd-http seeds it, moved whole into a gated
// campaign pool and preheated; every reservation names the pool and its
// location, so the gate's script decides it and the servers' persisters
// write it to the database.
type httpGateTarget struct {
	h    *httpTarget
	pool string

	mu sync.Mutex
	// drained is how long, after the load ended, the servers' persisters
	// took to write the row's last win (GET /v1/stock/{sku}: every gated
	// position's in_flight at zero).
	drained time.Duration
}

func newHTTPGateTarget(urls, apiKey string) *httpGateTarget {
	return &httpGateTarget{h: newHTTPTarget(urls, apiKey, ConcurrencyMax)}
}

func (t *httpGateTarget) Name() string { return BaselineGate }

func (t *httpGateTarget) Setup(ctx context.Context, d *Dataset) error {
	if len(d.SKUs) > stockd.PoolPositionsMax {
		return fmt.Errorf("stockd-gate: %d SKUs, above the %d positions a campaign pool holds", len(d.SKUs), stockd.PoolPositionsMax)
	}
	if err := t.h.Setup(ctx, d); err != nil {
		return err
	}
	t.pool = d.Prefix + "-gate"
	now := time.Now().UTC()
	a, err := t.h.do(ctx, http.MethodPost, "/v1/pools", t.pool+"-create", map[string]any{
		"pool": t.pool, "kind": stockd.PoolCampaign, "gate": stockd.PoolGateRedis,
		"starts_at": now.Add(-time.Hour).Format(time.RFC3339), "ends_at": now.Add(24 * time.Hour).Format(time.RFC3339),
	})
	if err != nil {
		return err
	}
	if a.status != http.StatusCreated {
		return a.fail("create gated pool (serve --redis-url?)")
	}
	err = parallel(ctx, len(d.SKUs), seedWorkersMax, func(i int) error {
		a, err := t.h.do(ctx, http.MethodPost, "/v1/allocations", d.SKUs[i]+"-gate-allocate", map[string]any{
			"sku": d.SKUs[i], "location": stockd.LocationDefault, "to_pool": t.pool, "quantity": d.Stock,
		})
		if err != nil {
			return err
		}
		if a.status != http.StatusOK {
			return a.fail("allocate " + d.SKUs[i])
		}
		return nil
	})
	if err != nil {
		return err
	}
	if a, err = t.h.do(ctx, http.MethodPost, "/v1/campaigns/"+url.PathEscape(t.pool)+"/preheat", t.pool+"-preheat", nil); err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return a.fail("preheat")
	}
	return nil
}

type httpGateLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
}

func (t *httpGateTarget) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	body := struct {
		Lines      []httpGateLine `json:"lines"`
		TTLSeconds int64          `json:"ttl_seconds,omitempty"`
	}{Lines: make([]httpGateLine, len(req.Lines)), TTLSeconds: int64(req.TTL / time.Second)}
	for i, l := range req.Lines {
		body.Lines[i] = httpGateLine{SKU: t.h.names[l.SKU], Quantity: l.Quantity, Location: stockd.LocationDefault, Pool: t.pool}
	}
	a, err := t.h.do(ctx, http.MethodPost, "/v1/reservations", req.Key, body)
	if err != nil {
		return Outcome{}, err
	}
	return a.outcome("reserve")
}

// Check waits, bounded, until the servers persisted every win of the row
// (the gate section of GET /v1/stock/{sku} shows nothing in flight), then
// compares the books as stockd-http does.
func (t *httpGateTarget) Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error) {
	start := time.Now()
	for {
		var inFlight int64
		var mu sync.Mutex
		err := parallel(ctx, len(d.SKUs), checkWorkersMax, func(i int) error {
			a, err := t.h.do(ctx, http.MethodGet, "/v1/stock/"+url.PathEscape(d.SKUs[i]), "", nil)
			if err != nil {
				return err
			}
			if a.status != http.StatusOK {
				return a.fail("read stock of " + d.SKUs[i])
			}
			var views []struct {
				InFlight *int64 `json:"in_flight"`
			}
			if err := json.Unmarshal(a.body.Gate, &views); err != nil || len(views) == 0 {
				return fmt.Errorf("stock of %s has no gate section (%v)", d.SKUs[i], err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, g := range views {
				if g.InFlight == nil {
					inFlight++ // unavailable or not preheated: not known to be drained
					continue
				}
				inFlight += *g.InFlight
			}
			return nil
		})
		if err != nil {
			return CheckResult{}, err
		}
		if inFlight == 0 {
			break
		}
		if time.Since(start) > drainTimeout {
			return CheckResult{}, fmt.Errorf("stockd-gate: %d units still in flight after %s", inFlight, drainTimeout)
		}
		if err := sleepUntil(ctx, time.Now().Add(gateDrainPoll)); err != nil {
			return CheckResult{}, err
		}
	}
	t.mu.Lock()
	t.drained = time.Since(start)
	t.mu.Unlock()
	return t.h.Check(ctx, d, want)
}

func (t *httpGateTarget) persistDrain() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.drained
}

// Cleanup closes the row's campaign: its leftovers go back to normal and
// its gate shuts, so the servers' keeper and returner stop minding it.
func (t *httpGateTarget) Cleanup(ctx context.Context, d *Dataset) error {
	a, err := t.h.do(ctx, http.MethodPost, "/v1/campaigns/"+url.PathEscape(t.pool)+"/close", t.pool+"-close", nil)
	if err != nil {
		return err
	}
	if a.status != http.StatusOK {
		return a.fail("close the row's campaign")
	}
	return nil
}

func (t *httpGateTarget) Close() error { return t.h.Close() }

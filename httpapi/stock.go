package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/store"
)

func (s *Server) stockRoutes() []route {
	return []route{
		{"GET /v1/stock", "stock_list", stockd.ScopeRead, s.listStock},
		{"GET /v1/stock/{sku}", "stock_get", stockd.ScopeRead, s.getStock},
	}
}

// StockPosition is one position inside Stock.
type StockPosition struct {
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Balance
}

// Stock is every position of one SKU and their totals. Totals count every
// unit, except that totals.available is what any buyer can take now: the
// available stock of channel pools and of campaigns outside their window
// or closed is left out of it and listed in Apart, so that a storefront
// reading totals never advertises units it cannot sell.
type Stock struct {
	SKU       string          `json:"sku"`
	Positions []StockPosition `json:"positions"`
	Totals    Balance         `json:"totals"`
	Apart     []PoolApart     `json:"apart"`
}

// PoolApart is one pool's available stock that totals.available leaves
// out, and why (a stockd.PoolState*).
type PoolApart struct {
	Pool      string `json:"pool"`
	State     string `json:"state"`
	Available int64  `json:"available"`
}

// stockOut builds the answer; states holds the stockd.Pool.State of every
// pool other than normal that positions name.
func stockOut(sku string, positions []stockd.Position, states map[string]string) Stock {
	out := Stock{SKU: sku, Positions: make([]StockPosition, 0, len(positions)), Apart: []PoolApart{}}
	var total stockd.Counters
	apart := map[string]int64{}
	for _, p := range positions {
		out.Positions = append(out.Positions, StockPosition{Location: p.Location, Pool: p.Pool, Balance: balanceOut(p.Counters)})
		total = total.Add(p.Counters)
		if state := states[p.Pool]; p.Pool != stockd.PoolDefault && state != stockd.PoolStateOpen {
			apart[p.Pool] += p.Available()
		}
	}
	out.Totals = balanceOut(total)
	for _, pool := range slices.Sorted(maps.Keys(apart)) {
		out.Apart = append(out.Apart, PoolApart{Pool: pool, State: states[pool], Available: apart[pool]})
		out.Totals.Available -= apart[pool]
	}
	return out
}

// ReadStock is the stock answer of GET /v1/stock/{sku} without a bundle's
// availability: every position of sku and the totals, read as that
// endpoint reads them, so that another view of the same stock (the
// dashboard's) cannot disagree with it. The SKU is not checked to exist.
func ReadStock(ctx context.Context, st store.Store, sku string, now time.Time) (Stock, error) {
	positions, err := st.PositionListBySKU(ctx, sku)
	if err != nil {
		return Stock{}, err
	}
	return stockOfPositions(ctx, st, sku, positions, now)
}

// stockThen is the stock answer of ?as_of: the positions rebuilt as they
// stood at at, their pools' states as now.
func (s *Server) stockThen(r *http.Request, sku string, at time.Time) (Stock, error) {
	positions, err := s.store.PositionListBySKU(r.Context(), sku)
	if err != nil {
		return Stock{}, err
	}
	if positions, err = s.positionsAsOf(r, positions, at); err != nil {
		return Stock{}, err
	}
	return stockOfPositions(r.Context(), s.store, sku, positions, s.now())
}

func stockOfPositions(ctx context.Context, st store.Store, sku string, positions []stockd.Position, now time.Time) (Stock, error) {
	states, err := poolStates(ctx, st, positions, now)
	if err != nil {
		return Stock{}, err
	}
	return stockOut(sku, positions, states), nil
}

// poolStates reads the state of every pool other than normal that
// positions name. Pools are few per SKU; a missing document (stock
// received before pools were checked) is PoolStateNoRecord.
func poolStates(ctx context.Context, st store.Store, positions []stockd.Position, now time.Time) (map[string]string, error) {
	states := map[string]string{}
	for _, p := range positions {
		if _, seen := states[p.Pool]; seen || p.Pool == stockd.PoolDefault {
			continue
		}
		doc, err := st.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPool, ID: p.Pool})
		if errors.Is(err, stockd.ErrNotFound) {
			states[p.Pool] = stockd.PoolStateNoRecord
			continue
		}
		if err != nil {
			return nil, err
		}
		var pool stockd.Pool
		if err := json.Unmarshal(doc.Body, &pool); err != nil {
			return nil, fmt.Errorf("pool %s: %w", p.Pool, err)
		}
		states[p.Pool] = pool.State(now)
	}
	return states, nil
}

func (s *Server) getStock(w http.ResponseWriter, r *http.Request) {
	sku, verr := pathIdentifier(r, "sku")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	at, asOf, answered := stockAsOf(w, r, s.now())
	if answered || !s.skuExists(w, r, sku) || asOf && !s.asOfKept(w, r, at) {
		return
	}
	var stock Stock
	var err error
	if asOf {
		stock, err = s.stockThen(r, sku, at)
	} else {
		stock, err = ReadStock(r.Context(), s.store, sku, s.now())
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	b, isBundle, err := s.bundle(r.Context(), sku)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	if asOf {
		// A bundle holds no stock of its own; what its components made
		// then is theirs to ask as of that time. The gate has no past.
		writeJSON(w, http.StatusOK, stock)
		return
	}
	out := bundleStock{Stock: stock}
	if isBundle {
		avail, err := s.bundleAvailability(r.Context(), b)
		if err != nil {
			s.failure(w, r, err)
			return
		}
		out.Bundle = &avail
	}
	if out.Gate, err = s.gateStock(r.Context(), sku, stock.Positions); err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// bundleStock is the stock answer of GET /v1/stock/{sku}: for a bundle
// SKU its own positions (it holds no stock) and what its components make;
// for a SKU in gated campaigns, how the gate sells it now.
type bundleStock struct {
	Stock
	Bundle *BundleAvailability `json:"bundle,omitempty"`
	Gate   []GateStock         `json:"gate,omitempty"`
}

// GateStock is one position of a gated campaign as the gate's Redis holds
// it (source "redis"): during a sale it is ahead of the database's
// counters by the wins not yet persisted.
type GateStock = gate.PositionView

// gateReadTimeout bounds the Redis reads of a stock answer: past it the
// gate's positions answer unavailable and the database's numbers stand.
const gateReadTimeout = 500 * time.Millisecond

// gateStock reads the gate's view of every position of sku in a gated
// pool, nil when there is none or no gate.
func (s *Server) gateStock(ctx context.Context, sku string, positions []StockPosition) ([]GateStock, error) {
	if s.gate == nil {
		return nil, nil
	}
	var pools []string
	gated, locations := map[string]bool{}, map[string][]string{}
	for _, p := range positions {
		if p.Pool == stockd.PoolDefault {
			continue
		}
		isGated, seen := gated[p.Pool]
		if !seen {
			var err error
			if _, isGated, err = s.gate.Pool(ctx, p.Pool); err != nil {
				return nil, err
			}
			gated[p.Pool] = isGated
			if isGated {
				pools = append(pools, p.Pool)
			}
		}
		if isGated {
			locations[p.Pool] = append(locations[p.Pool], p.Location)
		}
	}
	if len(pools) == 0 {
		return nil, nil
	}
	read, cancel := context.WithTimeout(ctx, gateReadTimeout)
	defer cancel()
	var out []GateStock
	for _, pool := range pools {
		out = append(out, s.gate.View(read, pool, sku, locations[pool])...)
	}
	return out, nil
}

// skuExists reports whether sku exists; when it does not, or the store
// fails, it has answered the request.
func (s *Server) skuExists(w http.ResponseWriter, r *http.Request, sku string) bool {
	_, err := s.store.SKUGet(r.Context(), sku)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", sku))
		return false
	}
	if err != nil {
		s.failure(w, r, err)
		return false
	}
	return true
}

// StockList is one page of GET /v1/stock.
type StockList struct {
	Stock []Stock `json:"stock"`
	// NextAfter is the cursor of the next page (the last SKU looked at);
	// empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

// stockListFilter is what GET /v1/stock keeps of each SKU's stock.
type stockListFilter struct {
	location, pool string
	below          int64 // keep SKUs with totals.available below it; -1 keeps all
}

// listStock pages through SKUs by id and answers the stock of each, as
// GET /v1/stock/{sku} does, over the positions at location and in pool
// when given; below keeps only SKUs whose totals.available is under it.
// Filters apply within each page of SKUs, so a page may hold fewer than
// limit and still have a next one. Bundles hold no stock of their own and
// are left out: GET /v1/stock/{bundle} says what their components make.
func (s *Server) listStock(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, verr := documentPage(q, "")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	f, verr := stockFilterOf(q)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	skus, err := s.store.SKUList(r.Context(), page.After, page.Limit)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	ids := make([]string, 0, len(skus))
	for _, sku := range skus {
		if !sku.Bundle {
			ids = append(ids, sku.ID)
		}
	}
	positions, err := s.store.PositionListBySKUs(r.Context(), ids)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	bySKU := map[string][]stockd.Position{}
	for _, p := range positions {
		if (f.location == "" || p.Location == f.location) && (f.pool == "" || p.Pool == f.pool) {
			bySKU[p.SKU] = append(bySKU[p.SKU], p)
		}
	}
	states, err := poolStates(r.Context(), s.store, positions, s.now())
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := StockList{Stock: []Stock{}}
	for _, id := range ids {
		st := stockOut(id, bySKU[id], states)
		if f.below < 0 || st.Totals.Available < f.below {
			out.Stock = append(out.Stock, st)
		}
	}
	if len(skus) == page.Limit {
		out.NextAfter = skus[len(skus)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

func stockFilterOf(q url.Values) (stockListFilter, *stockd.Error) {
	f := stockListFilter{location: q.Get("location"), pool: q.Get("pool"), below: -1}
	for name, v := range map[string]string{"location": f.location, "pool": f.pool} {
		if q.Has(name) && !stockd.ValidIdentifier(v) {
			return f, stockd.InvalidField(name, "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
	}
	if q.Has("below") {
		below, err := strconv.ParseInt(q.Get("below"), 10, 64)
		if err != nil || below < 0 || below > stockd.CounterMax {
			return f, stockd.InvalidField("below", "must be an integer from 0 to %d", stockd.CounterMax)
		}
		f.below = below
	}
	return f, nil
}

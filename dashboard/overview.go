package dashboard

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/store"
)

const (
	// expiringSoonSpan is how far ahead the overview looks for pending
	// reservations about to lose their hold.
	expiringSoonSpan = 15 * time.Minute
	// expiringShownMax bounds the reservations the overview lists.
	expiringShownMax = 20
	// stockOutScanMax bounds the SKUs the overview reads stock of, to find
	// those near stock-out: one read each, in id order.
	stockOutScanMax = 50
	// nearStockOutUnits and nearStockOutShare decide "near": available at
	// most this many units, or at most this share of on hand.
	nearStockOutUnits = 5
	nearStockOutShare = 0.1
	// skuPageSize is the SKU list's page.
	skuPageSize = 50
)

type overviewPage struct {
	Rates rates
	// OpenAlerts counts open alerts up to a page of PageSizeMax (More
	// past it); Discrepancies the open discrepancies by kind.
	OpenAlerts        int
	OpenAlertsMore    bool
	Discrepancies     map[string]int64
	DiscrepanciesOpen int64
	Expiring          []stockd.Reservation
	ExpiringAt        time.Time
	Low               []lowStock
	Scanned           int
	ScanMax           int
}

type lowStock struct {
	SKU       string
	Available int64
	OnHand    int64
}

func (h *Handler) overview(w http.ResponseWriter, r *http.Request, v *visitor) {
	ctx := r.Context()
	now := h.now()
	page := overviewPage{Rates: h.rates.observe(), ExpiringAt: now.Add(expiringSoonSpan), ScanMax: stockOutScanMax}
	ids, err := h.store.ReservationListDue(ctx, page.ExpiringAt, expiringShownMax)
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	for _, id := range ids {
		res, err := h.store.ReservationGet(ctx, id)
		if err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
		page.Expiring = append(page.Expiring, res)
	}
	open, err := h.store.AlertList(ctx, store.AlertListParams{Status: stockd.AlertOpen, Limit: stockd.PageSizeMax})
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	page.OpenAlerts, page.OpenAlertsMore = len(open), len(open) == stockd.PageSizeMax
	if page.Discrepancies, err = h.store.DiscrepancyOpenCounts(ctx); err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	for _, n := range page.Discrepancies {
		page.DiscrepanciesOpen += n
	}
	skus, err := h.store.SKUList(ctx, "", stockOutScanMax)
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	page.Scanned = len(skus)
	for _, sku := range skus {
		if sku.Bundle {
			continue
		}
		stock, err := httpapi.ReadStock(ctx, h.store, sku.ID, now)
		if err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
		if len(stock.Positions) == 0 {
			continue // nothing ever received: not a stock-out, a SKU not yet stocked
		}
		t := stock.Totals
		if t.Available <= nearStockOutUnits || float64(t.Available) <= nearStockOutShare*float64(t.OnHand) {
			page.Low = append(page.Low, lowStock{SKU: sku.ID, Available: t.Available, OnHand: t.OnHand})
		}
	}
	h.render(w, r, v, http.StatusOK, "overview", page)
}

type skuListPage struct {
	Query     string
	SKUs      []stockd.SKU
	NextAfter string
}

// skuList pages through SKUs by id; a query keeps the ids starting with
// it (the ids are ordered, so the matches are one run from the query on).
func (h *Handler) skuList(w http.ResponseWriter, r *http.Request, v *visitor) {
	q := r.URL.Query()
	page := skuListPage{Query: strings.TrimSpace(q.Get("q"))}
	after := q.Get("after")
	if len(page.Query) > stockd.IdentifierLengthMax || len(after) > stockd.IdentifierLengthMax {
		h.fail(w, r, v, http.StatusBadRequest, "That search is longer than any SKU id.")
		return
	}
	if page.Query != "" && after == "" {
		// The query itself is the first id that can match; after is
		// exclusive, so ask for it on its own.
		sku, err := h.store.SKUGet(r.Context(), page.Query)
		switch {
		case err == nil:
			page.SKUs = append(page.SKUs, sku)
		case !isNotFound(err):
			h.storeFailed(w, r, v, err)
			return
		}
		after = page.Query
	}
	skus, err := h.store.SKUList(r.Context(), after, skuPageSize+1)
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	for _, sku := range skus {
		if !strings.HasPrefix(sku.ID, page.Query) {
			break
		}
		if len(page.SKUs) == skuPageSize {
			page.NextAfter = page.SKUs[len(page.SKUs)-1].ID
			break
		}
		page.SKUs = append(page.SKUs, sku)
	}
	h.render(w, r, v, http.StatusOK, "skus", page)
}

func isNotFound(err error) bool { return errors.Is(err, stockd.ErrNotFound) }

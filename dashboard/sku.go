package dashboard

import (
	"html/template"
	"net/http"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/store"
)

// ledgerPageSize is the SKU page's ledger page, and so also the most
// reservations it reads (those the page's entries name).
const ledgerPageSize = 50

type skuPage struct {
	SKU          stockd.SKU
	Stock        httpapi.Stock
	Chart        template.HTML
	Legend       []legendItem
	Ledger       []stockd.LedgerEntry
	LedgerAfter  int64
	NextAfter    int64
	Reservations []stockd.Reservation
	// Replenishment is nil for a bundle, which holds no stock to reorder.
	Replenishment *replenishment
}

func (h *Handler) skuPage(w http.ResponseWriter, r *http.Request, v *visitor) {
	ctx := r.Context()
	id := r.PathValue("sku")
	after, err := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	if r.URL.Query().Get("after") == "" {
		after, err = 0, nil
	}
	if err != nil || after < 0 {
		h.fail(w, r, v, http.StatusBadRequest, "The ledger cursor must be a sequence number.")
		return
	}
	sku, err := h.store.SKUGet(ctx, id)
	if isNotFound(err) {
		h.fail(w, r, v, http.StatusNotFound, "There is no SKU "+strconv.Quote(id)+".")
		return
	}
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	page := skuPage{SKU: sku, LedgerAfter: after}
	page.Stock, err = httpapi.ReadStock(ctx, h.store, id, h.now())
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	page.Chart, page.Legend = compositionChart(page.Stock), legendItems()
	if !sku.Bundle {
		if page.Replenishment, err = h.readReplenishment(ctx, id); err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
	}
	entries, err := h.store.LedgerList(ctx, store.LedgerListParams{SKU: id, After: after, Limit: ledgerPageSize + 1})
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	if len(entries) > ledgerPageSize {
		entries = entries[:ledgerPageSize]
		page.NextAfter = entries[len(entries)-1].Seq
	}
	page.Ledger = entries
	// No read lists a SKU's reservations; the ledger names those that
	// moved its stock, so the page shows the ones its entries name.
	seen := map[string]bool{}
	for _, e := range entries {
		if e.ReservationID == "" || seen[e.ReservationID] {
			continue
		}
		seen[e.ReservationID] = true
		res, err := h.store.ReservationGet(ctx, e.ReservationID)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
		page.Reservations = append(page.Reservations, res)
	}
	h.render(w, r, v, http.StatusOK, "sku", page)
}

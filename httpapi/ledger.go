package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func (s *Server) ledgerRoutes() []route {
	return []route{
		{"GET /v1/ledger", "ledger_list", stockd.ScopeRead, s.listLedger},
		{"GET /v1/events", "event_list", stockd.ScopeRead, s.listEvents},
	}
}

// LedgerEntry is one immutable change to one position; events are the same
// entries read as an outbox.
type LedgerEntry struct {
	Seq           int64     `json:"seq"`
	Type          string    `json:"type"`
	BusinessID    string    `json:"business_id"`
	SKU           string    `json:"sku"`
	Location      string    `json:"location"`
	Pool          string    `json:"pool"`
	Delta         Counters  `json:"delta"`
	After         Balance   `json:"after"`
	ReservationID string    `json:"reservation_id,omitempty"`
	Actor         string    `json:"actor,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	Approver      string    `json:"approver,omitempty"`
	Reference     string    `json:"reference,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
}

// LedgerPage is one page of GET /v1/ledger. NextAfter is the cursor for the
// next page: the last entry's seq, or the request's after when empty.
type LedgerPage struct {
	Entries   []LedgerEntry `json:"entries"`
	NextAfter int64         `json:"next_after"`
}

// EventPage is one page of GET /v1/events.
type EventPage struct {
	Events    []LedgerEntry `json:"events"`
	NextAfter int64         `json:"next_after"`
}

func ledgerEntryOut(e stockd.LedgerEntry) LedgerEntry {
	return LedgerEntry{
		Seq:           e.Seq,
		Type:          e.BusinessType,
		BusinessID:    e.BusinessID,
		SKU:           e.Position.SKU,
		Location:      e.Position.Location,
		Pool:          e.Position.Pool,
		Delta:         Counters(e.Delta),
		After:         balanceOut(e.After),
		ReservationID: e.ReservationID,
		Actor:         e.Actor,
		Reason:        e.Reason,
		Approver:      e.Approver,
		Reference:     e.Reference,
		CreatedAt:     e.CreatedAt.UTC(),
	}
}

func ledgerEntriesOut(entries []stockd.LedgerEntry) []LedgerEntry {
	out := make([]LedgerEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, ledgerEntryOut(e))
	}
	return out
}

func (s *Server) listLedger(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	params, verr := pageParams(q)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if q.Has("sku") {
		params.SKU = q.Get("sku")
		if !stockd.ValidIdentifier(params.SKU) {
			writeProblem(w, stockd.InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax))
			return
		}
		if !s.skuExists(w, r, params.SKU) {
			return
		}
	}
	entries, err := s.store.LedgerList(r.Context(), params)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, LedgerPage{Entries: ledgerEntriesOut(entries), NextAfter: nextAfter(entries, params.After)})
}

// listEvents reads the ledger as the outbox: every entry carries the
// position, the reservation, the deltas and the counters after.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) {
	params, verr := pageParams(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	entries, err := s.store.LedgerList(r.Context(), params)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, EventPage{Events: ledgerEntriesOut(entries), NextAfter: nextAfter(entries, params.After)})
}

// pageParams reads the cursor (after, default 0) and the page size (limit,
// default stockd.PageSizeDefault, at most stockd.PageSizeMax).
func pageParams(q url.Values) (store.LedgerListParams, *stockd.Error) {
	p := store.LedgerListParams{Limit: stockd.PageSizeDefault}
	if q.Has("after") {
		after, err := strconv.ParseInt(q.Get("after"), 10, 64)
		if err != nil || after < 0 {
			return p, stockd.InvalidField("after", "must be an integer of at least 0")
		}
		p.After = after
	}
	if q.Has("limit") {
		limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
		if err != nil || limit < 1 || limit > stockd.PageSizeMax {
			return p, stockd.InvalidField("limit", "must be an integer from 1 to %d", stockd.PageSizeMax)
		}
		p.Limit = int(limit)
	}
	return p, nil
}

// nextAfter is the cursor of the page after entries: the last seq read, or
// the same cursor when there was nothing new, so a poller can keep asking.
func nextAfter(entries []stockd.LedgerEntry, after int64) int64 {
	if len(entries) == 0 {
		return after
	}
	return entries[len(entries)-1].Seq
}

// MarshalEvent is one event as JSON in the form GET /v1/events lists it:
// the body the relay publishes, so that a consumer of the broker and a
// poller of the API read the same thing.
func MarshalEvent(e stockd.LedgerEntry) ([]byte, error) {
	return json.Marshal(ledgerEntryOut(e))
}

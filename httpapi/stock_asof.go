package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
)

// stockAsOf reads the as_of parameter of GET /v1/stock/{sku}: ok is false
// when it is absent, and a bad value has been answered.
func stockAsOf(w http.ResponseWriter, r *http.Request, now time.Time) (at time.Time, ok, answered bool) {
	q := r.URL.Query()
	if !q.Has("as_of") {
		return time.Time{}, false, false
	}
	at, err := time.Parse(time.RFC3339Nano, q.Get("as_of"))
	if err != nil {
		writeProblem(w, stockd.InvalidField("as_of", "must be an RFC 3339 time"))
		return time.Time{}, false, true
	}
	at, verr := stockd.NormalizeTime("as_of", at)
	if verr == nil && at.After(now) {
		verr = stockd.InvalidField("as_of", "must not lie in the future")
	}
	if verr != nil {
		writeProblem(w, verr)
		return time.Time{}, false, true
	}
	return at, true, false
}

// positionsAsOf replaces each position's counters with those of its last
// ledger entry at or before at, leaving out positions the ledger had not
// touched by then. It reads the ledger, not the snapshot: the books as
// they were booked.
func (s *Server) positionsAsOf(r *http.Request, positions []stockd.Position, at time.Time) ([]stockd.Position, error) {
	out := make([]stockd.Position, 0, len(positions))
	for _, p := range positions {
		e, ok, err := s.store.LedgerLastAsOf(r.Context(), p.PositionKey, at)
		if err != nil {
			return nil, err
		}
		if ok {
			p.Counters = e.After
			out = append(out, p)
		}
	}
	return out, nil
}

// asOfKept answers 400 as_of_archived, and false, when at lies before the
// ledger's archive cut: the entries that would answer it are in the
// archive's file, and what is left (a checkpoint at the cut) would answer
// a wrong number. At the cut itself the checkpoints are exact. The cut of
// an archive not yet finished counts: its deletes may be under way.
func (s *Server) asOfKept(w http.ResponseWriter, r *http.Request, at time.Time) bool {
	archives, err := s.store.LedgerArchiveList(r.Context())
	if err != nil {
		s.failure(w, r, err)
		return false
	}
	if cut, ok := archive.Cut(archives); ok && at.Before(cut) {
		cutText := cut.Format(time.RFC3339)
		writeProblem(w, &stockd.Error{Code: stockd.CodeAsOfArchived, Field: "as_of",
			Message: fmt.Sprintf("as_of: the ledger before %s is archived; ask at %s or later (at %s exactly, its checkpoints answer)", cutText, cutText, cutText)})
		return false
	}
	return true
}

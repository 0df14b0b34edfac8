package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) requestRoutes() []route {
	return []route{
		{"GET /v1/requests/{key}", "request_get", stockd.ScopeRead, s.getRequest},
	}
}

// Outcomes of a request sent under an idempotency key.
const (
	outcomeApplied = "applied" // its first answer was a success (200 or 201)
	outcomePending = "pending" // accepted, waiting for another party (202: an approval)
	outcomeRefused = "refused" // its first answer was a refusal (4xx), stored and replayed as such
)

// RequestOutcome says what became of the mutation sent under a key: a
// caller whose request timed out or lost its connection learns whether it
// was applied, refused (and why) or never seen (404) without sending it
// again, which a changed body would turn into idempotency_key_reused.
type RequestOutcome struct {
	Key     string `json:"key"`
	Outcome string `json:"outcome"`
	// Status is the HTTP status of the first answer, which a retry with
	// the same key and body replays.
	Status int `json:"status"`
	// Code is the refusal's code.
	Code      string    `json:"code,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	// Pruned is true once the answer is past the retention: the outcome,
	// status and code stay, the body is gone, and the same request again
	// is answer_pruned.
	Pruned bool `json:"pruned"`
}

func (s *Server) getRequest(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	if !stockd.ValidIdempotencyKey(key) {
		writeProblem(w, stockd.InvalidField("key", "must be 1-%d printable ASCII characters", stockd.IdempotencyKeyLengthMax))
		return
	}
	// The caller's own answer first, then one stored before keys were
	// scoped or while the server ran open (stockd.Command.LookupKeys).
	lookup := (&stockd.Command{IdempotencyKey: stockd.ScopedKey(actingKeyID(r), key)}).LookupKeys()
	records, err := s.store.IdempotencyGet(r.Context(), lookup)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	slices.SortFunc(records, func(a, b stockd.IdempotencyRecord) int {
		return slices.Index(lookup, a.Key) - slices.Index(lookup, b.Key)
	})
	if len(records) == 0 {
		// Never applied nor refused by a batch: a request whose caller gave
		// up before its batch formed is dropped, and is safe to send again.
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "no request under key %q was decided", key))
		return
	}
	writeJSON(w, http.StatusOK, requestOutcome(records[0]))
}

func requestOutcome(rec stockd.IdempotencyRecord) RequestOutcome {
	var res stockd.Result
	if err := json.Unmarshal(rec.Result, &res); err != nil {
		panic("httpapi: stored answer not decodable: " + err.Error())
	}
	out := RequestOutcome{Key: stockd.UnscopedKey(rec.Key), Outcome: outcomeApplied, Status: http.StatusOK, CreatedAt: rec.CreatedAt.UTC(), Pruned: rec.Pruned()}
	switch {
	case res.Err != nil:
		out.Outcome, out.Code, out.Status = outcomeRefused, res.Err.Code, statusOf(res.Err.Code)
	case res.Pending:
		out.Outcome, out.Status = outcomePending, http.StatusAccepted
	case res.Created:
		out.Status = http.StatusCreated
	}
	return out
}

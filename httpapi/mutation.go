package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/stockd/stockd"
)

// mutation is what one mutating endpoint supplies to mutate.
type mutation struct {
	// body is a pointer to the request struct the body decodes into.
	body any
	// bodyOptional accepts an empty body as the zero request.
	bodyOptional bool
	// command builds the command from the decoded body, refusing what the
	// domain cannot tell apart (a missing number, an explicit TTL of 0).
	command func() (stockd.Command, *stockd.Error)
	// answer renders a successful result.
	answer func(stockd.Result) any
	// observe, when set, sees every result the engine gave, refusals and
	// replays included, for metrics of the operation's own.
	observe func(stockd.Command, stockd.Result)
	// check, when set, refuses the command on what the store holds outside
	// the batch (a record the command names); it runs after command, with
	// the stored keys the request may be answered from (LookupKeys).
	check func(ctx context.Context, keys []string) (*stockd.Error, error)
	// submit, when set, decides the command instead of the engine (the
	// Redis gate); it receives the command before normalization.
	submit func(context.Context, stockd.Command) (stockd.Result, error)
	// headers, when set, adds headers of a successful result's answer (the
	// ETag of a settings change).
	headers func(http.Header, stockd.Result)
}

// objectOut renders an operation's answer (Result.Object, the domain's
// JSON of it) by decoding it into the domain type T and converting it with
// out. The answer is this process's own encoding, so a failure is a bug.
func objectOut[T any, W any](out func(T) W) func(stockd.Result) any {
	return func(res stockd.Result) any {
		var v T
		if err := json.Unmarshal(res.Object, &v); err != nil {
			panic("httpapi: operation answer not decodable: " + err.Error())
		}
		return out(v)
	}
}

// objectAnswer renders an operation's answer decoded straight into the
// wire type T, for answers whose wire shape mirrors the domain's.
func objectAnswer[T any](res stockd.Result) any {
	return objectOut(func(v T) T { return v })(res)
}

// mutateResource runs a mutation that only names the resource in the path
// parameter param and has no body of its own (absent or {}): closing,
// cancelling, approving.
func (s *Server) mutateResource(w http.ResponseWriter, r *http.Request, param string, op func(id string) stockd.Operation, answer func(stockd.Result) any) {
	var req emptyRequest
	s.mutate(w, r, mutation{
		body:         &req,
		bodyOptional: true,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, param)
			if err != nil {
				return stockd.Command{}, err
			}
			o := op(id)
			return stockd.Command{Op: o}, nil
		},
		answer: answer,
	})
}

// mutate runs the steps every mutation shares: the idempotency key, the
// actor, the strict body, the request fingerprint, the engine, and the
// answer. Each refusal before Submit writes nothing. A replay is rendered
// from the stored result exactly as the first answer was, so the caller
// gets the same status and the same bytes.
func (s *Server) mutate(w http.ResponseWriter, r *http.Request, m mutation) {
	key, err := idempotencyKey(r)
	if err != nil {
		writeProblem(w, err)
		return
	}
	actor, err := actor(r)
	if err != nil {
		writeProblem(w, err)
		return
	}
	var keyID string
	if key, ok := keyOf(r.Context()); ok {
		keyID = key.ID
		if actor == "" {
			actor = key.ID
		}
	}
	body, err := readBody(w, r)
	if err != nil {
		writeProblem(w, err)
		return
	}
	decode := decodeStrict
	if m.bodyOptional {
		decode = decodeOptional
	}
	if err := decode(body, m.body); err != nil {
		writeProblem(w, err)
		return
	}
	cmd, err := m.command()
	if err != nil {
		writeProblem(w, err)
		return
	}
	// Scoped to the API key: another key's request under the same
	// Idempotency-Key is its own (stockd.ScopedKey).
	cmd.IdempotencyKey = stockd.ScopedKey(keyID, key)
	if m.check != nil {
		verr, err := m.check(r.Context(), cmd.LookupKeys())
		if err != nil {
			s.failure(w, r, err)
			return
		}
		if verr != nil {
			writeProblem(w, verr)
			return
		}
	}
	cmd.RequestHash = requestHash(r, m.body)
	cmd.Actor = actor
	cmd.KeyID = keyID
	submit := s.engine.Submit
	if m.submit != nil {
		submit = m.submit
	}
	result, submitErr := submit(r.Context(), cmd)
	if submitErr != nil {
		s.failure(w, r, submitErr)
		return
	}
	if m.observe != nil {
		m.observe(cmd, result)
	}
	if result.Replayed {
		w.Header().Set(headerReplayed, "true")
	}
	if result.Err != nil {
		writeProblem(w, result.Err)
		return
	}
	status := http.StatusOK
	switch {
	case result.Pending:
		// Accepted, not applied: it waits for another party (an approval).
		status = http.StatusAccepted
	case result.Created:
		status = http.StatusCreated
	}
	if m.headers != nil {
		m.headers(w.Header(), result)
	}
	writeJSON(w, status, m.answer(result))
}

// emptyRequest is the body of the mutations that say nothing but their
// path (confirm, fulfil, and those mutateResource serves): nothing, or {}.
type emptyRequest struct{}

// mustDecodeObject decodes an operation's answer. The domain encoded it
// from the type decoded into, so a failure is a bug: the handler's panic
// becomes a logged 500.
func mustDecodeObject(object json.RawMessage, v any) {
	if err := json.Unmarshal(object, v); err != nil {
		panic(fmt.Sprintf("httpapi: operation answer not decodable: %v", err))
	}
}

package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// The reads of stored documents (stockd.Document), shared by the resources
// kept as documents: transfers, purchase orders, pools and approvals.

// answerDocument reads the document of kind named by the path value param
// into v for a GET, and reports whether it did; otherwise it has answered
// (what names the kind in a not_found answer).
func (s *Server) answerDocument(w http.ResponseWriter, r *http.Request, param, kind, what string, v any) bool {
	id, verr := pathIdentifier(r, param)
	if verr != nil {
		writeProblem(w, verr)
		return false
	}
	d, err := s.store.DocumentGet(r.Context(), stockd.DocKey{Kind: kind, ID: id})
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "%s %q not found", what, id))
		return false
	}
	if err == nil {
		err = json.Unmarshal(d.Body, v)
	}
	if err != nil {
		s.failure(w, r, err)
		return false
	}
	return true
}

// getDocument answers the document of kind named by the path value name,
// rendered as T.
func getDocument[T any](s *Server, w http.ResponseWriter, r *http.Request, kind, name string) {
	var v T
	if s.answerDocument(w, r, name, kind, kind, &v) {
		writeJSON(w, http.StatusOK, v)
	}
}

// documentPage reads the cursor (after: an id) and the page size (limit,
// default stockd.PageSizeDefault, at most stockd.PageSizeMax).
func documentPage(q url.Values, kind string) (store.DocumentListParams, *stockd.Error) {
	p := store.DocumentListParams{Kind: kind, Limit: stockd.PageSizeDefault}
	if q.Has("after") {
		p.After = q.Get("after")
		if !stockd.ValidIdentifier(p.After) {
			return p, stockd.InvalidField("after", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
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

// listDocuments reads one page of documents as T, keeping those keep
// accepts (all when nil), and returns the next cursor when the page was
// full.
func listDocuments[T any](s *Server, r *http.Request, p store.DocumentListParams, keep func(T) bool) ([]T, string, error) {
	docs, err := s.store.DocumentList(r.Context(), p)
	if err != nil {
		return nil, "", err
	}
	out := make([]T, 0, len(docs))
	for _, d := range docs {
		var v T
		if err := json.Unmarshal(d.Body, &v); err != nil {
			return nil, "", err
		}
		if keep == nil || keep(v) {
			out = append(out, v)
		}
	}
	next := ""
	if len(docs) == p.Limit {
		next = docs[len(docs)-1].ID
	}
	return out, next, nil
}

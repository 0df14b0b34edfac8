package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stockd/stockd/internal/testdb"
)

// TestUnmatchedAllowsRegisteredMethods: a path served only by methods
// other than GET and POST still answers 405 with every method it serves
// in Allow, and a path served by none answers 404.
func TestUnmatchedAllowsRegisteredMethods(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(1, "A")
		for _, c := range []struct {
			method, path string
			status       int
			allow        string
		}{
			{http.MethodDelete, "/v1/locations/default", http.StatusMethodNotAllowed, "GET, PATCH"},
			{http.MethodPut, "/v1/locations/default", http.StatusMethodNotAllowed, "GET, PATCH"},
			{http.MethodDelete, "/v1/skus/A", http.StatusMethodNotAllowed, "GET, PATCH"},
			{http.MethodPatch, "/v1/skus", http.StatusMethodNotAllowed, "GET, POST"},
			{http.MethodPatch, "/v1/locations", http.StatusMethodNotAllowed, "GET, POST"},
			{http.MethodDelete, "/v1/nowhere", http.StatusNotFound, ""},
		} {
			a := h.send(c.method, c.path, "", nil)
			p := a.problem(t)
			allow := strings.Join(a.header.Values("Allow"), ", ")
			want := CodeMethodNotAllowed
			if c.status == http.StatusNotFound {
				want = "not_found"
			}
			if a.status != c.status || p.Code != want || allow != c.allow {
				t.Errorf("%s %s: %d %s Allow %q, want %d %s Allow %q", c.method, c.path, a.status, p.Code, allow, c.status, want, c.allow)
			}
		}
	})
}

// TestUncleanPathIsNotFound: an empty id (a doubled slash) or a dot
// segment is a problem+json 404, not the mux's 307 to another path with
// an HTML body.
func TestUncleanPathIsNotFound(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		for _, c := range []struct{ method, path string }{
			{http.MethodPost, "/v1/reservations//confirm"},
			{http.MethodGet, "/v1/skus//"},
			{http.MethodGet, "/v1/skus/./A"},
			{http.MethodGet, "/v1/stock/../skus"},
		} {
			a := h.send(c.method, c.path, "", nil)
			if p := a.problem(t); a.status != http.StatusNotFound || p.Code != "not_found" {
				t.Errorf("%s %s: %d %+v, want 404 not_found", c.method, c.path, a.status, p)
			}
		}
	})
}

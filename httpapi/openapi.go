package httpapi

import (
	_ "embed"
	"net/http"
)

// openAPIDocument is the OpenAPI 3.1 description of this API. It lives in
// the repository as openapi.json and is checked against real answers by
// openapi_test.go.
//
//go:embed openapi.json
var openAPIDocument []byte

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	// A failed write means the caller is gone.
	_, _ = w.Write(openAPIDocument)
}

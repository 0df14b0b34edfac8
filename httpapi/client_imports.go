package httpapi

import (
	"context"
	"net/http"

	"github.com/stockd/stockd/csvimport"
)

// Import sends a CSV file of kind to POST /v1/imports/{kind}, as it is: the
// header kind.Header(), at most csvimport.LimitsHTTP. A file with bad lines
// is a *stockd.Error invalid_csv whose LineErrors name them (nothing was
// written); rows refused while applying are import_incomplete, naming
// them. Like every call it is retried after a 5xx: the server keys each
// row by the file's digest and line, so a retried file replays, whether
// the first attempt was applied, half applied or lost.
func (c *Client) Import(ctx context.Context, kind csvimport.Kind, file []byte) (ImportResult, error) {
	var out ImportResult
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/imports/" + string(kind), raw: file, contentType: "text/csv", out: &out})
	return out, err
}

package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/stockd/stockd"
)

// Compare-and-set on the settings endpoints: a GET answers the version of
// the settings document the engine locks for their changes as a strong
// ETag ("3"), and a PATCH with If-Match applies only if the settings are
// still at that version (412 precondition_failed otherwise), decided under
// that lock.
const (
	headerIfMatch = "If-Match"
	headerETag    = "ETag"
)

// ifMatch returns the version a request's If-Match names: nil without the
// header or with "*" (any current settings: the resource must exist, which
// the change checks anyway). One strong entity tag the server sent is
// understood; a weak one, a list or anything else is refused rather than
// guessed at, since a condition the server ignored would change what the
// caller meant to protect.
func ifMatch(r *http.Request) (*int64, *stockd.Error) {
	values := r.Header.Values(headerIfMatch)
	if len(values) == 0 {
		return nil, nil
	}
	v := strings.TrimSpace(values[0])
	if len(values) > 1 || strings.Contains(v, ",") {
		return nil, stockd.InvalidField(headerIfMatch, "must be one entity tag as ETag gave it, or *")
	}
	if v == "*" {
		return nil, nil
	}
	inner, ok := strings.CutPrefix(v, `"`)
	if ok {
		inner, ok = strings.CutSuffix(inner, `"`)
	}
	version, err := strconv.ParseInt(inner, 10, 64)
	if !ok || err != nil || version < 0 || strconv.FormatInt(version, 10) != inner {
		return nil, stockd.InvalidField(headerIfMatch, `must be a strong entity tag as ETag gave it ("3"), or *`)
	}
	return &version, nil
}

// etag is the ETag of settings at version.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// settingsVersion reads the version of the settings document named by
// kind and id: 0 for settings never changed. A GET reads it before the
// settings themselves, so that a change between the two reads makes the
// ETag older than the body, never newer: a PATCH under it is refused
// rather than applied over a change its caller did not see.
func (s *Server) settingsVersion(ctx context.Context, kind, id string) (int64, error) {
	d, err := s.store.DocumentGet(ctx, stockd.DocKey{Kind: kind, ID: id})
	if errors.Is(err, stockd.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return d.Version, nil
}

// versionHeader sets the ETag of a settings change's answer.
func versionHeader(h http.Header, res stockd.Result) {
	h.Set(headerETag, etag(res.Version))
}

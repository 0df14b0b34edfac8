// Package dashboard is stockd's web dashboard under /ui: server-rendered
// HTML with charts drawn by the server as inline SVG, no script and
// nothing fetched from elsewhere, so that it works on an air-gapped
// warehouse network and in the binary that `go run ./cmd/stockd serve`
// builds. It is a thin layer over the store, as httpapi is: it reads what
// the API reads (the stock composition through httpapi.ReadStock, so the
// two cannot disagree) and changes nothing itself.
//
// Visitors sign in with an API key; see session.go for the sessions and
// their CSRF tokens.
package dashboard

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// basePath is where the dashboard is mounted.
const basePath = "/ui"

const (
	// requestTimeout bounds the reads behind one page, as the API's
	// deadline bounds a request.
	requestTimeout = 5 * time.Second
	// keysCheckInterval is how often an open dashboard asks the store
	// whether a key exists yet.
	keysCheckInterval = 5 * time.Second
	// formBytesMax bounds a form body: the largest is a key.
	formBytesMax = 4 << 10
)

// Config configures a Handler. Zero values mean the documented default.
type Config struct {
	// Store serves every read. Required.
	Store store.Store
	// RequireKeys makes the dashboard need a key even while the store holds
	// none, as httpapi.Config.RequireKeys does for the API. Otherwise it is
	// open until the first key exists, as the API is.
	RequireKeys bool
	// Gatherer is where the overview reads the request metrics
	// (reservations per second, p99). May be nil: the overview then shows
	// counts from the store only.
	Gatherer prometheus.Gatherer
	// BusinessTimeZone decides the business days of the replenishment
	// figures, as httpapi.Config.BusinessTimeZone does. Defaults to UTC.
	BusinessTimeZone *time.Location
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time
}

// Handler serves the dashboard. It implements http.Handler.
type Handler struct {
	store       store.Store
	requireKeys bool
	zone        *time.Location
	logger      *slog.Logger
	now         func() time.Time
	sessions    *sessions
	signins     *bucket
	rates       *rateWindow
	pages       map[string]*template.Template
	mux         *http.ServeMux

	keysExist       atomic.Bool
	keysCheckedNano atomic.Int64
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

// New returns a Handler with every page registered.
func New(cfg Config) *Handler {
	if cfg.Store == nil {
		panic("dashboard: Config.Store is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BusinessTimeZone == nil {
		cfg.BusinessTimeZone = time.UTC
	}
	h := &Handler{
		store:       cfg.Store,
		requireKeys: cfg.RequireKeys,
		zone:        cfg.BusinessTimeZone,
		logger:      cfg.Logger,
		now:         cfg.Now,
		sessions:    newSessions(),
		signins:     newBucket(signinsPerSecond, signinsBurst),
		rates:       newRateWindow(cfg.Gatherer, cfg.Now),
		pages:       parsePages(),
		mux:         http.NewServeMux(),
	}
	h.mux.HandleFunc("GET /ui/{$}", h.read(h.overview))
	h.mux.HandleFunc("GET /ui/skus", h.read(h.skuList))
	h.mux.HandleFunc("GET /ui/sku/{sku}", h.read(h.skuPage))
	h.mux.HandleFunc("GET /ui/campaigns", h.read(h.campaigns))
	h.mux.HandleFunc("GET /ui/alerts", h.read(h.alerts))
	h.mux.HandleFunc("POST /ui/alerts/{id}/ack", h.read(h.csrf(h.ackAlert)))
	h.mux.HandleFunc("GET /ui/discrepancies", h.read(h.discrepancies))
	h.mux.HandleFunc("GET /ui/signin", h.visit(h.signinForm))
	h.mux.HandleFunc("POST /ui/signin", h.visit(h.csrf(h.signin)))
	h.mux.HandleFunc("POST /ui/signout", h.visit(h.csrf(h.signout)))
	h.mux.HandleFunc("GET /ui/static/style.css", serveStyle)
	h.mux.Handle("GET /ui", http.RedirectHandler(basePath+"/", http.StatusSeeOther))
	h.mux.HandleFunc("/ui/", h.visit(func(w http.ResponseWriter, r *http.Request, v *visitor) {
		h.fail(w, r, v, http.StatusNotFound, "There is no page at this address.")
	}))
	return h
}

// Mount serves the dashboard under /ui and everything else from api, so
// that the API keeps its own answers to every other path (its 404s and
// 405s as problems, no redirects).
func Mount(api http.Handler, ui *Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == basePath || strings.HasPrefix(r.URL.Path, basePath+"/") {
			ui.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}

// ServeHTTP serves one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// Nothing on a page comes from elsewhere, runs as script, or may be
	// framed (a framed page could be clicked through by another site).
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("Cache-Control", "no-store")
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	h.mux.ServeHTTP(w, r.WithContext(ctx))
}

func serveStyle(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = w.Write(styleCSS)
}

// visitor is who asks: its cookie value and CSRF token, and the key it
// signed in with (none in open mode).
type visitor struct {
	cookie   string
	CSRF     string
	SignedIn bool
	Open     bool
	Key      stockd.APIKey
}

// Can reports whether the visitor may take an action needing scope.
func (v *visitor) Can(scope stockd.Scope) bool { return v.Open || v.SignedIn && v.Key.Has(scope) }

type visitorHandler func(w http.ResponseWriter, r *http.Request, v *visitor)

// visit identifies the visitor, giving a new one its cookie, and checks a
// signed-in visitor's key is still live.
func (h *Handler) visit(next visitorHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		now := h.now()
		v := &visitor{cookie: cookieValue(r)}
		if v.cookie == "" {
			v.cookie = newCookieValue()
			setCookie(w, r, v.cookie)
		}
		v.CSRF = h.sessions.token(v.cookie)
		required, err := h.keysRequired(r.Context(), now)
		if err != nil {
			h.storeFailed(w, r, v, err)
			return
		}
		v.Open = !required
		if sess, ok := h.sessions.get(v.cookie, now); ok {
			live, err := h.stillLive(r.Context(), v.cookie, sess, now)
			if err != nil {
				h.storeFailed(w, r, v, err)
				return
			}
			if live {
				v.SignedIn, v.Key = true, sess.key
			}
		}
		next(w, r, v)
	}
}

// read serves a page that needs the read scope, sending a visitor who has
// not signed in to the sign-in form.
func (h *Handler) read(next visitorHandler) http.HandlerFunc {
	return h.visit(func(w http.ResponseWriter, r *http.Request, v *visitor) {
		if !v.Can(stockd.ScopeRead) {
			http.Redirect(w, r, basePath+"/signin", http.StatusSeeOther)
			return
		}
		next(w, r, v)
	})
}

// csrf refuses a form whose token is not the visitor's, or that another
// site's page sent. SameSite=Strict keeps the cookie off such requests
// already; the token holds where a browser does not honour it.
func (h *Handler) csrf(next visitorHandler) visitorHandler {
	return func(w http.ResponseWriter, r *http.Request, v *visitor) {
		r.Body = http.MaxBytesReader(w, r.Body, formBytesMax)
		if err := r.ParseForm(); err != nil {
			h.fail(w, r, v, http.StatusBadRequest, "The form could not be read.")
			return
		}
		if !h.sessions.validToken(cookieValue(r), r.PostForm.Get("csrf")) || crossSite(r) {
			h.fail(w, r, v, http.StatusForbidden, "This form was not sent from this dashboard's own page (its CSRF token is missing or stale). Reload the page and try again.")
			return
		}
		next(w, r, v)
	}
}

// crossSite reports whether the browser says the request came from
// another origin.
func crossSite(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return origin == "null"
	}
	_, host, _ := strings.Cut(origin, "://")
	return host != r.Host
}

// keysRequired reports whether visitors need a key: as the API, once a key
// exists, or always with RequireKeys.
func (h *Handler) keysRequired(ctx context.Context, now time.Time) (bool, error) {
	if h.requireKeys || h.keysExist.Load() {
		return true, nil
	}
	if now.UnixNano() < h.keysCheckedNano.Load() {
		return false, nil
	}
	n, err := h.store.KeyCount(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		h.keysExist.Store(true)
		return true, nil
	}
	h.keysCheckedNano.Store(now.Add(keysCheckInterval).UnixNano())
	return false, nil
}

// render writes page with data, or an error page if it fails.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, v *visitor, status int, page string, data any) {
	t, ok := h.pages[page]
	if !ok {
		panic("dashboard: no template " + page)
	}
	var buf strings.Builder
	if err := t.ExecuteTemplate(&buf, "layout", pageData{V: v, Page: data, Now: h.now().UTC()}); err != nil {
		h.logger.Error("dashboard page failed", "page", page, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}

// pageData is what every template receives.
type pageData struct {
	V    *visitor
	Page any
	Now  time.Time
}

type failurePage struct {
	Title   string
	Message string
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, v *visitor, status int, message string) {
	h.render(w, r, v, status, "error", failurePage{Title: http.StatusText(status), Message: message})
}

// storeFailed answers a failed read. No database text reaches the page.
func (h *Handler) storeFailed(w http.ResponseWriter, r *http.Request, v *visitor, err error) {
	h.logger.Warn("dashboard read failed", "path", r.URL.Path, "err", err)
	message := "The database did not answer; try again shortly."
	if errors.Is(err, context.DeadlineExceeded) {
		message = "The page took longer than its deadline to read; try again shortly."
	}
	h.fail(w, r, v, http.StatusServiceUnavailable, message)
}

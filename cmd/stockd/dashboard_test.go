package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// browserRequiredEnv makes the browser test fail, not skip, when no
// browser is found: CI sets it, so that a CI machine that lost Chromium
// does not pass by skipping.
const browserRequiredEnv = "STOCKD_TEST_BROWSER_REQUIRED"

// screenshotsEnv names the directory the browser test writes its
// screenshots to. Unset, they go to a temporary directory: a test run in
// any checkout must not rewrite the committed images.
const screenshotsEnv = "STOCKD_SCREENSHOTS_DIR"

// findBrowser returns the Chromium to drive, or skips (fails under CI).
func findBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv(browserRequiredEnv) != "" {
		t.Fatalf("no Chromium found on PATH and %s is set: install it (apt-get install -y chromium)", browserRequiredEnv)
	}
	t.Skipf("browser test skipped: no Chromium on PATH (apt-get install -y chromium; CI sets %s to fail instead)", browserRequiredEnv)
	return ""
}

// TestDashboardInBrowser drives Debian's Chromium through the dashboard of
// a real server (the serve wiring, on each database): it signs in with a
// key through the form, opens a SKU page, checks that every number of its
// stock composition equals GET /v1/stock/{sku}, sees a form POST without
// its CSRF token refused, signs out, and takes screenshots at 1280 px and
// at a phone's width.
func TestDashboardInBrowser(t *testing.T) {
	browser := findBrowser(t)
	for _, b := range testDatabases {
		t.Run(b.name, func(t *testing.T) {
			shots := ""
			if b.name == "sqlite" {
				shots = os.Getenv(screenshotsEnv)
			}
			if shots == "" {
				shots = t.TempDir()
			}
			testDashboard(t, browser, b.url(t), shots)
		})
	}
}

func testDashboard(t *testing.T, browser, dbURL, shots string) {
	m := &Main{
		Config: Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	// The key exists before the first request, so that the server and its
	// dashboard require keys from the start.
	keyID, secret := storeKey(t, m.store, "dashboard-test", "read", "stock", "reserve", "admin")
	base := "http://" + m.Addr()
	api := &apiCaller{t: t, base: base, secret: secret}
	seedStock(api)

	ctx := newBrowser(t, browser)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}
	location := func() string {
		t.Helper()
		url, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		return url
	}

	// Not signed in: the dashboard sends the visitor to the sign-in form.
	do("open /ui", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.ID("key")))
	if url := location(); !strings.HasSuffix(url, "/ui/signin") {
		t.Fatalf("a visitor without a session landed on %s, want the sign-in form", url)
	}
	// A wrong key is refused with the one message, and not shown back.
	do("sign in with a made-up key",
		chromedp.SendKeys(chromedp.ID("key"), stockd.APIKeyPrefix+strings.Repeat("a", 52)),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("signin-error")))
	keyValue, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("key")))
	if err != nil {
		t.Fatal(err)
	}
	if refused := text("#signin-error"); !strings.Contains(refused, "not a live API key") || keyValue != "" {
		t.Fatalf("made-up key: message %q, field %q", refused, keyValue)
	}
	do("sign in",
		chromedp.SendKeys(chromedp.ID("key"), secret),
		chromedp.Click(chromedp.ID("signin")),
		chromedp.WaitVisible(chromedp.ID("signout")))
	if heading := text("h1"); heading != "Overview" {
		t.Fatalf("after sign-in the page is %q, want Overview", heading)
	}
	html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("html")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, secret) {
		t.Fatal("the overview shows the key's secret")
	}
	do("screenshot the overview", screenshot(filepath.Join(shots, "overview-1280.png")))

	// The SKU page's numbers are the API's.
	do("open the SKU page", chromedp.Navigate(base+"/ui/sku/tee-M"), chromedp.WaitVisible(chromedp.ID("composition")))
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]shownRow](compositionJS))
	if err != nil {
		t.Fatalf("read the composition table: %v", err)
	}
	var stock stockAnswer
	api.get("/v1/stock/tee-M", &stock)
	checkComposition(t, shown, stock)
	var repl struct {
		SafetyStock  int64 `json:"safety_stock"`
		ReorderPoint int64 `json:"reorder_point"`
	}
	api.get("/v1/replenishment/tee-M", &repl)
	for field, want := range map[string]int64{"safety_stock": repl.SafetyStock, "reorder_point": repl.ReorderPoint} {
		if got := shownNumber(t, text(`#replenishment dd[data-field="`+field+`"]`)); got != want {
			t.Errorf("replenishment %s: page shows %d, GET /v1/replenishment says %d", field, got, want)
		}
	}
	do("screenshot the SKU page", screenshot(filepath.Join(shots, "sku-1280.png")))
	do("screenshot the SKU page at phone width",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)),
		chromedp.Navigate(base+"/ui/sku/tee-M"), chromedp.WaitVisible(chromedp.ID("composition")),
		screenshot(filepath.Join(shots, "sku-phone.png")),
		chromedp.EmulateViewport(1280, 900))
	do("open the campaigns", chromedp.Navigate(base+"/ui/campaigns"), chromedp.WaitVisible(chromedp.CSS(".campaign")),
		screenshot(filepath.Join(shots, "campaigns-1280.png")))
	if got := text(".campaign h2"); !strings.Contains(got, "black-friday") {
		t.Fatalf("campaign page shows %q, want black-friday", got)
	}

	// An alert acknowledged with a click is recorded as the API records it.
	alertID := openAlert(t, m.store, "mug")
	do("open the alerts", chromedp.Navigate(base+"/ui/alerts"), chromedp.WaitVisible(chromedp.ID(fmt.Sprintf("ack-%d", alertID))),
		screenshot(filepath.Join(shots, "alerts-1280.png")))
	do("acknowledge", chromedp.Click(chromedp.ID(fmt.Sprintf("ack-%d", alertID))), chromedp.WaitVisible(chromedp.ID("acked")))
	if got := text(fmt.Sprintf(`tr[data-alert="%d"] td.acked`, alertID)); !strings.Contains(got, keyID) {
		t.Fatalf("after the click the alert's row says %q, want acknowledged by %s", got, keyID)
	}
	var acked struct {
		AckedBy string `json:"acked_by"`
	}
	api.get(fmt.Sprintf("/v1/alerts/%d", alertID), &acked)
	if acked.AckedBy != keyID {
		t.Fatalf("GET /v1/alerts/%d: acked_by %q, want %s", alertID, acked.AckedBy, keyID)
	}
	do("open the discrepancies", chromedp.Navigate(base+"/ui/discrepancies"), chromedp.WaitVisible(chromedp.CSS("h1")))

	// A form sent without its CSRF token is refused, and changes nothing:
	// the session survives the forged sign-out.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('form[action="/ui/signout"] input[name=csrf]').remove(); true`)); err != nil {
		t.Fatalf("remove the token: %v", err)
	}
	do("sign out without the CSRF token", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("error")))
	if status := text("h1"); status != "Forbidden" {
		t.Fatalf("a sign-out without its token answered %q, want Forbidden", status)
	}
	do("still signed in", chromedp.Navigate(base+"/ui/"), chromedp.WaitVisible(chromedp.ID("signout")))

	do("sign out", chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.Navigate(base+"/ui/sku/tee-M"), chromedp.WaitVisible(chromedp.ID("key")))
	if url := location(); !strings.HasSuffix(url, "/ui/signin") {
		t.Fatalf("after sign-out the SKU page answered at %s, want the sign-in form", url)
	}
}

// newBrowser starts a headless Chromium with a fresh profile, stopped when
// t ends, with the flags that work on the CI machine.
func newBrowser(t *testing.T, path string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 45*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelBrowser(); cancelAlloc() })
	return ctx
}

func screenshot(path string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		// Quality 100 makes a PNG.
		png, err := chromedp.FullScreenshot(100)(ctx, target)
		if err != nil {
			return err
		}
		return os.WriteFile(path, png, 0o644)
	})
}

// compositionJS reads the composition table as a person sees it: each
// row's location and pool, and the text of each number cell.
const compositionJS = `[...document.querySelectorAll('#composition tr[data-location]')].map(tr => ({
  location: tr.dataset.location, pool: tr.dataset.pool,
  cells: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.field, td.textContent]))
}))`

type shownRow struct {
	Location string            `json:"location"`
	Pool     string            `json:"pool"`
	Cells    map[string]string `json:"cells"`
}

type balanceAnswer struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
	Available   int64 `json:"available"`
}

func (b balanceAnswer) fields() map[string]int64 {
	return map[string]int64{
		"on_hand": b.OnHand, "available": b.Available, "reserved": b.Reserved, "committed": b.Committed,
		"quarantined": b.Quarantined, "incoming": b.Incoming, "in_transit": b.InTransit,
	}
}

type stockAnswer struct {
	Positions []struct {
		Location string `json:"location"`
		Pool     string `json:"pool"`
		balanceAnswer
	} `json:"positions"`
	Totals balanceAnswer `json:"totals"`
}

// shownNumber reads a number as the page writes it: groups of three
// apart by narrow spaces, a minus sign for negatives.
func shownNumber(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.NewReplacer("\u202f", "", "−", "-", " ", "").Replace(strings.TrimSpace(s))
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("the page shows %q where a number belongs", s)
	}
	return n
}

func checkComposition(t *testing.T, shown []shownRow, stock stockAnswer) {
	t.Helper()
	want := map[string]map[string]int64{"/": stock.Totals.fields()}
	for _, p := range stock.Positions {
		want[p.Location+"/"+p.Pool] = p.fields()
	}
	if len(shown) != len(want) {
		t.Fatalf("the page shows %d rows, the API %d positions and totals", len(shown), len(want))
	}
	nonzero := map[string]bool{}
	for _, row := range shown {
		w, ok := want[row.Location+"/"+row.Pool]
		if !ok {
			t.Fatalf("the page shows %s/%s, which the API does not", row.Location, row.Pool)
		}
		if len(row.Cells) != len(w) {
			t.Fatalf("%s/%s shows %d numbers, want %d", row.Location, row.Pool, len(row.Cells), len(w))
		}
		for field, n := range w {
			if got := shownNumber(t, row.Cells[field]); got != n {
				t.Errorf("%s/%s %s: page shows %d, GET /v1/stock says %d", row.Location, row.Pool, field, got, n)
			}
			if n != 0 {
				nonzero[field] = true
			}
		}
	}
	// The seeded stock has every part of the composition, so that no
	// column is checked only as zero against zero.
	for _, field := range []string{"on_hand", "available", "reserved", "committed", "quarantined", "incoming", "in_transit"} {
		if !nonzero[field] {
			t.Errorf("the seeded stock has no %s: the check would not see a wrong one", field)
		}
	}
}

// storeKey stores a key with scopes and returns its id and secret.
func storeKey(t *testing.T, st store.Store, name string, scopes ...string) (string, string) {
	t.Helper()
	key, secret, hash, err := stockd.NewAPIKey(name, scopes, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.KeyCreate(context.Background(), store.KeyCreateParams{Key: key, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	return key.ID, secret
}

// apiCaller calls the API with a key.
type apiCaller struct {
	t      *testing.T
	base   string
	secret string
}

func (a *apiCaller) do(method, path, idempotencyKey, body string, out any) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.secret)
	req.Header.Set("Content-Type", "application/json")
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	if resp.StatusCode >= 300 {
		a.t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(out); err != nil {
			a.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

func (a *apiCaller) post(path, idempotencyKey, body string) map[string]any {
	a.t.Helper()
	var out map[string]any
	a.do("POST", path, idempotencyKey, body, &out)
	return out
}

func (a *apiCaller) get(path string, out any) {
	a.t.Helper()
	a.do("GET", path, "", "", out)
}

// seedStock gives tee-M every part of a composition: two locations, a
// campaign pool, holds pending and paid, units in quarantine, in transit
// and on order.
func seedStock(a *apiCaller) {
	from, until := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), time.Now().Add(50*time.Hour).UTC().Format(time.RFC3339)
	a.post("/v1/locations", "loc-east", `{"location":"east","name":"East warehouse","priority":1}`)
	a.post("/v1/skus", "sku-tee", `{"sku":"tee-M","name":"T-shirt M"}`)
	a.post("/v1/skus", "sku-mug", `{"sku":"mug","name":"Mug"}`)
	a.post("/v1/receipts", "rcv-tee-east", `{"sku":"tee-M","location":"east","quantity":120,"reference":"PO-17"}`)
	a.post("/v1/receipts", "rcv-tee-default", `{"sku":"tee-M","quantity":40,"reference":"PO-18"}`)
	a.post("/v1/receipts", "rcv-mug", `{"sku":"mug","location":"east","quantity":4}`)
	a.post("/v1/pools", "pool-bf", `{"pool":"black-friday","kind":"campaign","starts_at":"`+from+`","ends_at":"`+until+`"}`)
	a.post("/v1/allocations", "alloc-bf", `{"sku":"tee-M","location":"east","to_pool":"black-friday","quantity":30}`)
	pending := a.post("/v1/reservations", "order-1", `{"lines":[{"sku":"tee-M","quantity":7}],"ttl_seconds":600}`)
	paid := a.post("/v1/reservations", "order-2", `{"lines":[{"sku":"tee-M","quantity":5}],"ttl_seconds":600}`)
	a.post(fmt.Sprintf("/v1/reservations/%s/confirm", paid["id"]), "pay-2", `{}`)
	campaign := a.post("/v1/reservations", "order-3", `{"lines":[{"sku":"tee-M","quantity":4,"pool":"black-friday"}],"ttl_seconds":600}`)
	a.post(fmt.Sprintf("/v1/reservations/%s/confirm", campaign["id"]), "pay-3", `{}`)
	a.post("/v1/moves", "move-damaged", `{"sku":"tee-M","location":"east","from":"available","to":"quarantined","quantity":3,"reference":"damaged on arrival"}`)
	a.post("/v1/transfers", "xfer-1", `{"sku":"tee-M","from_location":"east","to_location":"default","quantity":6}`)
	// Four weeks of past demand, for the replenishment chart.
	var rows []string
	for day := 28; day >= 1; day-- {
		date := time.Now().UTC().AddDate(0, 0, -day).Format("2006-01-02")
		rows = append(rows, fmt.Sprintf(`{"sku":"tee-M","date":"%s","quantity":%d}`, date, 3+(day*7)%5))
	}
	a.do("POST", "/v1/demand-history", "", `{"rows":[`+strings.Join(rows, ",")+`]}`, nil)
	expected := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
	a.post("/v1/purchase-orders", "po-1", `{"supplier":"Acme Textiles","expected_at":"`+expected+`","lines":[{"sku":"tee-M","location":"east","quantity":60}]}`)
	_ = pending
}

// openAlert returns the id of the open alert of sku: the one the server's
// alert worker opened, or, when it has not got to it yet, one stored as
// it would store it.
func openAlert(t *testing.T, st store.Store, sku string) int64 {
	t.Helper()
	for range 2 {
		if a, err := st.AlertOpenGet(context.Background(), sku); err == nil {
			return a.ID
		} else if !errors.Is(err, stockd.ErrNotFound) {
			t.Fatal(err)
		}
		id, err := storeAlert(st, sku)
		if err == nil {
			return id
		}
		if !errors.Is(err, stockd.ErrAlertChanged) {
			t.Fatalf("store an alert: %v", err)
		}
		// The worker opened one in between: read it.
	}
	t.Fatalf("no open alert of %s", sku)
	return 0
}

func storeAlert(st store.Store, sku string) (int64, error) {
	now := time.Now().UTC()
	res, err := st.AlertWrite(context.Background(), store.AlertWriteParams{Save: &stockd.Alert{
		SKU: sku, Condition: "critical", Level: "critical", Status: stockd.AlertOpen,
		Figures:  stockd.AlertFigures{InventoryPosition: 4, SafetyStock: 6, ReorderPoint: 9, AlertLine: 9, SuggestedQuantity: 20, DemandMeanDaily: 1.5, LeadTimeDays: 3, Source: "history", Reason: "inventory position 4 at or below the safety stock 6"},
		History:  []stockd.AlertStep{{At: now, Event: "opened", Level: "critical"}},
		OpenedAt: now, ChangedAt: now, EvaluatedAt: now,
	}})
	return res.Saved.ID, err
}

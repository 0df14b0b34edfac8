package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stockd/stockd/internal/testdb"
)

// TestHealthRelay: with a relay, /healthz carries its state and lag, and
// a lagging or failing relay leaves the server healthy.
func TestHealthRelay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		relay := &RelayHealth{State: "failing", Cursor: 7, LagEvents: 12, LagSeconds: 3.5, Error: "relay: nats down"}
		h := newHarness(t, b, func(c *Config) { c.RelayHealth = func() *RelayHealth { return relay } })
		a := h.send("GET", "/healthz", "", nil)
		var got Health
		if err := json.Unmarshal(a.body, &got); err != nil {
			t.Fatal(err)
		}
		if a.status != http.StatusOK || got.Status != "ok" || got.Relay == nil || *got.Relay != *relay {
			t.Fatalf("healthz = %d %s; want ok with relay %+v", a.status, a.body, relay)
		}
	})
}

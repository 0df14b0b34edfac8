package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// promtoolRequiredEnv makes TestMetricsExposed fail rather than skip its
// lint when promtool is missing (CI installs it).
const promtoolRequiredEnv = "STOCKD_TEST_PROMTOOL"

// TestMetricsExposed runs a server on each database, sends the requests
// whose outcomes the metrics tell apart, and checks that /metrics carries
// every series the shipped alert rules and dashboard name, the pool's
// among them, and that promtool finds nothing to lint.
func TestMetricsExposed(t *testing.T) {
	pools := map[string]string{
		"sqlite":   `go_sql_open_connections{db_name="sqlite_writer"}`,
		"postgres": `stockd_db_pool_connections{state="acquired"}`,
	}
	for _, c := range testDatabases {
		t.Run(c.name, func(t *testing.T) {
			d := startDrillServer(t, c.url(t))
			d.must("POST", "/v1/skus", "sku", `{"sku":"A"}`, 201)
			d.must("POST", "/v1/receipts", "rcv", `{"sku":"A","quantity":2}`, 200)
			d.must("POST", "/v1/reservations", "won", `{"lines":[{"sku":"A","quantity":2}]}`, 201)
			d.must("POST", "/v1/reservations", "won", `{"lines":[{"sku":"A","quantity":2}]}`, 201)
			d.must("POST", "/v1/reservations", "won", `{"lines":[{"sku":"A","quantity":1}]}`, 422)
			d.must("POST", "/v1/reservations", "short", `{"lines":[{"sku":"A","quantity":1}]}`, 409)
			exposed := d.must("GET", "/metrics", "", "", 200).body
			if !strings.Contains(exposed, pools[c.name]) {
				t.Errorf("no %s in /metrics", pools[c.name])
			}
			for _, want := range []string{
				`stockd_reservations_total{outcome="won",pool="normal"} 1`,
				`stockd_reservations_total{outcome="replayed",pool="normal"} 1`,
				`stockd_reservations_total{outcome="insufficient",pool="normal"} 1`,
				`stockd_idempotent_replays_total{operation="reservation_create"} 1`,
				`stockd_idempotency_key_conflicts_total{operation="reservation_create"} 1`,
				`stockd_database_refusals_total 0`,
				`stockd_batch_retries_total{cause="split"} 0`,
				`stockd_batch_retries_total{cause="panic"} 0`,
				`stockd_alerts_open{level="stockout"} 0`,
				`stockd_alerts_open{level="other"} 0`,
			} {
				if !strings.Contains(exposed, want+"\n") {
					t.Errorf("/metrics lacks %s", want)
				}
			}
			for _, name := range shippedSeries(t) {
				// The pool's series are PostgreSQL's. The relay's, the
				// reconciliation's, the alert worker's and the webhooks' exist
				// once those workers run, which this server does not start;
				// their packages' tests check them (the gate's:
				// TestServeGateEndToEnd).
				if strings.HasPrefix(name, "stockd_db_pool_") && c.name != "postgres" || workerSeries(name) {
					continue
				}
				if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).MatchString(exposed) {
					t.Errorf("%s is named by deploy/ but not exposed", name)
				}
			}
			lint(t, exposed)
		})
	}
}

// shippedSeries are the series the alert rules and the dashboard query.
func shippedSeries(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, f := range []string{"../../deploy/prometheus/alerts.yml", "../../deploy/grafana/stockd.json"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range regexp.MustCompile(`stockd_[a-z_]+`).FindAllString(string(b), -1) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("only %d series found in deploy/: %v", len(names), names)
	}
	return names
}

// lint runs promtool check metrics over the exposition.
func lint(t *testing.T, exposed string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv(promtoolRequiredEnv) != "" {
			t.Fatalf("promtool not found and %s is set", promtoolRequiredEnv)
		}
		t.Log("promtool not found (apt-get install prometheus): metrics lint skipped")
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(exposed)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// workerSeries reports whether name belongs to a worker serve starts only
// when configured.
func workerSeries(name string) bool {
	for _, prefix := range []string{"stockd_relay_", "stockd_discrepancies_", "stockd_reconcile_", "stockd_alert_", "stockd_webhook_", "stockd_gate_"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

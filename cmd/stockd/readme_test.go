package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadmeWalkthrough runs the README's walk-through, as a reader would
// paste it, against a fresh server: every step must succeed and the
// answers the README shows must come out. It needs bash, curl and jq,
// which .ci/run installs.
func TestReadmeWalkthrough(t *testing.T) {
	_, out := runReadmeBlock(t, "## A walk-through")
	for _, want := range []string{
		`{"from":30,"to":20}`, "\n30\n", "Idempotent-Replayed: true", `{"outcome":"applied","status":201}`,
		"\nconfirmed\n", "\nfulfilled\n",
		`{"rows":29}`, `{"source":"history","mean_daily":2.966666666666667,"safety_stock":5,"reorder_point":30,`,
		`{"level":"critical","reason":"available 30 ≤ red line 40"}`, "\nacknowledged\n",
		"\nconfirmed\n", "\nfulfilled\n", "\nduplicate_order\ntrue\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the walk-through's output lacks %q:\n%s", want, out)
		}
	}
}

// runReadmeBlock runs the first sh block after heading in README.md, as a
// reader would paste it, against a fresh server on SQLite, in a directory
// of its own, and returns the block and what it printed. It skips when
// bash, curl or jq is missing (.ci/run installs them) and fails the test
// when the block fails.
func runReadmeBlock(t *testing.T, heading string) (script, out string) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("README block %q skipped: %s is not installed", heading, tool)
		}
	}
	script = readmeBlock(t, heading)
	m := &Main{
		Config: Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "stockd.db"), Addr: "127.0.0.1:0",
			ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info"},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "S=http://"+m.Addr())
	raw, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README block %q failed: %v\n%s", heading, err, raw)
	}
	return script, string(raw)
}

// readmeBlock returns the first sh code block after heading in README.md.
func readmeBlock(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(raw), heading)
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatalf("no sh block after %q", heading)
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatalf("the sh block after %q does not end", heading)
	}
	return block
}

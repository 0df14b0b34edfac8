package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockd/stockd/bench"
)

// run executes the command with args and returns its stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

func TestFreshRefusesADatabaseURL(t *testing.T) {
	_, err := run(t, "--fresh", "--database-url", "sqlite://"+filepath.Join(t.TempDir(), "x.db"))
	if err == nil || !strings.Contains(err.Error(), "--fresh makes its own SQLite file") {
		t.Fatalf("err = %v, want the --fresh refusal", err)
	}
}

func TestRefusesArguments(t *testing.T) {
	if _, err := run(t, "hot"); err == nil {
		t.Fatal("a positional argument was accepted")
	}
}

// TestTinyRun: the flags reach bench.Run, the table reaches stdout and the
// report reaches --json.
func TestTinyRun(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	out, err := run(t, "--scenarios", "hot", "--duration", "200ms", "--concurrency", "2",
		"--baselines", "none", "--no-progress", "--warmup", "-1s", "--json", jsonPath)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "stockd-engine") {
		t.Fatalf("table has no stockd-engine row:\n%s", out)
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("decode report: %v", err)
	}
	if len(rep.Rows) != 1 || rep.Failed() {
		t.Fatalf("report = %d rows, failed %v; want one clean row", len(rep.Rows), rep.Failed())
	}
}

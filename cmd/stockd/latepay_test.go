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

// TestReadmeLatePayment runs the README's late payment block against a
// real server: a late confirm re-reserved, another recorded as an
// exception and resolved.
func TestReadmeLatePayment(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("README late payment block skipped: %s is not installed", tool)
		}
	}
	script := readmeBlock(t, "## A late payment, both ways")
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
	cmd.Env = append(os.Environ(), "S=http://"+m.Addr())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the block failed: %v\n%s", err, out)
	}
	for _, want := range []string{`{"status":"confirmed","re_reserved":true}`, `{"status":409,"code":"reservation_expired"}`, "\n1\n",
		`{"status":"resolved","note":"refunded psp-982"}`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the block's output lacks %q:\n%s", want, out)
		}
	}
}

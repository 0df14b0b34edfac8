package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCommand runs the stockd command line with args and returns its
// stdout.
func runCommand(t *testing.T, args ...string) string {
	t.Helper()
	var out, notes bytes.Buffer
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&notes)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Fatalf("stockd %s: %v\n%s", strings.Join(args, " "), err, notes.String())
	}
	return out.String()
}

func testMain(dbURL, addr string, log io.Writer) *Main {
	return &Main{
		Config: Config{DatabaseURL: dbURL, Addr: addr, ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info"},
		Logger: slog.New(slog.NewTextHandler(log, nil)),
	}
}

// TestServeRefusesOpenNonLoopback checks that serve will not listen beyond
// loopback while no key exists, and will once one does.
func TestServeRefusesOpenNonLoopback(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	m := testMain(dbURL, "0.0.0.0:0", io.Discard)
	err := m.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refusing to listen on 0.0.0.0:0 with no API keys") {
		m.Close()
		t.Fatalf("run on 0.0.0.0 without keys: %v, want a refusal", err)
	}
	if m.Addr() != "" {
		t.Fatalf("listening on %s after refusing", m.Addr())
	}

	secret := strings.TrimSpace(runCommand(t, "keys", "create", "--database-url", dbURL, "--name", "admin", "--scopes", "admin,read"))
	m = testMain(dbURL, "0.0.0.0:0", io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run on 0.0.0.0 with a key: %v", err)
	}
	defer m.Close()
	url := "http://" + strings.Replace(m.Addr(), "0.0.0.0", "127.0.0.1", 1) + "/v1/locations"
	for _, c := range []struct {
		secret string
		want   int
	}{{"", http.StatusUnauthorized}, {secret, http.StatusOK}} {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.secret != "" {
			req.Header.Set("Authorization", "Bearer "+c.secret)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("GET /v1/locations with key %q: %d, want %d", c.secret, resp.StatusCode, c.want)
		}
	}
}

// TestServeOpenOnLoopbackSaysSo checks that serve on loopback without keys
// runs open and warns about it in its log.
func TestServeOpenOnLoopbackSaysSo(t *testing.T) {
	var log bytes.Buffer
	m := testMain("sqlite://"+filepath.Join(t.TempDir(), "stockd.db"), "127.0.0.1:0", &log)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "WITHOUT authentication") {
		t.Fatalf("log does not warn that the server is open:\n%s", log.String())
	}
}

// TestKeysCommands creates, lists and revokes a key from the command line.
func TestKeysCommands(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	secret := strings.TrimSpace(runCommand(t, "keys", "create", "--database-url", dbURL, "--name", "orders", "--scopes", "reserve,read"))
	if !strings.HasPrefix(secret, "sk_") || len(secret) != 55 {
		t.Fatalf("keys create printed %q, want the secret alone", secret)
	}
	list := runCommand(t, "keys", "list", "--database-url", dbURL)
	if !strings.Contains(list, "orders") || !strings.Contains(list, secret[:11]) || strings.Contains(list, secret) || !strings.Contains(list, "read,reserve") {
		t.Fatalf("keys list printed\n%s\nwant orders, its prefix and scopes, never its secret", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]
	if out := runCommand(t, "keys", "revoke", "--database-url", dbURL, id); !strings.Contains(out, "revoked key "+id) {
		t.Fatalf("keys revoke printed %q", out)
	}
	if fields := strings.Fields(strings.Split(runCommand(t, "keys", "list", "--database-url", dbURL), "\n")[1]); fields[len(fields)-1] == "-" {
		t.Fatalf("the key is not shown revoked: %v", fields)
	}
	root := newRootCommand()
	root.SetArgs([]string{"keys", "create", "--database-url", dbURL, "--name", "bad", "--scopes", "read,write"})
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	if err := root.ExecuteContext(context.Background()); err == nil || !strings.Contains(err.Error(), "write") {
		t.Fatalf("an unknown scope was accepted: %v", err)
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.2:1": true, "[::1]:8080": true, "localhost:8080": true,
		"0.0.0.0:8080": false, ":8080": false, "[::]:8080": false, "10.0.0.7:8080": false, "stockd.internal:8080": false,
	} {
		got, err := loopback(addr)
		if err != nil || got != want {
			t.Errorf("loopback(%q) = %v, %v; want %v", addr, got, err, want)
		}
	}
	if _, err := loopback("127.0.0.1"); err == nil {
		t.Error("an address without a port was accepted")
	}
}

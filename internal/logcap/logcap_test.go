package logcap

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestHandlerCapsRepeatedMessages(t *testing.T) {
	var buf bytes.Buffer
	h := New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), Config{Window: time.Hour, PerWindow: 3})
	log := slog.New(h).With("component", "engine")
	for i := range 100 {
		log.Error("batch failed", "i", i)
		log.Info("served", "i", i) // below the capped level: all pass
	}
	log.Warn("another message")
	h.Close()

	got := map[string]int{}
	var summary map[string]any
	for _, r := range records(t, &buf) {
		got[r["msg"].(string)]++
		if r["msg"] == "batch failed (repeated)" {
			summary = r
		}
	}
	want := map[string]int{"batch failed": 3, "served": 100, "another message": 1, "batch failed (repeated)": 1}
	for msg, n := range want {
		if got[msg] != n {
			t.Errorf("%q logged %d times, want %d (all: %v)", msg, got[msg], n, got)
		}
	}
	if summary == nil || summary["suppressed"] != float64(97) || summary["level"] != "ERROR" {
		t.Errorf("summary %v, want 97 suppressed at ERROR", summary)
	}
}

func TestHandlerStartsANewWindow(t *testing.T) {
	var buf bytes.Buffer
	h := New(slog.NewJSONHandler(&buf, nil), Config{Window: time.Hour, PerWindow: 1})
	defer h.Close()
	log := slog.New(h)
	log.Error("down")
	log.Error("down")
	h.state.flush(time.Now())
	log.Error("down")
	var msgs []string
	for _, r := range records(t, &buf) {
		msgs = append(msgs, r["msg"].(string))
	}
	if strings.Join(msgs, ",") != "down,down (repeated),down" {
		t.Errorf("logged %v, want the first, a summary of one, then the first of the next window", msgs)
	}
}

func TestHandlerAfterClosePassesEverything(t *testing.T) {
	var buf bytes.Buffer
	h := New(slog.NewJSONHandler(&buf, nil), Config{PerWindow: 1})
	h.Close()
	for range 3 {
		if err := h.Handle(context.Background(), slog.NewRecord(time.Now(), slog.LevelError, "late", 0)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(records(t, &buf)); n != 3 {
		t.Errorf("%d records after Close, want 3", n)
	}
}

package stockd

import (
	"testing"
	"time"
)

func TestValidIdempotencyRetention(t *testing.T) {
	for _, c := range []struct {
		retention time.Duration
		want      bool
	}{
		{0, true}, // keeps every answer
		{-time.Hour, false},
		{time.Hour, false},
		{IdempotencyRetentionMin - time.Second, false},
		{IdempotencyRetentionMin, true},
		{IdempotencyRetentionDefault, true},
		{IdempotencyRetentionMax, true},
		{IdempotencyRetentionMax + time.Second, false},
	} {
		if got := ValidIdempotencyRetention(c.retention); got != c.want {
			t.Errorf("ValidIdempotencyRetention(%v) = %v, want %v", c.retention, got, c.want)
		}
	}
}

func TestPruneAnswer(t *testing.T) {
	for _, c := range []struct {
		name, stored, want string
	}{
		{"created", `{"reservation":{"id":"r1","customer_id":"c9"},"created":true}`, `{"created":true}`},
		{"applied", `{"object":{"id":"w1","secret":"s"}}`, `{}`},
		{"pending", `{"object":{"id":"adj-1"},"pending":true}`, `{"pending":true}`},
		{"refused", `{"error":{"code":"insufficient_stock","message":"sku A: 3 available","lines":[{"sku":"A","pool":"normal","requested":5,"available":3}]}}`,
			`{"error":{"code":"insufficient_stock","message":""}}`},
	} {
		got, err := PruneAnswer([]byte(c.stored))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: PruneAnswer = %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	if _, err := PruneAnswer([]byte("not json")); err == nil {
		t.Error("an undecodable answer was pruned")
	}
}

package stockd

import (
	"strings"
	"testing"
	"time"
)

func TestValidIdentifier(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"A", true},
		{"sku-1._:X", true},
		{strings.Repeat("a", 64), true},
		{"", false},
		{strings.Repeat("a", 65), false},
		{"with space", false},
		{"slash/", false},
		{"ünï", false},
	}
	for _, tt := range tests {
		if got := ValidIdentifier(tt.in); got != tt.want {
			t.Errorf("ValidIdentifier(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestValidIdempotencyKey(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"k", true},
		{"order 17 / try ~1", true},
		{strings.Repeat("k", 128), true},
		{"", false},
		{strings.Repeat("k", 129), false},
		{"tab\t", false},
		{"é", false},
	}
	for _, tt := range tests {
		if got := ValidIdempotencyKey(tt.in); got != tt.want {
			t.Errorf("ValidIdempotencyKey(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func reserveCmd(ttl time.Duration, lines ...LineRequest) Command {
	return Command{Op: &Reserve{Lines: lines, TTL: ttl}}
}

func TestNormalizeReserve(t *testing.T) {
	many := make([]LineRequest, LinesPerReservationMax+1)
	for i := range many {
		many[i] = LineRequest{SKU: "a", Quantity: 1}
	}
	tests := []struct {
		name  string
		cmd   Command
		field string // empty: valid
	}{
		{"one line", reserveCmd(0, LineRequest{SKU: "a", Quantity: 1}), ""},
		{"no lines", reserveCmd(0), "lines"},
		{"101 lines", reserveCmd(0, many...), "lines"},
		{"zero quantity", reserveCmd(0, LineRequest{SKU: "a", Quantity: 0}), "quantity"},
		{"negative quantity", reserveCmd(0, LineRequest{SKU: "a", Quantity: -1}), "quantity"},
		{"quantity above max", reserveCmd(0, LineRequest{SKU: "a", Quantity: QuantityMax + 1}), "quantity"},
		{"bad sku", reserveCmd(0, LineRequest{SKU: "a b", Quantity: 1}), "sku"},
		{"bad pool", reserveCmd(0, LineRequest{SKU: "a", Pool: "p/q", Quantity: 1}), "pool"},
		{"ttl below min", reserveCmd(time.Millisecond, LineRequest{SKU: "a", Quantity: 1}), "ttl_seconds"},
		{"ttl above max", reserveCmd(25*time.Hour, LineRequest{SKU: "a", Quantity: 1}), "ttl_seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cmd.Normalize()
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("Normalize() = %v, want nil", err)
			case tt.field != "" && (err == nil || err.Field != tt.field):
				t.Fatalf("Normalize() = %v, want an error on %q", err, tt.field)
			}
		})
	}
}

func TestNormalizeReserveMergesRepeatedLines(t *testing.T) {
	cmd := reserveCmd(0,
		LineRequest{SKU: "a", Quantity: 2},
		LineRequest{SKU: "b", Quantity: 1, Location: "w1"},
		LineRequest{SKU: "a", Quantity: 3, Pool: PoolDefault},
	)
	if err := cmd.Normalize(); err != nil {
		t.Fatal(err)
	}
	got := cmd.Op.(*Reserve).Lines
	if len(got) != 2 || got[0].Quantity != 5 || got[0].Location != "" || got[0].Pool != PoolDefault {
		t.Fatalf("lines = %+v, want a×5 (any location, normal pool) and b×1", got)
	}
	if cmd.Op.(*Reserve).TTL != ReservationTTLDefault {
		t.Fatalf("TTL = %v, want the default %v", cmd.Op.(*Reserve).TTL, ReservationTTLDefault)
	}
}

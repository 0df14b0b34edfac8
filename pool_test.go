package stockd

import (
	"testing"
	"time"
)

func TestPoolOperationsNormalize(t *testing.T) {
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	later := at.Add(time.Hour)
	name := string(make([]byte, NameLengthMax+1))
	threshold0, priorityNegative, deduction := int64(0), -1, "never"
	for _, tt := range []struct {
		name string
		op   Operation
		code string // "" when valid
	}{
		{"channel", &PoolCreate{Pool: Pool{ID: "web", Kind: PoolChannel, FallbackToNormal: true}}, ""},
		{"campaign", &PoolCreate{Pool: Pool{ID: "sale", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later}}, ""},
		{"normal", &PoolCreate{Pool: Pool{ID: PoolDefault, Kind: PoolChannel}}, CodeAlreadyExists},
		{"bad id", &PoolCreate{Pool: Pool{ID: "a b", Kind: PoolChannel}}, CodeInvalidInput},
		{"bad kind", &PoolCreate{Pool: Pool{ID: "x", Kind: "flash"}}, CodeInvalidInput},
		{"long name", &PoolCreate{Pool: Pool{ID: "x", Kind: PoolChannel, Name: name}}, CodeInvalidInput},
		{"channel window", &PoolCreate{Pool: Pool{ID: "x", Kind: PoolChannel, StartsAt: &at}}, CodeInvalidInput},
		{"campaign fallback", &PoolCreate{Pool: Pool{ID: "x", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later, FallbackToNormal: true}}, CodeInvalidInput},
		{"campaign no end", &PoolCreate{Pool: Pool{ID: "x", Kind: PoolCampaign, StartsAt: &at}}, CodeInvalidInput},
		{"campaign backwards", &PoolCreate{Pool: Pool{ID: "x", Kind: PoolCampaign, StartsAt: &later, EndsAt: &at}}, CodeInvalidInput},
		{"gated with a lead", &PoolCreate{Pool: Pool{ID: "g", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later, Gate: PoolGateRedis, PreheatLeadSeconds: PreheatLeadSecondsMax}}, ""},
		{"lead above a day", &PoolCreate{Pool: Pool{ID: "g", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later, Gate: PoolGateRedis, PreheatLeadSeconds: PreheatLeadSecondsMax + 1}}, CodeInvalidInput},
		{"negative lead", &PoolCreate{Pool: Pool{ID: "g", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later, Gate: PoolGateRedis, PreheatLeadSeconds: -1}}, CodeInvalidInput},
		{"lead without a gate", &PoolCreate{Pool: Pool{ID: "g", Kind: PoolCampaign, StartsAt: &at, EndsAt: &later, PreheatLeadSeconds: 60}}, CodeInvalidInput},
		{"allocate", &Allocate{SKU: "a", ToPool: "web", Quantity: 1}, ""},
		{"allocate to itself", &Allocate{SKU: "a", FromPool: "web", ToPool: "web", Quantity: 1}, CodeInvalidInput},
		{"allocate to normal from normal", &Allocate{SKU: "a", ToPool: PoolDefault, Quantity: 1}, CodeInvalidInput},
		{"allocate nothing", &Allocate{SKU: "a", ToPool: "web"}, CodeInvalidInput},
		{"allocate too much", &Allocate{SKU: "a", ToPool: "web", Quantity: QuantityMax + 1}, CodeInvalidInput},
		{"allocate no target", &Allocate{SKU: "a", Quantity: 1}, CodeInvalidInput},
		{"close", &CampaignClose{Pool: "sale"}, ""},
		{"close bad id", &CampaignClose{Pool: ""}, CodeInvalidInput},
		{"location nothing", &LocationUpdate{ID: "l"}, CodeUnprocessable},
		{"location priority", &LocationUpdate{ID: "l", Priority: &priorityNegative}, CodeInvalidInput},
		{"sku nothing", &SKUUpdate{ID: "a"}, CodeUnprocessable},
		{"sku threshold 0", &SKUUpdate{ID: "a", ApprovalThreshold: &threshold0}, CodeInvalidInput},
		{"sku deduction", &SKUUpdate{ID: "a", Deduction: &deduction}, CodeInvalidInput},
		{"decision", &ApprovalDecision{ID: "x"}, ""},
		{"decision no id", &ApprovalDecision{}, CodeInvalidInput},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.op.normalize()
			switch {
			case tt.code == "" && err != nil:
				t.Fatalf("normalize: %v, want valid", err)
			case tt.code != "" && (err == nil || err.Code != tt.code):
				t.Fatalf("normalize: %v, want %s", err, tt.code)
			}
		})
	}
}

func TestAllocateDefaults(t *testing.T) {
	a := &Allocate{SKU: "a", ToPool: "web", Quantity: 1}
	if err := a.normalize(); err != nil {
		t.Fatal(err)
	}
	if a.Location != LocationDefault || a.FromPool != PoolDefault {
		t.Fatalf("allocate = %+v, want the default location and the normal pool", a)
	}
}

func TestCampaignWindowStoredAsDecided(t *testing.T) {
	starts := time.Date(2026, 12, 1, 0, 0, 0, 123456789, time.FixedZone("X", 3600))
	ends := starts.Add(time.Hour)
	p := &PoolCreate{Pool: Pool{ID: "sale", Kind: PoolCampaign, StartsAt: &starts, EndsAt: &ends}}
	if err := p.normalize(); err != nil {
		t.Fatal(err)
	}
	if p.Pool.StartsAt.Location() != time.UTC || p.Pool.StartsAt.Nanosecond()%1000 != 0 {
		t.Fatalf("starts_at = %v, want UTC in microseconds", p.Pool.StartsAt)
	}
	if !p.Pool.Sellable(p.Pool.StartsAt.Add(time.Minute)) || p.Pool.Sellable(*p.Pool.EndsAt) || p.Pool.Sellable(p.Pool.StartsAt.Add(-time.Nanosecond)) {
		t.Fatal("the window is [starts_at, ends_at)")
	}
}

func TestPoolPreheatDue(t *testing.T) {
	starts := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ends := starts.Add(time.Hour)
	closed := starts
	gated := Pool{Kind: PoolCampaign, Gate: PoolGateRedis, StartsAt: &starts, EndsAt: &ends, PreheatLeadSeconds: 600}
	for _, tt := range []struct {
		name string
		pool func(Pool) Pool
		now  time.Time
		want bool
	}{
		{"before the lead", nil, starts.Add(-11 * time.Minute), false},
		{"lead begins", nil, starts.Add(-10 * time.Minute), true},
		{"during the sale", nil, starts.Add(30 * time.Minute), true},
		{"after the end", nil, ends, false},
		{"no lead", func(p Pool) Pool { p.PreheatLeadSeconds = 0; return p }, starts, false},
		{"no gate", func(p Pool) Pool { p.Gate = ""; return p }, starts, false},
		{"closed", func(p Pool) Pool { p.ClosedAt = &closed; return p }, starts, false},
	} {
		p := gated
		if tt.pool != nil {
			p = tt.pool(p)
		}
		if got := p.PreheatDue(tt.now); got != tt.want {
			t.Errorf("%s: PreheatDue = %v, want %v", tt.name, got, tt.want)
		}
	}
}

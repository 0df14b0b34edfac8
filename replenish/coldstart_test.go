package replenish

import (
	"math"
	"testing"
)

func TestColdStartFallbacks(t *testing.T) {
	band := Estimate{MeanDaily: 20, StddevDaily: 5}
	category := Estimate{MeanDaily: 10, StddevDaily: 4}
	deployment := Estimate{MeanDaily: 2, StddevDaily: 1.5}
	thirteenDays := make([]int64, MinHistoryDays-1)
	fourteenSteadyDays := make([]int64, MinHistoryDays)
	for i := range fourteenSteadyDays {
		fourteenSteadyDays[i] = 3
	}
	for _, tc := range []struct {
		name      string
		history   []int64
		coldStart ColdStart
		source    Source
		want      Estimate
	}{
		{"no history: category and price band first", nil, ColdStart{band, category, deployment}, SourceCategoryPriceBand, band},
		{"13 days are not enough", thirteenDays, ColdStart{band, category, deployment}, SourceCategoryPriceBand, band},
		{"no peers in the band: category", thirteenDays, ColdStart{Category: category, Default: deployment}, SourceCategory, category},
		{"band peers with σ 0 are skipped", nil, ColdStart{Estimate{MeanDaily: 7}, category, deployment}, SourceCategory, category},
		{"no peers at all: the deployment's default", nil, ColdStart{Default: deployment}, SourceDefault, deployment},
		{"category peers with σ 0 are skipped too", nil, ColdStart{Category: Estimate{MeanDaily: 7}, Default: deployment}, SourceDefault, deployment},
		{"14 days: the SKU's own, even with σ 0", fourteenSteadyDays, ColdStart{band, category, deployment}, SourceHistory, Estimate{MeanDaily: 3}},
	} {
		in := seedInput()
		in.DemandDaily = tc.history
		in.ColdStart = tc.coldStart
		f := mustCompute(t, in)
		if f.Source != tc.source || f.Demand != tc.want {
			t.Errorf("%s: source %s, estimate %+v; want %s, %+v", tc.name, f.Source, f.Demand, tc.source, tc.want)
		}
		if tc.source != SourceHistory && f.SafetyStock == 0 {
			t.Errorf("%s: a cold start gave no safety stock", tc.name)
		}
	}
}

func TestColdStartRefusesAZeroDefaultDeviation(t *testing.T) {
	in := seedInput()
	in.DemandDaily = nil
	in.ColdStart.Default = Estimate{MeanDaily: 5}
	if _, err := Compute(in); !namesField(err, "cold_start.default") {
		t.Errorf("σ 0 default: %v", err)
	}
}

func TestPeers(t *testing.T) {
	var p Peers
	deployment := Estimate{MeanDaily: 1, StddevDaily: 1}
	if cs := p.ColdStart("shoes", "cheap", deployment); cs != (ColdStart{Default: deployment}) {
		t.Errorf("empty peers: %+v", cs)
	}
	p.Add("shoes", "cheap", Estimate{MeanDaily: 10, StddevDaily: 2})
	p.Add("shoes", "cheap", Estimate{MeanDaily: 20, StddevDaily: 4})
	p.Add("shoes", "dear", Estimate{MeanDaily: 3, StddevDaily: 3})
	p.Add("shoes", "", Estimate{MeanDaily: 7, StddevDaily: 7})   // counts for the category only
	p.Add("", "cheap", Estimate{MeanDaily: 99, StddevDaily: 99}) // counts nowhere

	cs := p.ColdStart("shoes", "cheap", deployment)
	if cs.CategoryPriceBand != (Estimate{MeanDaily: 15, StddevDaily: 3}) {
		t.Errorf("band: %+v", cs.CategoryPriceBand)
	}
	if cs.Category != (Estimate{MeanDaily: 10, StddevDaily: 4}) {
		t.Errorf("category: %+v", cs.Category)
	}
	if cs := p.ColdStart("shoes", "unknown", deployment); cs.CategoryPriceBand != (Estimate{}) || cs.Category.MeanDaily != 10 {
		t.Errorf("an unknown band falls to the category: %+v", cs)
	}
	if cs := p.ColdStart("hats", "cheap", deployment); cs != (ColdStart{Default: deployment}) {
		t.Errorf("an unknown category falls to the default: %+v", cs)
	}

	in := seedInput()
	in.DemandDaily = nil
	in.ColdStart = p.ColdStart("shoes", "", deployment)
	if f := mustCompute(t, in); f.Source != SourceCategory || f.Demand.MeanDaily != 10 {
		t.Errorf("a SKU without a price band: %s %+v", f.Source, f.Demand)
	}
}

func TestHistoryEstimateIsThePopulationDeviation(t *testing.T) {
	history := []int64{0, 0, 0, 0, 0, 0, 0, 10, 10, 10, 10, 10, 10, 10} // zero days count
	e, ok := HistoryEstimate(history)
	if !ok || e.MeanDaily != 5 || e.StddevDaily != 5 {
		t.Errorf("got %+v, %v; want mean 5, σ 5 (population, not sample: %v)", e, ok, 5*math.Sqrt(14.0/13))
	}
	if _, ok := HistoryEstimate(history[:13]); ok {
		t.Error("13 days must not count as history")
	}
}

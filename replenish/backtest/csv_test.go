package backtest

import (
	"reflect"
	"strings"
	"testing"
)

func TestTraceRoundTrip(t *testing.T) {
	want, err := GenTrace(7, 40, 150)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := want.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	got, err := readTraceFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the trace read back differs from the one written")
	}
}

const goodSKUs = SKUsHeader + `
A,7,0,0.95,30,50,0,0,shoes,60
B,3,1,0.9,14,1,0,2,,10
`

func TestReadTraceReportsBadRowsByLine(t *testing.T) {
	for _, tc := range []struct {
		name, skus, demand string
		want               []string
	}{
		{
			name:   "skus header",
			skus:   "sku,lead_time_days\nA,7\n",
			demand: DemandHeader + "\nA,2026-01-01,1\n",
			want:   []string{"skus.csv line 1: header"},
		},
		{
			name: "skus rows",
			skus: SKUsHeader + `
A,7,0,0.95,30,50,0,0,shoes,60
A,7,0,0.95,30,50,0,0,shoes,60
C,seven,0,0.95,30,50,0,0,shoes,60
D,7,0,1.5,30,50,0,0,shoes,60
E,7,0,0.95,30,0,0,0,shoes,60
F,7,0,0.95,30,1,0,0,shoes
bad sku,7,0,0.95,30,1,0,0,shoes,1
G,7,0,0.95,30,1,0,0,shoes,-1
H,-1,0,0.95,0,1,0,0,shoes,1
`,
			demand: DemandHeader + "\nA,2026-01-01,1\n",
			want: []string{
				"skus.csv line 3: sku A repeats line 2",
				"skus.csv line 4: lead_time_days",
				"skus.csv line 5: service_level",
				"skus.csv line 6: order_multiple",
				"skus.csv line 7: wrong number of fields",
				"skus.csv line 8: sku:",
				"skus.csv line 9: initial_on_hand",
				"skus.csv line 10: lead_time_days",
				"skus.csv line 10: cover_days",
			},
		},
		{
			name: "demand rows",
			skus: goodSKUs,
			demand: DemandHeader + `
A,2026-01-01,1
Z,2026-01-01,1
A,2026-13-01,1
A,2026-01-02,-3
A,2026-01-03,1.5
A,2026-01-01,2
B,2026-01-01
`,
			want: []string{
				`demand.csv line 3: sku "Z" is not in skus.csv`,
				"demand.csv line 4: date",
				"demand.csv line 5: quantity",
				"demand.csv line 6: quantity",
				"demand.csv line 7: sku A on 2026-01-01 repeats line 2",
				"demand.csv line 8: wrong number of fields",
			},
		},
		{
			name:   "a SKU without demand",
			skus:   goodSKUs,
			demand: DemandHeader + "\nA,2026-01-01,1\n",
			want:   []string{"no rows for 1 SKUs of skus.csv, e.g. B"},
		},
		{
			name:   "a broken quote stops the read",
			skus:   goodSKUs,
			demand: DemandHeader + "\nA,2026-01-01,1\n\"B,2026-01-01,1\n",
			want:   []string{"demand.csv line 3"},
		},
	} {
		trace, err := ReadTrace(strings.NewReader(tc.skus), strings.NewReader(tc.demand))
		if err == nil || trace != nil {
			t.Errorf("%s: got a trace (%v), want an error", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", tc.name, w, err)
			}
		}
	}
}

func TestReadTraceCapsTheReport(t *testing.T) {
	var demand strings.Builder
	demand.WriteString(DemandHeader + "\n")
	for range problemsReportedMax + 5 {
		demand.WriteString("Z,2026-01-01,1\n")
	}
	_, err := ReadTrace(strings.NewReader(goodSKUs), strings.NewReader(demand.String()))
	if err == nil || !strings.Contains(err.Error(), "and 5 more bad rows") {
		t.Errorf("got %v", err)
	}
}

func TestReadTraceLaysOutDays(t *testing.T) {
	demand := DemandHeader + `
B,2026-01-03,4
A,2026-01-01,1
A,2026-01-05,2
`
	trace, err := ReadTrace(strings.NewReader(goodSKUs), strings.NewReader(demand))
	if err != nil {
		t.Fatal(err)
	}
	if trace.Days != 5 || trace.Date(0) != "2026-01-01" || trace.Date(4) != "2026-01-05" {
		t.Errorf("days %d from %s", trace.Days, trace.Date(0))
	}
	if !reflect.DeepEqual(trace.Demand[0], []int64{1, 0, 0, 0, 2}) || !reflect.DeepEqual(trace.Demand[1], []int64{0, 0, 4, 0, 0}) {
		t.Errorf("demand %v", trace.Demand)
	}
	if !reflect.DeepEqual(trace.Launch, []int{0, 2}) {
		t.Errorf("launch %v, want B launched on its first row", trace.Launch)
	}
}

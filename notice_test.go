package stockd

import (
	"encoding/json"
	"fmt"
	"testing"
)

func noticeCmd(t *testing.T, n Notice) Command {
	t.Helper()
	c := NoticeCommand(n, "worker")
	if err := c.Normalize(); err != nil {
		t.Fatalf("normalize %+v: %v", n, err)
	}
	return c
}

// TestNoticePositions: a notice sits at its position, else at the SKU's
// normal-pool positions, else at all of them, else at the SKU alone.
func TestNoticePositions(t *testing.T) {
	sale := PositionKey{SKU: "a", Location: "w1", Pool: "sale"}
	tests := []struct {
		name  string
		stock map[PositionKey]int64
		n     Notice
		want  string
	}{
		{"at its position", map[PositionKey]int64{pk("a", "w1"): 1, pk("a", "w2"): 1},
			Notice{Type: NoticeDiscrepancyOpened, Subject: "7", Position: &PositionKey{SKU: "a", Location: "w2"}}, "[{a w2 normal}]"},
		{"normal pool", map[PositionKey]int64{pk("a", "w2"): 1, pk("a", "w1"): 1, sale: 1},
			Notice{Type: NoticeAlertRaised, Subject: "1/1", SKU: "a"}, "[{a w1 normal} {a w2 normal}]"},
		{"all when none normal", map[PositionKey]int64{sale: 1},
			Notice{Type: NoticeAlertRaised, Subject: "1/1", SKU: "a"}, "[{a w1 sale}]"},
		{"never stocked", nil, Notice{Type: NoticeAlertResolved, Subject: "1/2", SKU: "a"}, "[{a  }]"},
		{"no sku", nil, Notice{Type: NoticeDiscrepancyClosed, Subject: "9"}, "[{  }]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(tt.stock)
			res := s.Apply([]Command{noticeCmd(t, tt.n)})[0]
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			var keys []PositionKey
			for _, e := range s.Writes().Ledger {
				if e.BusinessType != tt.n.Type || e.BusinessID != tt.n.Type+":"+tt.n.Subject || e.Delta != (Counters{}) || e.After != s.peek(e.Position) {
					t.Fatalf("entry %+v", e)
				}
				keys = append(keys, e.Position)
			}
			if got := fmt.Sprint(keys); got != tt.want {
				t.Fatalf("at %s, want %s", got, tt.want)
			}
			var answer NoticeAnswer
			if err := json.Unmarshal(res.Object, &answer); err != nil || fmt.Sprint(answer.Positions) != tt.want {
				t.Fatalf("answer %s, %v", res.Object, err)
			}
		})
	}
}

// TestNoticeReplay: the same notice twice (a worker's retry) is written
// once.
func TestNoticeReplay(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1})
	n := Notice{Type: NoticeAlertAcknowledged, Subject: "3", SKU: "a"}
	res := s.Apply([]Command{noticeCmd(t, n), noticeCmd(t, n)})
	if !res[1].Replayed || len(s.Writes().Ledger) != 1 {
		t.Fatalf("second notice %+v, ledger %d entries; want a replay and 1 entry", res[1], len(s.Writes().Ledger))
	}
}

func TestNoticeRefused(t *testing.T) {
	for _, n := range []Notice{
		{Type: BusinessReceipt, Subject: "1"},
		{Type: EventStockLow, Subject: "1"}, // derived, never noticed
		{Type: NoticeAlertRaised},
		{Type: NoticeAlertRaised, Subject: "a b"},
		{Type: NoticeAlertRaised, Subject: string(make([]byte, NoticeSubjectLengthMax+1))},
		{Type: NoticeAlertRaised, Subject: "1", SKU: "a/b"},
		{Type: NoticeAlertRaised, Subject: "1", SKU: "b", Position: &PositionKey{SKU: "a"}},
	} {
		c := NoticeCommand(n, "")
		if err := c.Normalize(); err == nil {
			t.Errorf("notice %+v accepted", n)
		}
	}
	s := newState(nil)
	if res := s.Apply([]Command{noticeCmd(t, Notice{Type: NoticeAlertRaised, Subject: "1", SKU: "zz"})})[0]; res.Err == nil || res.Err.Code != CodeUnknownSKU {
		t.Fatalf("notice of an unknown sku: %+v", res.Err)
	}
}

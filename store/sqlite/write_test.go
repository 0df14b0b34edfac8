package sqlite

import "testing"

func TestStatementRows(t *testing.T) {
	tests := []struct {
		rows int
		want []int
	}{
		{rows: 1, want: []int{1}},
		{rows: 3, want: []int{1, 1, 1}},
		{rows: 4, want: []int{4}},
		{rows: 21, want: []int{16, 4, 1}},
		{rows: 64, want: []int{64}},
		{rows: 150, want: []int{64, 64, 16, 4, 1, 1}},
	}
	for _, tt := range tests {
		var got []int
		for left := tt.rows; left > 0; {
			n := statementRows(left)
			got = append(got, n)
			left -= n
		}
		if len(got) != len(tt.want) {
			t.Errorf("statementRows over %d rows = %v, want %v", tt.rows, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("statementRows over %d rows = %v, want %v", tt.rows, got, tt.want)
				break
			}
		}
	}
}

func TestRowsStatementText(t *testing.T) {
	s := rowsStatement{head: "INSERT INTO t (a, b) VALUES ", row: "(?, ?)", tail: " RETURNING a"}
	if got, want := s.text(3), "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?) RETURNING a"; got != want {
		t.Errorf("text(3) = %q, want %q", got, want)
	}
}

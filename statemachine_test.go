package stockd

import "testing"

func TestNext(t *testing.T) {
	tests := []struct {
		from ReservationStatus
		kind CommandKind
		to   ReservationStatus
		move Move
	}{
		{StatusPending, KindConfirm, StatusConfirmed, MoveApply},
		{StatusPending, KindRelease, StatusReleased, MoveApply},
		{StatusPending, KindExpire, StatusExpired, MoveApply},
		{StatusPending, KindFulfil, StatusPending, MoveIllegal},
		{StatusConfirmed, KindConfirm, StatusConfirmed, MoveRepeat},
		{StatusConfirmed, KindRelease, StatusConfirmed, MoveIllegal},
		{StatusConfirmed, KindExpire, StatusConfirmed, MoveRepeat},
		{StatusConfirmed, KindFulfil, StatusFulfilled, MoveApply},
		{StatusReleased, KindConfirm, StatusReleased, MoveIllegal},
		{StatusReleased, KindRelease, StatusReleased, MoveRepeat},
		{StatusReleased, KindExpire, StatusReleased, MoveRepeat},
		{StatusReleased, KindFulfil, StatusReleased, MoveIllegal},
		{StatusExpired, KindConfirm, StatusExpired, MoveExpired},
		{StatusExpired, KindRelease, StatusExpired, MoveRepeat},
		{StatusExpired, KindExpire, StatusExpired, MoveRepeat},
		{StatusExpired, KindFulfil, StatusExpired, MoveIllegal},
		{StatusFulfilled, KindConfirm, StatusFulfilled, MoveRepeat},
		{StatusFulfilled, KindRelease, StatusFulfilled, MoveIllegal},
		{StatusFulfilled, KindExpire, StatusFulfilled, MoveRepeat},
		{StatusFulfilled, KindFulfil, StatusFulfilled, MoveRepeat},
	}
	for _, tt := range tests {
		to, move := Next(tt.from, tt.kind)
		if to != tt.to || move != tt.move {
			t.Errorf("Next(%s, %s) = (%s, %d), want (%s, %d)", tt.from, tt.kind, to, move, tt.to, tt.move)
		}
	}
}

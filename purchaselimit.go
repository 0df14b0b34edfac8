package stockd

// reserveLimitTouches adds the purchase limit documents a reservation by a
// customer is checked against, and the customer's usage of each.
func reserveLimitTouches(r *Reserve, t *Touches) {
	if r.CustomerID == "" {
		return
	}
	// TODO(issue 4): limits.
}

// reservationLimitTouches adds the usage documents a release or expiry of
// r gives quantity back to.
func reservationLimitTouches(r *Reservation, t *Touches) {
	if r.CustomerID == "" {
		return
	}
}

// limitGiveBack removes a released or expired reservation from its
// customer's usage of every limit it counted against.
func (s *BatchState) limitGiveBack(r *Reservation) {
	if r.CustomerID == "" {
		return
	}
}

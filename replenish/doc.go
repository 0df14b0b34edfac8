// Package replenish decides when a SKU must be reordered and how much: the
// decision half of seed 003 (§4). It is pure arithmetic over what the caller
// hands it (daily demand, lead time, stock figures) and imports nothing of
// storage or HTTP, so the API, the alert job and the backtest all call the
// same Compute and cannot drift apart.
//
// The figures, per SKU (L lead time in days, σ_L its standard deviation,
// R review_days, Z = NormalQuantile(service level)):
//
//	d̄, σ_d   mean and population standard deviation of daily demand over the
//	          window, days without sales counted as zeros; borrowed from peers
//	          below 14 days of history (ColdStart)
//	SS        ceil(Z·√((L+R−1)·σ_d² + d̄²·σ_L²))      seed: Z·σ_d·√L when σ_L = 0, R = 1
//	ROP       ceil(d̂·(L+R−1) + Z·√(…))              the exact sum, rounded once;
//	          d̂ is the level the window's damped trend points to today
//	          (Trend), and a slow mover's ROP is at least the Poisson-gamma
//	          quantile of lead-time demand (PoissonGammaQuantile), both per
//	          Estimator; SS, Q and the cover keep d̄
//	IP        available + in_transit + incoming (open purchase orders)
//	alert     max(ROP, SS, red_line)                 seed §4.1
//	Q         when IP ≤ alert: max(cover_days·d̄, alert + 1) − IP, rounded up
//	          to order_multiple, at least min_order_quantity; else 0
//	          (seed: cover_days·d̄ − IP; the floor is OrderRuleDefault's)
//	cover     available / d̄ days
//
// Buffers round up, never away. See docs/design.md, "Replenishment", for why
// each choice was made and what the backtest measured.
package replenish

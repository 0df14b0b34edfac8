package backtest

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// realisedLeadTimeDays draws how long order number orderIndex of a SKU
// takes: normal around lead_time_days with lead_time_stddev_days, whole
// days, at least 1. The stream is keyed by (seed, SKU, order index) alone,
// so the k-th order of the policy and the k-th order of the fixed rule
// wait equally long, whatever else either policy did.
func realisedLeadTimeDays(seed uint64, sku SKU, orderIndex int) int {
	h := fnv.New64a()
	h.Write([]byte(sku.ID))
	r := rand.New(rand.NewPCG(seed, h.Sum64()^uint64(orderIndex)*0x9e3779b97f4a7c15))
	days := math.Round(sku.LeadTimeDays + sku.LeadTimeStddevDays*r.NormFloat64())
	return int(max(1, days))
}

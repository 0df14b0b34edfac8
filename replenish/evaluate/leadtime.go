package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/store"
)

const (
	// ObservedSamplesMin is how many purchase orders received in full a
	// SKU needs before their lead times override its settings (issue 11).
	ObservedSamplesMin = 5
	// PurchaseOrderScanMax bounds the purchase orders one evaluation run
	// reads for lead time samples.
	PurchaseOrderScanMax = 10_000
)

// leadTimeSamples are one SKU's observed lead times in days.
type leadTimeSamples []float64

// observedLeadTime replaces the settings' lead time and deviation with
// the mean and population deviation of the SKU's observed ones, once there
// are ObservedSamplesMin of them.
func (r *run) observedLeadTime(ctx context.Context, sku string, in *replenish.Input, lt *LeadTime) error {
	if r.leadTime == nil {
		samples, err := r.readLeadTimes(ctx)
		if err != nil {
			return err
		}
		r.leadTime = samples
	}
	samples := r.leadTime[sku]
	lt.Samples = len(samples)
	if len(samples) < ObservedSamplesMin {
		return nil
	}
	var sum float64
	for _, d := range samples {
		sum += d
	}
	mean := sum / float64(len(samples))
	var squares float64
	for _, d := range samples {
		squares += (d - mean) * (d - mean)
	}
	// Bounded like the settings: a sample beyond the limit is an order
	// forgotten for a year, not a lead time.
	in.LeadTimeDays = min(mean, replenish.LeadTimeDaysMax)
	in.LeadTimeStddevDays = min(math.Sqrt(squares/float64(len(samples))), replenish.LeadTimeDaysMax)
	lt.Source = LeadTimeObserved
	return nil
}

// readLeadTimes reads every purchase order received in full (status
// received: never cancelled, every line's quantity in) and gives each of
// its SKUs the sample ordered → last receipt, in days.
func (r *run) readLeadTimes(ctx context.Context) (map[string]leadTimeSamples, error) {
	out := map[string]leadTimeSamples{}
	after := ""
	for scanned := 0; scanned < PurchaseOrderScanMax; {
		docs, err := r.e.Store.DocumentList(ctx, store.DocumentListParams{Kind: stockd.DocPurchaseOrder, After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			after = d.ID
			scanned++
			var po stockd.PurchaseOrderDoc
			if err := json.Unmarshal(d.Body, &po); err != nil {
				return nil, fmt.Errorf("document %s/%s: %w", d.Kind, d.ID, err)
			}
			if po.Status != stockd.POReceived {
				continue
			}
			days := po.UpdatedAt.Sub(po.CreatedAt).Hours() / 24
			seen := map[string]bool{}
			for _, l := range po.Lines {
				if !seen[l.SKU] {
					seen[l.SKU] = true
					out[l.SKU] = append(out[l.SKU], days)
				}
			}
		}
		if len(docs) < stockd.PageSizeMax {
			break
		}
	}
	return out, nil
}

package alert

import (
	"context"
	"errors"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/replenish/evaluate"
)

// Evaluator is the worker's EvaluateFunc over the replenishment evaluation
// the API answers with, so an alert's figures are GET
// /v1/replenishment/{sku}'s.
func Evaluator(e *evaluate.Evaluator) EvaluateFunc {
	return func(ctx context.Context, sku, asOf string) (replenish.Figures, error) {
		ev, err := e.SKU(ctx, sku, asOf)
		if errors.Is(err, evaluate.ErrUnknownSKU) {
			return replenish.Figures{}, fmt.Errorf("%w: %w", stockd.ErrNotFound, err)
		}
		return ev.Figures, err
	}
}

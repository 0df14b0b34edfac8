package engine

import (
	"context"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// read locks and loads the batch's state through tx (stockd.LoadBatch).
func (e *Engine) read(ctx context.Context, tx store.Tx, cmds []stockd.Command) (*stockd.BatchState, error) {
	state, _, err := stockd.LoadBatch(ctx, tx, cmds, e.cfg.Now(), e.cfg.NewID, &e.plainSKUs)
	return state, err
}

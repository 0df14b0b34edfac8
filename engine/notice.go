package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/stockd/stockd"
)

// Notify writes notices (stockd.Notice) through the engine, in their
// order, each under the idempotency key of stockd.NoticeCommand, so a
// retry is a replay. actor names the worker that noticed. It is the
// workers' (alert, reconcile, and the exception records') way onto the
// ledger: the one write path, never a write of their own.
func (e *Engine) Notify(ctx context.Context, actor string, notices []stockd.Notice) error {
	cmds := make([]stockd.Command, len(notices))
	for i, n := range notices {
		cmds[i] = stockd.NoticeCommand(n, actor)
	}
	results, errs := e.SubmitAll(ctx, cmds)
	var all []error
	for i := range cmds {
		switch {
		case errs[i] != nil:
			all = append(all, fmt.Errorf("notice %s %q: %w", notices[i].Type, notices[i].Subject, errs[i]))
		case results[i].Err != nil:
			all = append(all, fmt.Errorf("notice %s %q: %w", notices[i].Type, notices[i].Subject, results[i].Err))
		}
	}
	return errors.Join(all...)
}

// Command stockd runs the stock ledger and reservation service.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// errDifferences makes verify exit non-zero after printing its report.
var errDifferences = errors.New("the books disagree")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCommand().ExecuteContext(ctx); err != nil {
		if !errors.Is(err, errDifferences) {
			fmt.Fprintln(os.Stderr, "stockd:", err)
		}
		os.Exit(1)
	}
}

// Command stockd-bench benchmarks reservations against stockd and the seeds'
// baselines (formerly `stockd bench`). It is a command of its own so that
// the service binary carries none of the benchmark's dependencies: the
// Redis client of the redis-lua baseline, the progress bar.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "stockd-bench:", err)
		os.Exit(1)
	}
}

// Command stockd runs the stock ledger and reservation service.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	// The business time zone is an IANA name; the binary carries the
	// zone database, so a container without one still knows Asia/Shanghai.
	_ "time/tzdata"
)

// errDifferences makes verify exit 2 after printing its report.
var errDifferences = errors.New("the books disagree")

// Exit codes scripts can tell apart: verify found differences (2), or a
// command failed, including a verify that could not check (1).
const (
	exitFailed      = 1
	exitDifferences = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := newRootCommand().ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errDifferences) {
		fmt.Fprintln(os.Stderr, "stockd:", err)
	}
	if code := exitCode(err); code != 0 {
		os.Exit(code)
	}
}

func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errDifferences):
		return exitDifferences
	}
	return exitFailed
}

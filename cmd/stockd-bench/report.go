package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/stockd/stockd/bench"
)

// writeJSON writes the report for later comparison (docs/benchmarks.md takes
// the medians of three runs' files).
func writeJSON(path string, rep bench.Report) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

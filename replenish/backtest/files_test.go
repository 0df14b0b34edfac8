package backtest

import (
	"os"
	"path/filepath"
)

func readTraceFiles(dir string) (*Trace, error) {
	skus, err := os.Open(filepath.Join(dir, SKUsFile))
	if err != nil {
		return nil, err
	}
	defer skus.Close()
	demand, err := os.Open(filepath.Join(dir, DemandFile))
	if err != nil {
		return nil, err
	}
	defer demand.Close()
	return ReadTrace(skus, demand)
}

package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

const (
	// countFileHeader is the one header stockd import counts accepts.
	countFileHeader = "sku,location,counted_on_hand,counted_at"
	// countFileRowsMax bounds the rows of one file; they are compared in
	// runs of stockd.CountRowsMax.
	countFileRowsMax = 100 * stockd.CountRowsMax
	// countFileErrorsMax bounds the bad rows listed; the count of them is
	// always given.
	countFileErrorsMax = 50
)

func newImportCountsCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "counts FILE.csv",
		Short: "Compare a physical count (CSV: " + countFileHeader + ") with on_hand as of counted_at; mismatches become discrepancies, stock is not changed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return runImportCounts(cmd.Context(), cfg.DatabaseURL, args[0], cmd.OutOrStdout())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

// errBadCountFile is a file with bad rows: nothing of it was compared.
var errBadCountFile = errors.New("bad count file: nothing imported")

// runImportCounts checks the whole file (every row, every SKU) before it
// compares any row, so that nothing of a bad file is recorded; it returns
// errDifferences when a row disagreed with the ledger.
func runImportCounts(ctx context.Context, databaseURL, path string, out io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	now := time.Now()
	rows, lines, bad, err := readCountFile(f, now)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	unknown, err := unknownSKUs(ctx, s, rows, lines)
	if err != nil {
		return err
	}
	bad = append(bad, unknown...)
	if len(bad) > 0 {
		slices.SortStableFunc(bad, func(a, b lineError) int { return a.line - b.line })
		for _, e := range bad[:min(len(bad), countFileErrorsMax)] {
			fmt.Fprintf(out, "%s:%d: %s\n", path, e.line, e.msg)
		}
		return fmt.Errorf("%s: %d bad rows: %w", path, len(bad), errBadCountFile)
	}
	r := reconcile.New(reconcile.Config{Store: s, Logger: slog.New(slog.DiscardHandler)})
	var res reconcile.Result
	for chunk := range slices.Chunk(rows, stockd.CountRowsMax) {
		part, err := r.Count(ctx, chunk)
		if err != nil {
			return fmt.Errorf("compare %s: %w", path, err)
		}
		res.Runs = append(res.Runs, part.Runs...)
		res.Findings = append(res.Findings, part.Findings...)
	}
	printReconcile(out, "count", res)
	if !res.Clean() {
		return errDifferences
	}
	return nil
}

// lineError is one bad row, by its line in the file (the header is 1).
type lineError struct {
	line int
	msg  string
}

// readCountFile parses and checks every row; an unreadable file (not
// CSV, a wrong header, too many rows) is an error, bad rows are listed.
// It returns the good rows with their lines.
func readCountFile(r io.Reader, now time.Time) ([]stockd.CountRow, []int, []lineError, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read header: %w", err)
	}
	if got := strings.Join(header, ","); got != countFileHeader {
		return nil, nil, nil, fmt.Errorf("header %q: want exactly %q", got, countFileHeader)
	}
	var rows []stockd.CountRow
	var lines []int
	var bad []lineError
	for {
		record, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				bad = append(bad, lineError{perr.Line, perr.Err.Error()})
				continue
			}
			return nil, nil, nil, err
		}
		if len(rows)+len(bad) >= countFileRowsMax {
			return nil, nil, nil, fmt.Errorf("more than %d rows: split the file", countFileRowsMax)
		}
		row, msg := parseCountRow(record, now)
		if msg != "" {
			bad = append(bad, lineError{line, msg})
			continue
		}
		rows, lines = append(rows, row), append(lines, line)
	}
	if len(rows)+len(bad) == 0 {
		return nil, nil, nil, errors.New("no rows after the header")
	}
	return rows, lines, bad, nil
}

func parseCountRow(record []string, now time.Time) (stockd.CountRow, string) {
	if len(record) != 4 {
		return stockd.CountRow{}, fmt.Sprintf("%d fields, want 4 (%s)", len(record), countFileHeader)
	}
	counted, err := strconv.ParseInt(record[2], 10, 64)
	if err != nil {
		return stockd.CountRow{}, fmt.Sprintf("counted_on_hand %q is not an integer", record[2])
	}
	at, err := time.Parse(time.RFC3339Nano, record[3])
	if err != nil {
		return stockd.CountRow{}, fmt.Sprintf("counted_at %q is not an RFC 3339 time", record[3])
	}
	row := stockd.CountRow{SKU: record[0], Location: record[1], CountedOnHand: counted, CountedAt: at}
	if verr := row.Normalize(now); verr != nil {
		return row, verr.Field + ": " + verr.Message
	}
	return row, ""
}

// unknownSKUs lists, by line, the rows whose SKU does not exist.
func unknownSKUs(ctx context.Context, s store.Store, rows []stockd.CountRow, lines []int) ([]lineError, error) {
	known := map[string]bool{}
	var bad []lineError
	for i, row := range rows {
		ok, seen := known[row.SKU]
		if !seen {
			_, err := s.SKUGet(ctx, row.SKU)
			if err != nil && !errors.Is(err, stockd.ErrNotFound) {
				return nil, err
			}
			ok = err == nil
			known[row.SKU] = ok
		}
		if !ok {
			bad = append(bad, lineError{lines[i], fmt.Sprintf("sku %q is unknown", row.SKU)})
		}
	}
	return bad, nil
}

package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

const (
	// demandHeader is the one header `stockd import demand` accepts.
	demandHeader = "sku,date,quantity"
	// demandImportRowsMax bounds one file: ten years of days for 250 SKUs.
	// The whole file is checked before anything is written, so it is held
	// in memory.
	demandImportRowsMax = 1_000_000
	// demandImportErrorsMax bounds the bad rows reported: past it, the
	// file is wrong in a way the first ones show.
	demandImportErrorsMax = 50
	// progressEvery is how many rows pass between progress lines.
	progressEvery = 10 * stockd.DemandHistoryRowsMax
)

func newImportDemandCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "demand FILE.csv",
		Short: "Import past daily demand (header " + demandHeader + ", date YYYY-MM-DD); a bad file writes nothing",
		Long: "Checks every row of FILE.csv first (a date of the calendar, a quantity from 0 to 10^12, a SKU that\n" +
			"exists, each SKU and date once) and reports each bad row with its line number; only a good file is\n" +
			"written, in requests of " + strconv.Itoa(stockd.DemandHistoryRowsMax) + " rows. A row replaces the one imported before for its SKU and date,\n" +
			"so importing a file again changes nothing. Progress goes to stderr.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return runImportDemand(cmd.Context(), cfg.DatabaseURL, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

// errBadFile is what a file with bad rows returns, after they are printed.
var errBadFile = errors.New("import demand: the file has bad rows; nothing was written")

func runImportDemand(ctx context.Context, databaseURL, path string, out, progress io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("import demand: %w", err)
	}
	defer f.Close()
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	rows, problems, err := readDemandCSV(ctx, f, s)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(progress, path+":"+p)
		}
		return errBadFile
	}
	for start := 0; start < len(rows); start += stockd.DemandHistoryRowsMax {
		chunk := rows[start:min(start+stockd.DemandHistoryRowsMax, len(rows))]
		if err := s.DemandHistoryPut(ctx, store.DemandHistoryPutParams{Rows: chunk, At: time.Now()}); err != nil {
			// Every row written so far is a good one, and writing them
			// again changes nothing: the same command finishes the job.
			return fmt.Errorf("import demand: after %d of %d rows (run it again to finish): %w", start, len(rows), err)
		}
		if done := start + len(chunk); done%progressEvery == 0 || done == len(rows) {
			fmt.Fprintf(progress, "imported %d of %d rows (%d%%)\n", done, len(rows), done*100/len(rows))
		}
	}
	fmt.Fprintf(out, "imported %d rows of demand from %s\n", len(rows), path)
	return nil
}

// skuChecker is the one read the file check needs.
type skuChecker interface {
	SKUGet(ctx context.Context, id string) (stockd.SKU, error)
}

// readDemandCSV reads and checks the whole file: problems lists bad rows
// as "LINE: what", at most demandImportErrorsMax of them; err is a failure
// to read the file or the database.
func readDemandCSV(ctx context.Context, in io.Reader, skus skuChecker) (rows []stockd.DemandDay, problems []string, err error) {
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, []string{"1: empty file, want the header " + demandHeader}, nil
	}
	if err != nil {
		return nil, []string{"1: " + err.Error()}, nil
	}
	if strings.Join(header, ",") != demandHeader {
		return nil, []string{fmt.Sprintf("1: header %q, want exactly %q", strings.Join(header, ","), demandHeader)}, nil
	}
	firstLine := map[[2]string]int{}
	known := map[string]bool{}
	report := func(line int, format string, args ...any) {
		if len(problems) < demandImportErrorsMax {
			problems = append(problems, fmt.Sprintf("%d: ", line)+fmt.Sprintf(format, args...))
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			var parse *csv.ParseError
			if errors.As(err, &parse) {
				report(parse.Line, "%v", parse.Err)
				continue
			}
			return nil, nil, fmt.Errorf("import demand: %w", err)
		}
		if len(rows) == demandImportRowsMax {
			report(line, "more than %d rows: split the file", demandImportRowsMax)
			break
		}
		if len(rec) != 3 {
			report(line, "%d fields, want 3 (%s)", len(rec), demandHeader)
			continue
		}
		q, qerr := strconv.ParseInt(rec[2], 10, 64)
		day := stockd.DemandDay{SKU: rec[0], Date: rec[1], Quantity: q}
		if qerr != nil {
			report(line, "quantity %q: want an integer from 0 to %d", rec[2], stockd.QuantityMax)
			continue
		}
		if verr := stockd.ValidDemandDay(day); verr != nil {
			report(line, "%s", verr.Message)
			continue
		}
		k := [2]string{day.SKU, day.Date}
		if first, ok := firstLine[k]; ok {
			report(line, "%s on %s again (first on line %d)", day.SKU, day.Date, first)
			continue
		}
		firstLine[k] = line
		if _, checked := known[day.SKU]; !checked {
			_, err := skus.SKUGet(ctx, day.SKU)
			if err != nil && !errors.Is(err, stockd.ErrNotFound) {
				return nil, nil, fmt.Errorf("import demand: %w", err)
			}
			known[day.SKU] = err == nil
		}
		if !known[day.SKU] {
			report(line, "sku %q is unknown", day.SKU)
			continue
		}
		rows = append(rows, day)
	}
	return rows, problems, nil
}

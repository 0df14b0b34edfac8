package main

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Bounds of one imported file: the whole file is checked before anything
// is written, so it is held in memory.
const (
	importFileSizeMax = 256 << 20
	importRowsMax     = 1_000_000
	// rowErrorsShownMax bounds the bad rows reported for one file: past it,
	// the count alone.
	rowErrorsShownMax = 50
)

// csvRow is one data row and its line number in the file (the header is
// line 1).
type csvRow struct {
	line   int
	fields []string
}

// csvFile is an imported file's rows and the digest of its bytes, which
// makes the idempotency keys of its rows: importing the same file twice
// replays, and changes nothing the second time.
type csvFile struct {
	rows   []csvRow
	digest string
}

// readCSVFile reads path, whose first line must be exactly header.
func readCSVFile(path string, header []string) (csvFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return csvFile{}, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, importFileSizeMax+1))
	if err != nil {
		return csvFile{}, fmt.Errorf("read %s: %w", path, err)
	}
	if len(raw) > importFileSizeMax {
		return csvFile{}, fmt.Errorf("%s: larger than %d MiB: split it", path, importFileSizeMax>>20)
	}
	sum := sha256.Sum256(raw)
	rows, err := parseCSV(strings.NewReader(string(raw)), header)
	if err != nil {
		return csvFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return csvFile{rows: rows, digest: hex.EncodeToString(sum[:8])}, nil
}

// parseCSV checks the header and returns the data rows with their lines.
func parseCSV(r io.Reader, header []string) ([]csvRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	cr.ReuseRecord = false
	got, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line 1: empty file; want the header %s", strings.Join(header, ","))
	}
	if err != nil || !slices.Equal(got, header) {
		return nil, fmt.Errorf("line 1: header must be exactly %s", strings.Join(header, ","))
	}
	var rows []csvRow
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				return nil, fmt.Errorf("line %d: %w", perr.Line, perr.Err)
			}
			return nil, err
		}
		if len(rows) == importRowsMax {
			return nil, fmt.Errorf("more than %d rows: split the file", importRowsMax)
		}
		rows = append(rows, csvRow{line: line, fields: fields})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no rows after the header")
	}
	return rows, nil
}

// rowErrors collects what is wrong with a file, line by line.
type rowErrors struct {
	lines []string
	count int
}

func (e *rowErrors) add(line int, format string, args ...any) {
	e.count++
	if len(e.lines) < rowErrorsShownMax {
		e.lines = append(e.lines, fmt.Sprintf("line %d: %s", line, fmt.Sprintf(format, args...)))
	}
}

// err is nil for a clean file, else every reported line and the count.
func (e *rowErrors) err() error {
	if e.count == 0 {
		return nil
	}
	msg := strings.Join(e.lines, "\n")
	if e.count > len(e.lines) {
		msg += fmt.Sprintf("\n… and %d more", e.count-len(e.lines))
	}
	return fmt.Errorf("%d bad rows, nothing written:\n%s", e.count, msg)
}

// Package csvimport reads, checks and applies CSV files from the system
// stockd replaces: SKUs, opening stock, open reservations, past demand and
// physical counts. The command line (stockd import) and the HTTP API
// (POST /v1/imports/{kind}) both go through it, so a file means the same
// whichever way it arrives, and a file sent again, either way, replays.
//
// Three steps, each whole before the next:
//   - Read parses the file within its Limits and checks its header;
//   - Check checks every row against the books as they stand, so that a
//     file with a bad row is refused whole (*BadFileError, every bad line
//     named) before anything is written;
//   - Plan.Apply sends the rows: stock-changing ones through the engine
//     (the one write path), each under a key made of the file's digest and
//     its line, so that a row applied once replays ever after. A row the
//     books refuse now (a request that won a race since the check) is
//     named in an *IncompleteError; sending the file again applies what
//     is missing and replays the rest.
package csvimport

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stockd/stockd"
)

// Kind is what a file holds.
type Kind string

const (
	KindSKUs         Kind = "skus"
	KindStock        Kind = "stock"
	KindReservations Kind = "reservations"
	KindDemand       Kind = "demand"
	KindCounts       Kind = "counts"
)

// Kinds lists every kind, in the order a migration imports them.
var Kinds = []Kind{KindSKUs, KindStock, KindReservations, KindDemand, KindCounts}

// headers is the one header each kind accepts.
var headers = map[Kind]string{
	KindSKUs:         "sku,name,unit",
	KindStock:        "sku,location,pool,quantity,reference",
	KindReservations: "key,sku,location,pool,quantity,status,expires_at,customer_id",
	KindDemand:       "sku,date,quantity",
	KindCounts:       "sku,location,counted_on_hand,counted_at",
}

// Header is the one header line a file of kind k must start with.
func (k Kind) Header() string { return headers[k] }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool { return slices.Contains(Kinds, k) }

// Limits bound one file: the whole file is checked before anything is
// written, so it is held in memory.
type Limits struct {
	BytesMax int64
	RowsMax  int
}

var (
	// LimitsHTTP bound a file sent over HTTP: one request, answered within
	// its deadline (10,000 receipts took 1.3 s on SQLite, 2.8 s on
	// PostgreSQL, see docs/benchmarks.md).
	LimitsHTTP = Limits{BytesMax: 2 << 20, RowsMax: 10_000}
	// LimitsFile bound a file the command line reads: a whole shop's
	// migration, with progress on the terminal.
	LimitsFile = Limits{BytesMax: 256 << 20, RowsMax: 1_000_000}
)

// LineErrorsMax bounds the bad lines one error lists; past it, the count
// alone.
const LineErrorsMax = 50

// ErrTooLarge is a file above its Limits: nothing of it was read further.
var ErrTooLarge = errors.New("file too large")

// LineError is one bad line of a file (the header is line 1): the
// domain's, so that errors carry it to the HTTP answer as they are.
type LineError = stockd.LineError

// lineErrors collects what is wrong with a file, line by line, keeping the
// first LineErrorsMax.
type lineErrors struct {
	lines []LineError
	count int
}

func (e *lineErrors) add(line int, format string, args ...any) {
	e.count++
	if len(e.lines) < LineErrorsMax {
		e.lines = append(e.lines, LineError{Line: line, Detail: fmt.Sprintf(format, args...)})
	}
}

// list returns the lines in file order.
func (e *lineErrors) list() []LineError {
	slices.SortStableFunc(e.lines, func(a, b LineError) int { return a.Line - b.Line })
	return e.lines
}

// BadFileError is a file refused whole: nothing of it was written.
type BadFileError struct {
	// Lines are the first LineErrorsMax bad lines, in file order.
	Lines []LineError
	// Count is how many lines are bad, listed or not.
	Count int
}

func (e *BadFileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d bad rows, nothing written:", e.Count)
	for _, l := range e.Lines {
		fmt.Fprintf(&b, "\nline %d: %s", l.Line, l.Detail)
	}
	if e.Count > len(e.Lines) {
		fmt.Fprintf(&b, "\n… and %d more", e.Count-len(e.Lines))
	}
	return b.String()
}

// badFile returns e as an error, nil when it holds no line.
func (e *lineErrors) badFile() error {
	if e.count == 0 {
		return nil
	}
	return &BadFileError{Lines: e.list(), Count: e.count}
}

// row is one data row and its line in the file.
type row struct {
	line   int
	fields []string
}

// File is a read file: its rows, and the digest of its bytes that makes
// the keys of its rows.
type File struct {
	Kind Kind
	// Digest is the first 16 hex digits of the SHA-256 of the file's
	// bytes: the same file, sent again by any way, has the same.
	Digest string
	rows   []row
	// bad are the rows with the wrong number of fields, left out of rows:
	// Check reports them with the others.
	bad lineErrors
}

// Rows is how many data rows the file has.
func (f *File) Rows() int { return len(f.rows) + f.bad.count }

// utf8BOM starts the CSV files some spreadsheets write.
var utf8BOM = []byte("\xef\xbb\xbf")

// Read reads a file of kind from r within lim. A file above lim is an
// error wrapping ErrTooLarge; a file that is not CSV, has another header
// or no row is a *BadFileError. Rows with the wrong number of fields are
// reported by Check, beside the other bad rows.
func Read(r io.Reader, kind Kind, lim Limits) (*File, error) {
	if !kind.Valid() {
		panic(fmt.Sprintf("csvimport: unknown kind %q", kind))
	}
	raw, err := io.ReadAll(io.LimitReader(r, lim.BytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("read %s file: %w", kind, err)
	}
	if int64(len(raw)) > lim.BytesMax {
		return nil, fmt.Errorf("%w: larger than %d bytes: split it", ErrTooLarge, lim.BytesMax)
	}
	sum := sha256.Sum256(raw)
	f := &File{Kind: kind, Digest: hex.EncodeToString(sum[:8])}
	header := strings.Split(kind.Header(), ",")
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, utf8BOM)))
	cr.FieldsPerRecord = len(header)
	var bad lineErrors
	got, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		bad.add(1, "empty file; want the header %s", kind.Header())
		return nil, bad.badFile()
	case err != nil || !slices.Equal(got, header):
		bad.add(1, "header must be exactly %s", kind.Header())
		return nil, bad.badFile()
	}
	for {
		fields, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if perr, ok := errors.AsType[*csv.ParseError](err); ok {
			bad.add(perr.Line, "%v", perr.Err)
			if errors.Is(perr.Err, csv.ErrFieldCount) {
				// The reader is still in step: the next rows are read, and
				// Check reports this line with theirs.
				continue
			}
			return nil, bad.badFile()
		}
		if err != nil {
			return nil, fmt.Errorf("read %s file: %w", kind, err)
		}
		line, _ := cr.FieldPos(0)
		if len(f.rows) == lim.RowsMax {
			return nil, fmt.Errorf("%w: more than %d rows: split it", ErrTooLarge, lim.RowsMax)
		}
		f.rows = append(f.rows, row{line: line, fields: fields})
	}
	if len(f.rows) == 0 && bad.count == 0 {
		bad.add(1, "no rows after the header")
		return nil, bad.badFile()
	}
	f.bad = bad
	return f, nil
}

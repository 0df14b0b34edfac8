package csvimport_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/csvimport/csvimporttest"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
)

// direct imports a file the way both transports do, without either.
func direct(s store.Store, e *engine.Engine, lim csvimport.Limits) func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error) {
	counter := reconcile.New(reconcile.Config{Store: s})
	return func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error) {
		ctx := context.Background()
		f, err := csvimport.Read(bytes.NewReader(body), kind, lim)
		if err != nil {
			return csvimport.Result{}, err
		}
		p, err := csvimport.Check(ctx, s, f, time.Now())
		if err != nil {
			return csvimport.Result{}, err
		}
		return p.Apply(ctx, csvimport.Apply{Engine: e, Store: s, Counter: counter})
	}
}

func TestImports(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		e := engine.New(engine.Config{Store: s})
		t.Cleanup(e.Close)
		csvimporttest.Exercise(t, csvimporttest.Env{Store: s, Engine: e, Now: time.Now, Limits: csvimport.LimitsHTTP, Send: direct(s, e, csvimport.LimitsHTTP)})
	})
}

// TestReadDigest: the digest is of the bytes, so a file's rows keep their
// keys whoever sends it; a spreadsheet's byte order mark is not a column.
func TestReadDigest(t *testing.T) {
	body := "sku,name,unit\nA,A,piece\n"
	a, err := csvimport.Read(strings.NewReader(body), csvimport.KindSKUs, csvimport.LimitsHTTP)
	if err != nil {
		t.Fatal(err)
	}
	b, err := csvimport.Read(strings.NewReader(body), csvimport.KindSKUs, csvimport.LimitsFile)
	if err != nil {
		t.Fatal(err)
	}
	withBOM, err := csvimport.Read(strings.NewReader("\ufeff"+body), csvimport.KindSKUs, csvimport.LimitsHTTP)
	if err != nil {
		t.Fatalf("a file with a byte order mark: %v", err)
	}
	if a.Digest != b.Digest || len(a.Digest) != 16 || withBOM.Digest == a.Digest || a.Rows() != 1 || withBOM.Rows() != 1 {
		t.Errorf("digests %s, %s, %s (rows %d, %d); want the first two equal, the third other", a.Digest, b.Digest, withBOM.Digest, a.Rows(), withBOM.Rows())
	}
}

// slowEngine answers each command as the engine does a caller whose
// context ended before its batch formed.
type slowEngine struct{}

func (slowEngine) Submit(ctx context.Context, _ stockd.Command) (stockd.Result, error) {
	<-ctx.Done()
	return stockd.Result{Err: stockd.Errorf(stockd.CodeCancelled, "request cancelled before it was applied")}, nil
}

// TestApplyPastItsDeadline: rows dropped because the import's deadline
// passed are the import's failure (send the file again), not rows the
// books refused.
func TestApplyPastItsDeadline(t *testing.T) {
	s := testdb.Backends()[0].New(t)
	f, err := csvimport.Read(strings.NewReader("sku,name,unit\nA,A,piece\nB,B,piece\n"), csvimport.KindSKUs, csvimport.LimitsHTTP)
	if err != nil {
		t.Fatal(err)
	}
	p, err := csvimport.Check(context.Background(), s, f, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = p.Apply(ctx, csvimport.Apply{Engine: slowEngine{}})
	if _, incomplete := errors.AsType[*csvimport.IncompleteError](err); incomplete || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Apply past its deadline: %v, want the deadline, not refused rows", err)
	}
}

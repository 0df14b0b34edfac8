package backtest

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Output file names, in the directory a backtest writes to. The fixed
// rule's files carry the same columns.
const (
	OrdersFile             = "orders.csv"
	NotificationsFile      = "notifications.csv"
	FixedOrdersFile        = "fixed-orders.csv"
	FixedNotificationsFile = "fixed-notifications.csv"
	SummaryFile            = "summary.txt"
	SKUSummaryFile         = "sku-summary.csv"
	DemandFile             = "demand.csv"
	SKUsFile               = "skus.csv"
)

// WriteFiles writes both policies' orders and notifications, the summary
// and the summary of each SKU under each policy into dir.
func (r *Result) WriteFiles(t *Trace, dir string) error {
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{OrdersFile, func(w io.Writer) error { return writeOrders(w, t, r.Policy.Orders) }},
		{NotificationsFile, func(w io.Writer) error { return writeNotifications(w, t, r.Policy.Notifications) }},
		{FixedOrdersFile, func(w io.Writer) error { return writeOrders(w, t, r.Fixed.Orders) }},
		{FixedNotificationsFile, func(w io.Writer) error { return writeNotifications(w, t, r.Fixed.Notifications) }},
		{SummaryFile, r.WriteSummary},
		{SKUSummaryFile, func(w io.Writer) error { return r.writeSKUSummaries(w, t) }},
	} {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

// WriteFiles writes the trace as demand.csv and skus.csv into dir, in the
// format ReadTrace reads: one demand row per SKU and day from its launch,
// zeros included.
func (t *Trace) WriteFiles(dir string) error {
	if err := writeFile(filepath.Join(dir, DemandFile), t.writeDemand); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, SKUsFile), t.writeSKUs)
}

func writeFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func writeCSV(w io.Writer, header []string, each func(row func(...string) error) error) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := each(func(fields ...string) error { return cw.Write(fields) }); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

func writeOrders(w io.Writer, t *Trace, orders []Order) error {
	return writeCSV(w, []string{"sku", "order_date", "quantity", "arrival_date"}, func(row func(...string) error) error {
		for _, o := range orders {
			if err := row(o.SKU, t.Date(o.OrderDay), strconv.FormatInt(o.Quantity, 10), t.Date(o.ArrivalDay)); err != nil {
				return err
			}
		}
		return nil
	})
}

func writeNotifications(w io.Writer, t *Trace, notes []Notification) error {
	return writeCSV(w, []string{"sku", "date", "level", "kind"}, func(row func(...string) error) error {
		for _, n := range notes {
			if err := row(n.SKU, t.Date(n.Day), n.Level, string(n.Kind)); err != nil {
				return err
			}
		}
		return nil
	})
}

func (t *Trace) writeDemand(w io.Writer) error {
	return writeCSV(w, strings.Split(DemandHeader, ","), func(row func(...string) error) error {
		for i, s := range t.SKUs {
			for day := t.Launch[i]; day < t.Days; day++ {
				if err := row(s.ID, t.Date(day), strconv.FormatInt(t.Demand[i][day], 10)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (t *Trace) writeSKUs(w io.Writer) error {
	float := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	integer := func(x int64) string { return strconv.FormatInt(x, 10) }
	return writeCSV(w, strings.Split(SKUsHeader, ","), func(row func(...string) error) error {
		for _, s := range t.SKUs {
			err := row(s.ID, float(s.LeadTimeDays), float(s.LeadTimeStddevDays), float(s.ServiceLevel), strconv.Itoa(s.CoverDays),
				integer(s.OrderMultiple), integer(s.MinOrderQuantity), integer(s.RedLine), s.Category, integer(s.InitialOnHand))
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *Result) writeSKUSummaries(w io.Writer, t *Trace) error {
	header := []string{"sku", "category", "policy", "stockout_days", "ended_empty_days", "demand", "demand_lost", "average_inventory", "orders", "units_ordered", "sent", "digest"}
	integer := func(x int64) string { return strconv.FormatInt(x, 10) }
	return writeCSV(w, header, func(row func(...string) error) error {
		for _, p := range []PolicyResult{r.Policy, r.Fixed} {
			for i, s := range p.PerSKU {
				err := row(s.Policy, t.SKUs[i].Category, p.Summary.Policy, integer(s.StockoutDays), integer(s.EndedEmptyDays), integer(s.Demand),
					integer(s.DemandLost), strconv.FormatFloat(s.AverageInventory, 'f', 2, 64), integer(s.Orders), integer(s.UnitsOrdered),
					integer(s.NotificationsSent), integer(s.NotificationsDigest))
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

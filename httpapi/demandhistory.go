package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// DemandHistoryImport is the body of POST /v1/demand-history: past daily
// sales of SKUs, one row per (SKU, business date).
type DemandHistoryImport struct {
	Rows []stockd.DemandDay `json:"rows"`
}

// DemandHistoryImported answers an import.
type DemandHistoryImported struct {
	Rows int `json:"rows"`
}

// The import talks to the store, not the engine: it changes no stock. It
// takes no Idempotency-Key because it is idempotent by nature: a row
// replaces the one imported before for its SKU and date, so sending the
// same rows again leaves the same history.
func (s *Server) importDemandHistory(w http.ResponseWriter, r *http.Request) {
	body, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	var req DemandHistoryImport
	if verr := decodeStrict(body, &req); verr != nil {
		writeProblem(w, verr)
		return
	}
	verr, err := s.checkDemandRows(r, req.Rows)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	err = s.store.DemandHistoryPut(r.Context(), store.DemandHistoryPutParams{Rows: req.Rows, At: s.now()})
	if errors.Is(err, store.ErrRejected) {
		// A SKU checked above and deleted since: SKUs are never deleted,
		// so this is the constraint doing its job as the last line.
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "a SKU of the rows is unknown"))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	s.audit(r, stockd.NewAuditEvent(s.now(), actingKeyID(r), "demand_history_import", fmt.Sprintf("%d rows", len(req.Rows)), stockd.AuditOutcomeDone, ""))
	writeJSON(w, http.StatusOK, DemandHistoryImported{Rows: len(req.Rows)})
}

// checkDemandRows refuses the whole request at its first bad row, naming
// the row: nothing of a bad import is written.
func (s *Server) checkDemandRows(r *http.Request, rows []stockd.DemandDay) (*stockd.Error, error) {
	if len(rows) == 0 || len(rows) > stockd.DemandHistoryRowsMax {
		return stockd.InvalidField("rows", "must hold 1 to %d rows", stockd.DemandHistoryRowsMax), nil
	}
	seen := make(map[[2]string]bool, len(rows))
	known := map[string]bool{}
	for i, row := range rows {
		if err := stockd.ValidDemandDay(row); err != nil {
			return stockd.InvalidField(fmt.Sprintf("rows[%d].%s", i, err.Field), "%s", strings.TrimPrefix(err.Message, err.Field+": ")), nil
		}
		k := [2]string{row.SKU, row.Date}
		if seen[k] {
			return stockd.InvalidField(fmt.Sprintf("rows[%d]", i), "%s on %s is given twice", row.SKU, row.Date), nil
		}
		seen[k] = true
		if _, checked := known[row.SKU]; !checked {
			_, err := s.store.SKUGet(r.Context(), row.SKU)
			if err != nil && !errors.Is(err, stockd.ErrNotFound) {
				return nil, err
			}
			known[row.SKU] = err == nil
		}
		if !known[row.SKU] {
			return stockd.Errorf(stockd.CodeUnknownSKU, "rows[%d]: sku %q is unknown", i, row.SKU), nil
		}
	}
	return nil, nil
}

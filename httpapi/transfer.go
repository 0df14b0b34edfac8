package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) transferRoutes() []route {
	return []route{
		{"POST /v1/transfers", "transfer_create", stockd.ScopeStock, s.createTransfer},
		{"GET /v1/transfers", "transfer_list", stockd.ScopeRead, s.listTransfers},
		{"GET /v1/transfers/{id}", "transfer_get", stockd.ScopeRead, s.getTransfer},
		{"POST /v1/transfers/{id}/receipts", "transfer_receipt_create", stockd.ScopeStock, s.createTransferReceipt},
		{"POST /v1/transfers/{id}/cancel", "transfer_cancel", stockd.ScopeStock, s.cancelTransfer},
	}
}

// Transfer is a transfer between locations and what arrived so far.
type Transfer struct {
	ID           string    `json:"id"`
	SKU          string    `json:"sku"`
	FromLocation string    `json:"from_location"`
	ToLocation   string    `json:"to_location"`
	Pool         string    `json:"pool"`
	Quantity     int64     `json:"quantity"`
	Received     int64     `json:"received"`
	Cancelled    int64     `json:"cancelled"`
	Outstanding  int64     `json:"outstanding"`
	Receipts     int       `json:"receipts"`
	Status       string    `json:"status"`
	Reference    string    `json:"reference,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

type transferRequest struct {
	SKU          string `json:"sku"`
	FromLocation string `json:"from_location"`
	ToLocation   string `json:"to_location"`
	Pool         string `json:"pool,omitempty"`
	Quantity     *int64 `json:"quantity"`
	Reference    string `json:"reference,omitempty"`
}

type quantityRequest struct {
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

func transferOut(d stockd.TransferDoc) Transfer {
	return Transfer{ID: d.ID, SKU: d.SKU, FromLocation: d.FromLocation, ToLocation: d.ToLocation, Pool: d.Pool,
		Quantity: d.Quantity, Received: d.Received, Cancelled: d.Cancelled, Outstanding: d.Outstanding(), Receipts: d.Receipts, Status: d.Status,
		Reference: d.Reference, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
}

func (s *Server) createTransfer(w http.ResponseWriter, r *http.Request) {
	var req transferRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.Transfer{
				SKU: req.SKU, FromLocation: req.FromLocation, ToLocation: req.ToLocation, Pool: req.Pool,
				Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(transferOut),
	})
}

// createTransferReceipt names the transfer only: the batch reads it and
// locks its SKU's positions (stockd.DocumentTouches), and an unknown id is
// the batch's not_found.
func (s *Server) createTransferReceipt(w http.ResponseWriter, r *http.Request) {
	var req quantityRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.TransferReceipt{
				TransferID: id, Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(transferOut),
	})
}

// cancelTransfer names the transfer only, as createTransferReceipt does.
func (s *Server) cancelTransfer(w http.ResponseWriter, r *http.Request) {
	s.mutateResource(w, r, "id", func(id string) stockd.Operation {
		return &stockd.TransferCancel{TransferID: id}
	}, objectOut(transferOut))
}

// TransferList is one page of GET /v1/transfers.
type TransferList struct {
	Transfers []Transfer `json:"transfers"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

func (s *Server) listTransfers(w http.ResponseWriter, r *http.Request) {
	p, verr := documentPage(r.URL.Query(), stockd.DocTransfer)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	docs, next, err := listDocuments[stockd.TransferDoc](s, r, p, nil)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := TransferList{Transfers: make([]Transfer, 0, len(docs)), NextAfter: next}
	for _, d := range docs {
		out.Transfers = append(out.Transfers, transferOut(d))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getTransfer(w http.ResponseWriter, r *http.Request) {
	var d stockd.TransferDoc
	if s.answerDocument(w, r, "id", stockd.DocTransfer, "transfer", &d) {
		writeJSON(w, http.StatusOK, transferOut(d))
	}
}

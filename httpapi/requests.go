package httpapi

// Request bodies of the mutations. Server decodes them strictly (unknown
// fields are refused) and Client encodes them. Numbers a request cannot do
// without are pointers, so that a missing one is told apart from a zero.

type skuRequest struct {
	SKU  string `json:"sku"`
	Name string `json:"name,omitempty"`
	Unit string `json:"unit,omitempty"`
	// Deduction defaults to at_order.
	Deduction string `json:"deduction,omitempty"`
	// ApprovalThreshold defaults to 100 units.
	ApprovalThreshold *int64 `json:"approval_threshold,omitempty"`
	// Bundle creates a bundle SKU, defined by POST /v1/bundles.
	Bundle bool `json:"bundle,omitempty"`
}

type locationRequest struct {
	Location string `json:"location"`
	Name     string `json:"name,omitempty"`
	// Priority defaults to 0 (tried first).
	Priority *int64 `json:"priority,omitempty"`
	// Active defaults to true.
	Active *bool `json:"active,omitempty"`
}

type receiptRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

// adjustmentRequest carries either Delta, or SetOnHand with
// ExpectedOnHand (compare-and-set for cycle counts).
type adjustmentRequest struct {
	SKU            string `json:"sku"`
	Location       string `json:"location,omitempty"`
	Pool           string `json:"pool,omitempty"`
	Reason         string `json:"reason"`
	Delta          *int64 `json:"delta,omitempty"`
	SetOnHand      *int64 `json:"set_on_hand,omitempty"`
	ExpectedOnHand *int64 `json:"expected_on_hand,omitempty"`
	Reference      string `json:"reference,omitempty"`
}

type reservationLineRequest struct {
	SKU      string `json:"sku"`
	Quantity *int64 `json:"quantity"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
}

type reservationRequest struct {
	Lines []reservationLineRequest `json:"lines"`
	// TTLSeconds defaults to 15 minutes when absent; an explicit 0 is out of
	// bounds.
	TTLSeconds *int64 `json:"ttl_seconds,omitempty"`
	Commit     bool   `json:"commit,omitempty"`
	// Strategy places lines without a location: priority (the default),
	// single_location or split.
	Strategy   string `json:"strategy,omitempty"`
	CustomerID string `json:"customer_id,omitempty"`
}

type releaseRequest struct {
	Reason string `json:"reason,omitempty"`
}

// emptyRequest is the body of confirm and fulfil: nothing, or {}.
type emptyRequest struct{}

type keyRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

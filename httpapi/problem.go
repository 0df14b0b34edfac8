package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/stockd/stockd"
)

// CodeMethodNotAllowed answers a known path asked with a method it does not
// serve. It is the one code the HTTP layer adds to the domain's: no command
// can produce it.
const CodeMethodNotAllowed = "method_not_allowed"

// problemTypePrefix makes a problem's type URI from its code. A URN, because
// the type identifies the problem and is not a page to fetch.
const problemTypePrefix = "urn:stockd:problem:"

// Problem is an RFC 9457 problem document with stockd's extensions.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
	// Field names the offending input field, where there is one.
	Field string `json:"field,omitempty"`
	// Lines lists the failing lines of insufficient_stock.
	Lines []ProblemLine `json:"lines,omitempty"`
	// ReservationStatus is the reservation's current status for
	// invalid_transition and reservation_expired. It cannot be named
	// "status": RFC 9457 gives that member the HTTP status.
	ReservationStatus string `json:"reservation_status,omitempty"`
	// ExistingID names what holds the business number of duplicate_order
	// (the reservation) and duplicate_reference (the first document's
	// business id).
	ExistingID string `json:"existing_id,omitempty"`
	// LineErrors names the lines of an imported file at fault
	// (invalid_csv, import_incomplete).
	LineErrors []stockd.LineError `json:"line_errors,omitempty"`
	// ExceptionID names the exception a late confirm's reservation_expired
	// recorded (GET /v1/exceptions/{id}).
	ExceptionID string `json:"exception_id,omitempty"`
	// Instance names this occurrence: for internal errors, the incident
	// id under which the server's log holds the details.
	Instance string `json:"instance,omitempty"`
}

// ProblemLine is one line that could not be served.
type ProblemLine struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool"`
	Requested int64  `json:"requested"`
	Available int64  `json:"available"`
}

// codeInfo is the one table from error code to HTTP status and title.
var codeInfo = map[string]struct {
	status int
	title  string
}{
	stockd.CodeInvalidInput:          {http.StatusBadRequest, "Invalid input"},
	stockd.CodeUnauthorized:          {http.StatusUnauthorized, "Unauthorized"},
	stockd.CodeForbidden:             {http.StatusForbidden, "Forbidden"},
	stockd.CodeInvalidJSON:           {http.StatusBadRequest, "Invalid JSON"},
	stockd.CodeIdempotencyKeyMissing: {http.StatusBadRequest, "Idempotency key missing"},
	stockd.CodeIdempotencyKeyInvalid: {http.StatusBadRequest, "Idempotency key invalid"},
	stockd.CodeUnprocessable:         {http.StatusUnprocessableEntity, "Unprocessable request"},
	stockd.CodeIdempotencyKeyReused:  {http.StatusUnprocessableEntity, "Idempotency key reused"},
	stockd.CodeAnswerPruned:          {http.StatusUnprocessableEntity, "Answer pruned"},
	stockd.CodeUnknownSKU:            {http.StatusNotFound, "Unknown SKU"},
	stockd.CodeUnknownLocation:       {http.StatusNotFound, "Unknown location"},
	stockd.CodeUnknownPool:           {http.StatusNotFound, "Unknown pool"},
	stockd.CodeNotFound:              {http.StatusNotFound, "Not found"},
	CodeMethodNotAllowed:             {http.StatusMethodNotAllowed, "Method not allowed"},
	stockd.CodeAlreadyExists:         {http.StatusConflict, "Already exists"},
	stockd.CodeInsufficientStock:     {http.StatusConflict, "Insufficient stock"},
	stockd.CodeStaleQuantity:         {http.StatusConflict, "Stale quantity"},
	stockd.CodeInvalidTransition:     {http.StatusConflict, "Invalid transition"},
	stockd.CodeReservationExpired:    {http.StatusConflict, "Reservation expired"},
	stockd.CodeBodyTooLarge:          {http.StatusRequestEntityTooLarge, "Body too large"},
	stockd.CodeUnsupportedMediaType:  {http.StatusUnsupportedMediaType, "Unsupported media type"},
	stockd.CodeOverloaded:            {http.StatusTooManyRequests, "Overloaded"},
	stockd.CodeRateLimited:           {http.StatusTooManyRequests, "Rate limited"},
	stockd.CodePurchaseLimitExceeded: {http.StatusConflict, "Purchase limit exceeded"},
	stockd.CodeCampaignNotActive:     {http.StatusConflict, "Campaign not active"},
	stockd.CodeLocationInactive:      {http.StatusConflict, "Location inactive"},
	stockd.CodeDeductionTiming:       {http.StatusConflict, "Deduction timing"},
	stockd.CodeSelfApproval:          {http.StatusForbidden, "Self approval"},
	stockd.CodeQuantityExceeded:      {http.StatusConflict, "Quantity exceeded"},
	stockd.CodeDuplicateOrder:        {http.StatusConflict, "Duplicate order"},
	stockd.CodeDuplicateReference:    {http.StatusConflict, "Duplicate reference"},
	stockd.CodeGateClosed:            {http.StatusConflict, "Gate closed"},
	// The caller went away before an answer was decided; 499 is not a
	// registered status, and 503 tells a retrying client the truth: try
	// again, with the same key.
	stockd.CodeCancelled:           {http.StatusServiceUnavailable, "Cancelled"},
	stockd.CodeTimeout:             {http.StatusServiceUnavailable, "Timeout"},
	stockd.CodeDatabaseUnavailable: {http.StatusServiceUnavailable, "Database unavailable"},
	stockd.CodeHalted:              {http.StatusServiceUnavailable, "Halted"},
	stockd.CodeGateUnavailable:     {http.StatusServiceUnavailable, "Gate unavailable"},
	stockd.CodeNotPersisted:        {http.StatusServiceUnavailable, "Reservation not persisted"},
	stockd.CodeInternal:            {http.StatusInternalServerError, "Internal error"},
	stockd.CodeUnknownDiscrepancy:  {http.StatusNotFound, "Unknown discrepancy"},
	stockd.CodeDiscrepancyClosed:   {http.StatusConflict, "Discrepancy closed"},
	stockd.CodeInvalidCSV:          {http.StatusBadRequest, "Invalid CSV"},
	stockd.CodeImportIncomplete:    {http.StatusConflict, "Import incomplete"},
	stockd.CodeAsOfArchived:        {http.StatusBadRequest, "As of archived"},
	stockd.CodePreconditionFailed:  {http.StatusPreconditionFailed, "Precondition failed"},
}

// retryAfterSeconds is the Retry-After of the answers that say "later":
// a full queue and a slow database clear within a second or two; a halted
// engine needs an operator.
var retryAfterSeconds = map[string]string{
	stockd.CodeOverloaded:          "1",
	stockd.CodeCancelled:           "1",
	stockd.CodeTimeout:             "1",
	stockd.CodeDatabaseUnavailable: "2",
	stockd.CodeHalted:              "60",
	stockd.CodeGateUnavailable:     "1",
	stockd.CodeNotPersisted:        "1",
}

// statusOf returns the HTTP status of an error code. A code missing from
// the table is a bug; it is answered as internal rather than guessed.
func statusOf(code string) int {
	if info, ok := codeInfo[code]; ok {
		return info.status
	}
	return http.StatusInternalServerError
}

// problemOf renders a domain error. Unknown codes become internal: the
// caller must never see a status the table does not promise.
func problemOf(e *stockd.Error) Problem {
	info, ok := codeInfo[e.Code]
	if !ok {
		return problemOf(&stockd.Error{Code: stockd.CodeInternal, Message: "internal error"})
	}
	p := Problem{
		Type:              problemTypePrefix + e.Code,
		Title:             info.title,
		Status:            info.status,
		Detail:            e.Message,
		Code:              e.Code,
		Field:             e.Field,
		ReservationStatus: string(e.Status),
		ExistingID:        e.ExistingID,
		LineErrors:        e.LineErrors,
		ExceptionID:       e.ExceptionID,
	}
	for _, l := range e.Lines {
		p.Lines = append(p.Lines, ProblemLine(l))
	}
	return p
}

// errorOf turns a problem back into the domain error, for Client.
func errorOf(p Problem) *stockd.Error {
	e := &stockd.Error{Code: p.Code, Message: p.Detail, Field: p.Field, Status: stockd.ReservationStatus(p.ReservationStatus), ExistingID: p.ExistingID,
		LineErrors: p.LineErrors, ExceptionID: p.ExceptionID}
	for _, l := range p.Lines {
		e.Lines = append(e.Lines, stockd.Shortfall(l))
	}
	return e
}

// writeProblem answers e as application/problem+json and records its code
// for the request metrics.
func writeProblem(w http.ResponseWriter, e *stockd.Error) {
	writeProblemAt(w, e, "")
}

// writeProblemAt is writeProblem with the problem's instance.
func writeProblemAt(w http.ResponseWriter, e *stockd.Error, instance string) {
	p := problemOf(e)
	p.Instance = instance
	if seconds, ok := retryAfterSeconds[p.Code]; ok && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", seconds)
	}
	if rec, ok := w.(*recorder); ok {
		rec.code = p.Code
	}
	writeBody(w, "application/problem+json", p.Status, p)
}

// writeJSON answers v as application/json.
func writeJSON(w http.ResponseWriter, status int, v any) {
	writeBody(w, "application/json", status, v)
}

// answerSizeHint is the buffer a self-encoding answer starts with: a
// reservation of a few lines fits.
const answerSizeHint = 512

func writeBody(w http.ResponseWriter, contentType string, status int, v any) {
	var body []byte
	if a, ok := v.(jsonAppender); ok {
		body = a.appendJSON(make([]byte, 0, answerSizeHint))
	} else {
		var err error
		if body, err = json.Marshal(v); err != nil {
			// Every answer is one of our own types: failing to encode it is a bug.
			panic("httpapi: answer not encodable: " + err.Error())
		}
	}
	body = append(body, '\n')
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	// A failed write means the caller is gone; there is no one left to tell.
	_, _ = w.Write(body)
}

package stockd

const (
	KindLocationUpdate CommandKind = "location_update"
	KindSKUUpdate      CommandKind = "sku_update"
)

// DocSettings (id "location:<id>" or "sku:<id>") counts the setting
// changes of one location or SKU. Its real job is its row lock: catalogue
// rows are read without one, so two partial updates of one location (or of
// a SKU with no positions) would each write back the other's old fields.
// Locking this document first serialises them; the first one ever is
// serialised by the document's insert, whose loser is retried.
const DocSettings = "settings"

// Settings is the DocSettings document.
type Settings struct {
	Changes int64 `json:"changes"`
}

// settingsChanged records one more change under the settings document id.
func (s *BatchState) settingsChanged(id string) {
	var st Settings
	s.docGet(DocSettings, id, &st)
	st.Changes++
	s.docPut(DocSettings, id, st)
}

// LocationUpdate changes the settings of a location; a nil field is left
// as it is.
type LocationUpdate struct {
	ID       string
	Name     *string
	Priority *int
	Active   *bool
}

func (u *LocationUpdate) Kind() CommandKind { return KindLocationUpdate }

// Touches names the location's settings document only: every batch reads
// the locations, and placement decided under the old settings by a batch
// that committed first is a fair outcome.
func (u *LocationUpdate) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocSettings, ID: "location:" + u.ID})
}

func (u *LocationUpdate) normalize() *Error {
	if !ValidIdentifier(u.ID) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if u.Name == nil && u.Priority == nil && u.Active == nil {
		return Errorf(CodeUnprocessable, "give at least one of name, priority, active")
	}
	if u.Name != nil {
		if err := validText("name", *u.Name, NameLengthMax, false); err != nil {
			return err
		}
	}
	if u.Priority != nil && (*u.Priority < 0 || *u.Priority > LocationPriorityMax) {
		return InvalidField("priority", "must be from 0 to %d", LocationPriorityMax)
	}
	return nil
}

func (u *LocationUpdate) decide(s *BatchState, c *Command) Result {
	loc, ok := s.Locations[u.ID]
	if !ok {
		return Result{Err: Errorf(CodeUnknownLocation, "location %q is unknown", u.ID)}
	}
	if u.Name != nil {
		loc.Name = *u.Name
	}
	if u.Priority != nil {
		loc.Priority = *u.Priority
	}
	if u.Active != nil {
		loc.Inactive = !*u.Active
	}
	s.Locations[u.ID] = loc
	s.locsDirty[u.ID] = true
	s.settingsChanged("location:" + u.ID)
	return Result{Location: &loc}
}

// SKUUpdate changes the settings of a SKU; a nil field is left as it is.
type SKUUpdate struct {
	ID                string
	Name              *string
	Deduction         *string
	ApprovalThreshold *int64
	// Replenishment changes the SKU's replenishment settings (the
	// DocReplenishment document): the fields it sets replace the SKU's.
	Replenishment ReplenishmentSettings
}

func (u *SKUUpdate) Kind() CommandKind { return KindSKUUpdate }

// Touches locks the SKU's positions: a change of deduction timing or
// threshold then falls wholly before or after each reservation and
// adjustment of the SKU.
func (u *SKUUpdate) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, u.ID)
	t.Docs = append(t.Docs, DocKey{Kind: DocSettings, ID: "sku:" + u.ID}, DocKey{Kind: DocReplenishment, ID: u.ID})
}

func (u *SKUUpdate) normalize() *Error {
	if !ValidIdentifier(u.ID) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if u.Name == nil && u.Deduction == nil && u.ApprovalThreshold == nil && u.Replenishment.empty() {
		return Errorf(CodeUnprocessable, "give at least one of name, deduction, approval_threshold or a replenishment setting")
	}
	if err := u.Replenishment.normalize(); err != nil {
		return err
	}
	if u.Name != nil {
		if err := validText("name", *u.Name, NameLengthMax, false); err != nil {
			return err
		}
	}
	if u.Deduction != nil {
		switch *u.Deduction {
		case DeductionAtOrder, DeductionAtPayment, DeductionAtShipment:
		default:
			return InvalidField("deduction", "must be one of at_order, at_payment, at_shipment")
		}
	}
	if u.ApprovalThreshold != nil && (*u.ApprovalThreshold < 1 || *u.ApprovalThreshold > QuantityMax) {
		return InvalidField("approval_threshold", "must be an integer from 1 to %d", QuantityMax)
	}
	return nil
}

func (u *SKUUpdate) decide(s *BatchState, c *Command) Result {
	sku, ok := s.SKUs[u.ID]
	if !ok {
		return Result{Err: Errorf(CodeUnknownSKU, "sku %q is unknown", u.ID)}
	}
	if u.Name != nil {
		sku.Name = *u.Name
	}
	if u.Deduction != nil {
		sku.Deduction = *u.Deduction
	}
	if u.ApprovalThreshold != nil {
		sku.ApprovalThreshold = *u.ApprovalThreshold
	}
	s.SKUs[u.ID] = sku
	s.skusDirty[u.ID] = true
	s.settingsChanged("sku:" + u.ID)
	// The answer carries the SKU's replenishment settings whatever changed,
	// so that one PATCH answer shows the whole of the SKU's settings.
	var settings ReplenishmentSettings
	s.docGet(DocReplenishment, u.ID, &settings)
	if !u.Replenishment.empty() {
		settings.merge(u.Replenishment)
		s.docPut(DocReplenishment, u.ID, settings)
	}
	return Result{SKU: &sku, Object: objectOf(settings)}
}

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

// settingsChanged records one more change under the settings document id
// and returns the document's version after it.
func (s *BatchState) settingsChanged(id string) int64 {
	var st Settings
	s.docGet(DocSettings, id, &st)
	st.Changes++
	s.docPut(DocSettings, id, st)
	return s.docVersion(DocSettings, id)
}

// SettingsID is the id of the DocSettings document of a location
// ("location") or a SKU ("sku"): its Version is the ETag of the one's
// settings.
func SettingsID(kind, id string) string { return kind + ":" + id }

// docVersion returns the version of a document as this batch holds it: 0
// for one never written. Each batch raises a document's version once,
// whatever number of its commands change it, so two changes in one batch
// share a version; the second is still refused against the first's
// caller's version, which the first made stale.
func (s *BatchState) docVersion(kind, id string) int64 {
	if d, ok := s.Docs[DocKey{Kind: kind, ID: id}]; ok {
		return d.Version
	}
	return 0
}

// checkVersion refuses a settings change whose caller read a version of
// the settings (If-Match) other than the current one. Decided under the
// document's lock, so no change slips between the check and the write.
func (s *BatchState) checkVersion(kind, id string, ifMatch *int64) *Error {
	if ifMatch == nil {
		return nil
	}
	if v := s.docVersion(kind, id); v != *ifMatch {
		return Errorf(CodePreconditionFailed, "the settings are at version %d, not the %d If-Match names: read them again", v, *ifMatch)
	}
	return nil
}

// validIfMatch checks an expected version.
func validIfMatch(ifMatch *int64) *Error {
	if ifMatch != nil && *ifMatch < 0 {
		return InvalidField("If-Match", "must be a version the server sent (a non-negative integer in quotes)")
	}
	return nil
}

// LocationUpdate changes the settings of a location; a nil field is left
// as it is.
type LocationUpdate struct {
	ID       string
	Name     *string
	Priority *int
	Active   *bool
	// IfMatch, when set, applies the change only if the location's
	// settings are still at this version.
	IfMatch *int64
}

func (u *LocationUpdate) Kind() CommandKind { return KindLocationUpdate }

// Touches names the location's settings document only: every batch reads
// the locations, and placement decided under the old settings by a batch
// that committed first is a fair outcome.
func (u *LocationUpdate) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocSettings, ID: SettingsID("location", u.ID)})
}

func (u *LocationUpdate) normalize() *Error {
	if !ValidIdentifier(u.ID) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validIfMatch(u.IfMatch); err != nil {
		return err
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
	if err := s.checkVersion(DocSettings, SettingsID("location", u.ID), u.IfMatch); err != nil {
		return Result{Err: err}
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
	s.locationsChanged()
	s.locsDirty[u.ID] = true
	version := s.settingsChanged(SettingsID("location", u.ID))
	return Result{Location: &loc, Version: version}
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
	// IfMatch, when set, applies the change only if the SKU's settings are
	// still at this version.
	IfMatch *int64
}

func (u *SKUUpdate) Kind() CommandKind { return KindSKUUpdate }

// Touches locks the SKU's positions: a change of deduction timing or
// threshold then falls wholly before or after each reservation and
// adjustment of the SKU.
func (u *SKUUpdate) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, u.ID)
	t.Docs = append(t.Docs, DocKey{Kind: DocSettings, ID: SettingsID("sku", u.ID)}, DocKey{Kind: DocReplenishment, ID: u.ID})
}

func (u *SKUUpdate) normalize() *Error {
	if !ValidIdentifier(u.ID) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validIfMatch(u.IfMatch); err != nil {
		return err
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
	if err := s.checkVersion(DocSettings, SettingsID("sku", u.ID), u.IfMatch); err != nil {
		return Result{Err: err}
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
	version := s.settingsChanged(SettingsID("sku", u.ID))
	// The answer carries the SKU's replenishment settings whatever changed,
	// so that one PATCH answer shows the whole of the SKU's settings.
	var settings ReplenishmentSettings
	s.docGet(DocReplenishment, u.ID, &settings)
	if !u.Replenishment.empty() {
		settings.merge(u.Replenishment)
		s.docPut(DocReplenishment, u.ID, settings)
	}
	return Result{SKU: &sku, Object: objectOf(settings), Version: version}
}

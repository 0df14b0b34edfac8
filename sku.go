package stockd

const KindSKUCreate CommandKind = "sku_create"

// SKUCreate creates a SKU; its answer is the SKU (Result.SKU).
type SKUCreate struct{ SKU SKU }

func (o *SKUCreate) Kind() CommandKind { return KindSKUCreate }

// Touches names the SKU: a batch creating it and one receiving it serialise
// on its positions.
func (o *SKUCreate) Touches(t *Touches) { t.SKUs = append(t.SKUs, o.SKU.ID) }

func (o *SKUCreate) normalize() *Error {
	s := &o.SKU
	if !ValidIdentifier(s.ID) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validText("name", s.Name, NameLengthMax, false); err != nil {
		return err
	}
	if s.Unit == "" {
		s.Unit = "piece"
	}
	if s.Deduction == "" {
		s.Deduction = DeductionAtOrder
	}
	switch s.Deduction {
	case DeductionAtOrder, DeductionAtPayment, DeductionAtShipment:
	default:
		return InvalidField("deduction", "must be one of at_order, at_payment, at_shipment")
	}
	if s.ApprovalThreshold < 0 || s.ApprovalThreshold > QuantityMax {
		return InvalidField("approval_threshold", "must be an integer from 1 to %d", QuantityMax)
	}
	return validText("unit", s.Unit, IdentifierLengthMax, false)
}

func (o *SKUCreate) decide(s *BatchState, _ *Command) Result {
	sku := o.SKU
	if _, ok := s.SKUs[sku.ID]; ok {
		return Result{Err: Errorf(CodeAlreadyExists, "sku %q already exists", sku.ID)}
	}
	sku.CreatedAt = s.Now
	s.SKUs[sku.ID] = sku
	s.writes.SKUs = append(s.writes.SKUs, sku)
	return Result{SKU: &sku, Created: true}
}

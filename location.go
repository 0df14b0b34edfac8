package stockd

const KindLocationCreate CommandKind = "location_create"

// LocationCreate creates a location; its answer is the location
// (Result.Location).
type LocationCreate struct{ Location Location }

func (o *LocationCreate) Kind() CommandKind { return KindLocationCreate }

// Touches names nothing: every batch reads all locations.
func (o *LocationCreate) Touches(*Touches) {}

func (o *LocationCreate) normalize() *Error {
	l := &o.Location
	if !ValidIdentifier(l.ID) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if l.Priority < 0 || l.Priority > LocationPriorityMax {
		return InvalidField("priority", "must be from 0 to %d", LocationPriorityMax)
	}
	return validText("name", l.Name, NameLengthMax, false)
}

func (o *LocationCreate) decide(s *BatchState, _ *Command) Result {
	loc := o.Location
	if _, ok := s.Locations[loc.ID]; ok {
		return Result{Err: Errorf(CodeAlreadyExists, "location %q already exists", loc.ID)}
	}
	loc.CreatedAt = s.Now
	s.Locations[loc.ID] = loc
	s.locationsChanged()
	s.writes.Locations = append(s.writes.Locations, loc)
	return Result{Location: &loc, Created: true}
}

package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) locationRoutes() []route {
	return []route{
		{"POST /v1/locations", "location_create", stockd.ScopeAdmin, s.createLocation},
		{"GET /v1/locations", "location_list", stockd.ScopeRead, s.listLocations},
		{"GET /v1/locations/{location}", "location_get", stockd.ScopeRead, s.getLocation},
	}
}

// Location is a place that holds stock; lower priority numbers are tried
// first when a reservation line names no location.
type Location struct {
	Location  string    `json:"location"`
	Name      string    `json:"name"`
	Priority  int       `json:"priority"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
	// ETag: see SKU.ETag.
	ETag string `json:"-"`
}

// LocationList is the answer of GET /v1/locations.
type LocationList struct {
	Locations []Location `json:"locations"`
}

type locationRequest struct {
	Location string `json:"location"`
	Name     string `json:"name,omitempty"`
	// Priority defaults to 0 (tried first).
	Priority *int64 `json:"priority,omitempty"`
	// Active defaults to true.
	Active *bool `json:"active,omitempty"`
}

func locationOut(l stockd.Location) Location {
	return Location{Location: l.ID, Name: l.Name, Priority: l.Priority, Active: !l.Inactive, CreatedAt: l.CreatedAt.UTC()}
}

func (s *Server) createLocation(w http.ResponseWriter, r *http.Request) {
	var req locationRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			var priority int64
			if req.Priority != nil {
				priority = *req.Priority
			}
			if priority < 0 || priority > stockd.LocationPriorityMax {
				return stockd.Command{}, stockd.InvalidField("priority", "must be from 0 to %d", stockd.LocationPriorityMax)
			}
			inactive := req.Active != nil && !*req.Active
			return stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: req.Location, Name: req.Name, Priority: int(priority), Inactive: inactive}}}, nil
		},
		answer: func(res stockd.Result) any { return locationOut(*res.Location) },
	})
}

func (s *Server) listLocations(w http.ResponseWriter, r *http.Request) {
	locations, err := s.store.LocationList(r.Context())
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := LocationList{Locations: make([]Location, 0, len(locations))}
	for _, l := range locations {
		out.Locations = append(out.Locations, locationOut(l))
	}
	writeJSON(w, http.StatusOK, out)
}

// getLocation answers one location, with the version of its settings as
// the ETag a PATCH may name in If-Match. Locations are few (every batch
// reads them all), so it reads the list rather than widen the store.
func (s *Server) getLocation(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "location")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	version, err := s.settingsVersion(r.Context(), stockd.DocSettings, stockd.SettingsID("location", id))
	if err != nil {
		s.failure(w, r, err)
		return
	}
	locations, err := s.store.LocationList(r.Context())
	if err != nil {
		s.failure(w, r, err)
		return
	}
	for _, l := range locations {
		if l.ID == id {
			w.Header().Set(headerETag, etag(version))
			writeJSON(w, http.StatusOK, locationOut(l))
			return
		}
	}
	writeProblem(w, stockd.Errorf(stockd.CodeUnknownLocation, "location %q is unknown", id))
}

package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

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

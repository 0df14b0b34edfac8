package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) settingsRoutes() []route {
	return []route{
		{"PATCH /v1/locations/{location}", "location_update", stockd.ScopeAdmin, s.updateLocation},
		{"PATCH /v1/skus/{sku}", "sku_update", stockd.ScopeAdmin, s.updateSKU},
	}
}

type locationUpdateRequest struct {
	Name     *string `json:"name,omitempty"`
	Priority *int64  `json:"priority,omitempty"`
	Active   *bool   `json:"active,omitempty"`
}

type skuUpdateRequest struct {
	Name              *string `json:"name,omitempty"`
	Deduction         *string `json:"deduction,omitempty"`
	ApprovalThreshold *int64  `json:"approval_threshold,omitempty"`
	// The replenishment settings sit beside the others, flat.
	stockd.ReplenishmentSettings
}

func (s *Server) updateLocation(w http.ResponseWriter, r *http.Request) {
	var req locationUpdateRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, verr := pathIdentifier(r, "location")
			if verr != nil {
				return stockd.Command{}, verr
			}
			version, verr := ifMatch(r)
			if verr != nil {
				return stockd.Command{}, verr
			}
			op := &stockd.LocationUpdate{ID: id, Name: req.Name, Active: req.Active, IfMatch: version}
			if req.Priority != nil {
				if *req.Priority < 0 || *req.Priority > stockd.LocationPriorityMax {
					return stockd.Command{}, stockd.InvalidField("priority", "must be from 0 to %d", stockd.LocationPriorityMax)
				}
				priority := int(*req.Priority)
				op.Priority = &priority
			}
			return stockd.Command{Op: op}, nil
		},
		answer:  func(res stockd.Result) any { return locationOut(*res.Location) },
		headers: versionHeader,
	})
}

func (s *Server) updateSKU(w http.ResponseWriter, r *http.Request) {
	var req skuUpdateRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, verr := pathIdentifier(r, "sku")
			if verr != nil {
				return stockd.Command{}, verr
			}
			version, verr := ifMatch(r)
			if verr != nil {
				return stockd.Command{}, verr
			}
			op := &stockd.SKUUpdate{ID: id, Name: req.Name, Deduction: req.Deduction, ApprovalThreshold: req.ApprovalThreshold,
				Replenishment: req.ReplenishmentSettings, IfMatch: version}
			return stockd.Command{Op: op}, nil
		},
		answer: func(res stockd.Result) any {
			out := skuOut(*res.SKU)
			out.Replenishment = &stockd.ReplenishmentSettings{}
			// Answers stored before the SKU's settings were part of them
			// carry no object.
			if len(res.Object) > 0 {
				if err := json.Unmarshal(res.Object, out.Replenishment); err != nil {
					panic("httpapi: sku_update answer not decodable: " + err.Error())
				}
			}
			return out
		},
		headers: versionHeader,
	})
}

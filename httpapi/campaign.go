package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) campaignRoutes() []route {
	return []route{
		{"POST /v1/campaigns/{pool}/close", "campaign_close", stockd.ScopeAdmin, s.closeCampaign},
	}
}

func (s *Server) closeCampaign(w http.ResponseWriter, r *http.Request) {
	s.mutateResource(w, r, "pool", func(pool string) stockd.Operation {
		return &stockd.CampaignClose{Pool: pool}
	}, objectAnswer[Pool])
}

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
	}, func(res stockd.Result) any {
		p := objectAnswer[Pool](res).(Pool)
		if p.Gate != "" && s.gate != nil {
			// No win after the close: the gate is paused for good. The
			// database refuses any that slipped in between (an exception).
			if err := s.gate.Shut(r.Context(), p.Pool); err != nil {
				s.logger.Error("gate: pause the closed campaign", "pool", p.Pool, "err", err)
			}
		}
		return p
	})
}

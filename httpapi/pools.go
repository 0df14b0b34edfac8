package httpapi

// poolRoutes serves pools, allocations, campaigns, location and SKU
// settings, and adjustment approvals.
func (s *Server) poolRoutes() []route {
	return nil
}

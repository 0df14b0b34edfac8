package httpapi

// flowRoutes serves returns, quarantine, moves, shipments, transfers and
// purchase orders.
func (s *Server) flowRoutes() []route {
	return nil
}

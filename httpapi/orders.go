package httpapi

// orderRoutes serves bundles and purchase limits.
func (s *Server) orderRoutes() []route {
	return nil
}

package httpapi

import (
	"context"
	"net/http"
	"strconv"
)

// AlertsParams select a page of alerts; empty filters match all.
type AlertsParams struct {
	Level  string
	Status string
	SKU    string
	After  int64
	Limit  int
}

// Alerts reads one page of alerts; pass NextAfter as After for the next.
func (c *Client) Alerts(ctx context.Context, p AlertsParams) (AlertPage, error) {
	q := pageQuery(p.After, p.Limit)
	for name, v := range map[string]string{"level": p.Level, "status": p.Status, "sku": p.SKU} {
		if v != "" {
			q.Set(name, v)
		}
	}
	var out AlertPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/alerts?" + q.Encode(), out: &out})
	return out, err
}

// Alert reads one alert.
func (c *Client) Alert(ctx context.Context, id int64) (Alert, error) {
	var out Alert
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/alerts/" + strconv.FormatInt(id, 10), out: &out})
	return out, err
}

// AckAlert acknowledges an alert with the client's key; acknowledging
// twice answers the first acknowledgement.
func (c *Client) AckAlert(ctx context.Context, id int64) (Alert, error) {
	var out Alert
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/alerts/" + strconv.FormatInt(id, 10) + "/ack", out: &out})
	return out, err
}

// AlertDeliveries reads the delivery log of one alert.
func (c *Client) AlertDeliveries(ctx context.Context, id int64) (AlertDeliveryList, error) {
	var out AlertDeliveryList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/alerts/" + strconv.FormatInt(id, 10) + "/deliveries", out: &out})
	return out, err
}

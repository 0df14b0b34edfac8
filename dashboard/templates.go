package dashboard

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/stockd/stockd"
)

// pageNames are the templates under templates/, each parsed with the
// layout.
var pageNames = []string{"overview", "skus", "sku", "campaigns", "alerts", "discrepancies", "signin", "error"}

func parsePages() map[string]*template.Template {
	funcs := template.FuncMap{
		"num": num, "when": when, "delta": delta, "signed": signed, "counters": counters,
		"list":  func(s ...string) []string { return s },
		"deref": func(t *time.Time) time.Time { return *t },
		"float": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	}
	pages := make(map[string]*template.Template, len(pageNames))
	for _, name := range pageNames {
		pages[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	return pages
}

// num writes n with thin groups of three digits: 12 345.
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString("\u202f")
		}
		b.WriteRune(c)
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

func signed(n int64) string {
	if n > 0 {
		return "+" + num(n)
	}
	return num(n)
}

func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// delta names the counters an entry changed: "on_hand +10, reserved −2".
func delta(c stockd.Counters) string {
	var parts []string
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"on_hand", c.OnHand}, {"reserved", c.Reserved}, {"committed", c.Committed},
		{"quarantined", c.Quarantined}, {"in_transit", c.InTransit}, {"incoming", c.Incoming},
	} {
		if f.n != 0 {
			parts = append(parts, fmt.Sprintf("%s %s", f.name, signed(f.n)))
		}
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

// counters writes the counters a discrepancy names: "on_hand 12, reserved 3".
func counters(c stockd.Counters) string {
	var parts []string
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"on_hand", c.OnHand}, {"reserved", c.Reserved}, {"committed", c.Committed},
		{"quarantined", c.Quarantined}, {"in_transit", c.InTransit}, {"incoming", c.Incoming},
	} {
		if f.n != 0 {
			parts = append(parts, f.name+" "+num(f.n))
		}
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

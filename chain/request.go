package chain

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// HTTPRequest is a request ExplainRequest follows through a chain: its method, its path
// (without the query string) and its headers and query parameters, one value each. Header
// names are matched in any case, as HTTP's are; everything else as written.
type HTTPRequest struct {
	Method string
	Path   string
	Header map[string]string
	Query  map[string]string
}

// ParseHTTPRequest reads a request line such as "GET /api/users?id=7" — a method, a space
// and a path starting with "/", whose query string, if any, gives Query (decoded, the first
// value of a name repeated) — and header lines such as "x-env: canary" (a name, a colon, the
// value; the last of a name repeated wins). An error's Field names the argument at fault:
// "line", or "headers[i]" for the i-th header line.
func ParseHTTPRequest(line string, headers ...string) (HTTPRequest, error) {
	method, target, ok := strings.Cut(strings.TrimSpace(line), " ")
	target = strings.TrimSpace(target)
	if !ok || method == "" || strings.ContainsAny(target, " \t") {
		return HTTPRequest{}, &FieldError{Field: "line", Value: line, Detail: fmt.Sprintf("%q is not a request line: want a method and a path, such as \"GET /api\"", line), Err: errHTTPRequest}
	}
	path, rawQuery, _ := strings.Cut(target, "?")
	r := HTTPRequest{Method: method, Path: path}
	if !strings.HasPrefix(path, "/") {
		return HTTPRequest{}, badPath("line", path)
	}
	for i, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if name = strings.TrimSpace(name); !ok || name == "" || strings.ContainsAny(name, " \t") {
			return HTTPRequest{}, &FieldError{Field: strict.Index("headers", i), Value: h, Detail: fmt.Sprintf("%q is not a header line: want a name, a colon and a value, such as \"x-env: canary\"", h), Err: errHTTPRequest}
		}
		if r.Header == nil {
			r.Header = make(map[string]string, len(headers))
		}
		r.Header[name] = strings.TrimSpace(value)
	}
	if rawQuery != "" {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return HTTPRequest{}, &FieldError{Field: "line", Value: rawQuery, Detail: fmt.Sprintf("the query string %q does not decode: %v", rawQuery, err), Err: errHTTPRequest}
		}
		r.Query = make(map[string]string, len(q))
		for k, vs := range q {
			r.Query[k] = vs[0]
		}
	}
	return r, nil
}

// badPath is the error for a request path, given as field, that does not start with "/".
func badPath(field, path string) *FieldError {
	return &FieldError{Field: field, Value: path, Detail: fmt.Sprintf("the path %q does not start with \"/\"", path), Err: errHTTPRequest}
}

// RequestExplanation is where a chain sends one request: the routes tried, the one taken,
// and the legs the request is split into.
type RequestExplanation struct {
	Request HTTPRequest
	// Router is the router node's key, "" when the chain has no router. Routes are its
	// routes tried, in order, up to the one taken (the catch-all last); Route is the index
	// of the one taken.
	Router string
	Routes []RouteCheck
	Route  int
	// Splitter is the splitter node the request reached, "" for none.
	Splitter string
	// Legs are where the request goes: one per split of the splitter, by weight, or one of
	// weight 100.
	Legs []Leg
}

// RouteCheck is one route tried: whether it matches, and if not, the first matcher that
// does not (in Envoy's order: the path, the headers, the methods, the query parameters).
type RouteCheck struct {
	Index    int
	CatchAll bool   // the router's last route, Consul's catch-all to its own service
	Match    string // the route's match, on one line
	Matched  bool
	Why      string
}

// Leg is one share of a request: its weight in percent, the split that gives it (nil
// without a splitter), and the resolver node it reaches, with that node's target and
// failover targets.
type Leg struct {
	Weight   float32
	Split    *ServiceSplit
	Node     string
	Target   string
	Failover []string
}

// ExplainRequest follows r through the chain as a proxy configured from it does: from the
// start node, the first route whose match accepts r (routes are Envoy's: a path exact,
// prefix or RE2 regular expression, which must match the whole path; each header matcher —
// exact, prefix, suffix, RE2 regex of the whole value, or present — with Invert negating it,
// and an absent header matching only an inverted present matcher; one of the methods; each
// query parameter matcher — exact, RE2 regex or present), the catch-all last; then the
// splitter's legs by weight, each to a resolver node and its targets. A route with an
// expression Go's RE2 cannot compile is an error naming it: meshscope does not guess what it
// matches.
func (c *Chain) ExplainRequest(r HTTPRequest) (*RequestExplanation, error) {
	if c == nil || c.Nodes[c.StartNode] == nil {
		return nil, &FieldError{Detail: "the chain has no nodes", Err: errHTTPRequest}
	}
	if !strings.HasPrefix(r.Path, "/") {
		return nil, badPath("Path", r.Path)
	}
	e := &RequestExplanation{Request: r, Route: -1}
	n := c.Nodes[c.StartNode]
	if n.Type == NodeRouter {
		e.Router = n.key()
		next := ""
		for i, route := range n.Routes {
			ok, why, err := matches(route.Definition, r)
			if err != nil {
				return nil, fielderr.In(e.Router, fielderr.Under(strict.Index("Routes", i), err))
			}
			e.Routes = append(e.Routes, RouteCheck{Index: i, CatchAll: n.isCatchAll(i), Match: describeMatch(route.Definition), Matched: ok, Why: why})
			if ok {
				e.Route, next = i, route.NextNode
				break
			}
		}
		if n = c.Nodes[next]; n == nil {
			return nil, &FieldError{Value: next, Detail: "no route matches and the chain has no node " + next, Err: errHTTPRequest}
		}
	}
	leg := func(w float32, s *ServiceSplit, key string) Leg {
		l := Leg{Weight: w, Split: s, Node: key}
		if rn := c.Nodes[key]; rn != nil && rn.Resolver != nil {
			l.Target = rn.Resolver.Target
			if rn.Resolver.Failover != nil {
				l.Failover = rn.Resolver.Failover.Targets
			}
		}
		return l
	}
	switch n.Type {
	case NodeSplitter:
		e.Splitter = n.key()
		for _, s := range n.Splits {
			e.Legs = append(e.Legs, leg(s.Weight, s.Definition, s.NextNode))
		}
	case NodeResolver:
		e.Legs = []Leg{leg(100, nil, n.key())}
	}
	return e, nil
}

// matches reports whether route accepts r, and if not, why. An error's Field is the path of
// the expression at fault in the route.
func matches(route *ServiceRoute, r HTTPRequest) (bool, string, error) {
	if route.Match == nil || route.Match.HTTP == nil {
		return true, "", nil
	}
	h := route.Match.HTTP
	switch {
	case h.PathExact != "":
		if r.Path != h.PathExact {
			return false, fmt.Sprintf("path %q is not %q", r.Path, h.PathExact), nil
		}
	case h.PathPrefix != "":
		if !strings.HasPrefix(r.Path, h.PathPrefix) {
			return false, fmt.Sprintf("path %q does not start with %q", r.Path, h.PathPrefix), nil
		}
	case h.PathRegex != "":
		ok, err := fullMatch("Match.HTTP.PathRegex", h.PathRegex, r.Path)
		if err != nil || !ok {
			return false, fmt.Sprintf("path %q does not match %q", r.Path, h.PathRegex), err
		}
	}
	for j, m := range h.Header {
		ok, err := headerMatches(m, r.Header)
		if err != nil {
			return false, "", fielderr.Under(strict.Index("Match.HTTP.Header", j), err)
		}
		if !ok {
			return false, fmt.Sprintf("header %s", describeHeader(m)), nil
		}
	}
	if len(h.Methods) > 0 && !slices.Contains(h.Methods, r.Method) {
		return false, fmt.Sprintf("method %s is not %s", r.Method, strings.Join(h.Methods, " or ")), nil
	}
	for j, q := range h.QueryParam {
		v, present := r.Query[q.Name]
		ok := present
		switch {
		case !present, q.Exact != "" && q.Exact != v:
			ok = false
		case q.Exact == "" && q.Regex != "":
			var err error
			if ok, err = fullMatch("Regex", q.Regex, v); err != nil {
				return false, "", fielderr.Under(strict.Index("Match.HTTP.QueryParam", j), err)
			}
		}
		if !ok {
			return false, fmt.Sprintf("query parameter %s", describeQuery(q)), nil
		}
	}
	return true, "", nil
}

// headerMatches is Envoy's header matcher as Consul configures it: the first of Exact,
// Regex, Prefix, Suffix and Present that is set decides, Invert negates it, and an absent
// header matches only an inverted Present.
func headerMatches(m ServiceRouteHTTPMatchHeader, header map[string]string) (bool, error) {
	v, present := lookupHeader(header, m.Name)
	if !present {
		return m.Invert && m.Exact == "" && m.Regex == "" && m.Prefix == "" && m.Suffix == "" && m.Present, nil
	}
	var ok bool
	switch {
	case m.Exact != "":
		ok = v == m.Exact
	case m.Regex != "":
		var err error
		if ok, err = fullMatch("Regex", m.Regex, v); err != nil {
			return false, err
		}
	case m.Prefix != "":
		ok = strings.HasPrefix(v, m.Prefix)
	case m.Suffix != "":
		ok = strings.HasSuffix(v, m.Suffix)
	case m.Present:
		ok = true
	default:
		return true, nil // Consul configures no matcher for it
	}
	return ok != m.Invert, nil
}

// lookupHeader finds a header by name in any case.
func lookupHeader(header map[string]string, name string) (string, bool) {
	if v, ok := header[name]; ok {
		return v, true
	}
	for k, v := range header {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// fullMatch reports whether the RE2 expression expr matches all of s, as Envoy's safe regex
// matcher does.
func fullMatch(field, expr, s string) (bool, error) {
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	if err != nil {
		return false, &FieldError{Field: field, Value: expr, Detail: fmt.Sprintf("%q is not an RE2 expression meshscope can evaluate: %v", expr, err), Err: errHTTPRequest}
	}
	return re.MatchString(s), nil
}

// describeMatch renders a route's match on one line: "PathPrefix /api, header x-env exact
// canary, methods GET|HEAD", or "every request".
func describeMatch(route *ServiceRoute) string {
	if route.Match == nil || route.Match.HTTP == nil {
		return "every request"
	}
	h := route.Match.HTTP
	var parts []string
	switch {
	case h.PathExact != "":
		parts = append(parts, "PathExact "+h.PathExact)
	case h.PathPrefix != "":
		parts = append(parts, "PathPrefix "+h.PathPrefix)
	case h.PathRegex != "":
		parts = append(parts, "PathRegex "+h.PathRegex)
	}
	for _, m := range h.Header {
		parts = append(parts, "header "+describeHeader(m))
	}
	if len(h.Methods) > 0 {
		parts = append(parts, "methods "+strings.Join(h.Methods, "|"))
	}
	for _, q := range h.QueryParam {
		parts = append(parts, "query "+describeQuery(q))
	}
	if len(parts) == 0 {
		return "every request"
	}
	return strings.Join(parts, ", ")
}

func describeHeader(m ServiceRouteHTTPMatchHeader) string {
	not := ""
	if m.Invert {
		not = "not "
	}
	switch {
	case m.Exact != "":
		return fmt.Sprintf("%s %sexact %q", m.Name, not, m.Exact)
	case m.Regex != "":
		return fmt.Sprintf("%s %sregex %q", m.Name, not, m.Regex)
	case m.Prefix != "":
		return fmt.Sprintf("%s %sprefix %q", m.Name, not, m.Prefix)
	case m.Suffix != "":
		return fmt.Sprintf("%s %ssuffix %q", m.Name, not, m.Suffix)
	}
	return fmt.Sprintf("%s %spresent", m.Name, not)
}

func describeQuery(q ServiceRouteHTTPMatchQueryParam) string {
	switch {
	case q.Exact != "":
		return fmt.Sprintf("%s exact %q", q.Name, q.Exact)
	case q.Regex != "":
		return fmt.Sprintf("%s regex %q", q.Name, q.Regex)
	}
	return q.Name + " present"
}

// String renders the explanation: the routes tried, a line each, then the legs.
func (e *RequestExplanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", e.Request.Method, e.Request.Path)
	if e.Router != "" {
		fmt.Fprintf(&b, "\n  %s", e.Router)
		for _, r := range e.Routes {
			name := routeLabel(r.Index, r.CatchAll)
			if r.Matched {
				fmt.Fprintf(&b, "\n    %s: matches (%s)", name, r.Match)
			} else {
				fmt.Fprintf(&b, "\n    %s: no: %s", name, r.Why)
			}
		}
	}
	if e.Splitter != "" {
		fmt.Fprintf(&b, "\n  %s", e.Splitter)
	}
	for _, l := range e.Legs {
		fmt.Fprintf(&b, "\n    %s%% -> %s", fmtWeight(l.Weight), l.Target)
		if len(l.Failover) > 0 {
			fmt.Fprintf(&b, ", failover %s", strings.Join(l.Failover, ", "))
		}
	}
	return b.String()
}

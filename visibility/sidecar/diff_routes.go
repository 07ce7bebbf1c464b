package sidecar

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
)

// RouteRef names a Gateway API route: its kind ("HTTPRoute", "GRPCRoute", "TCPRoute",
// "TLSRoute"), namespace and name.
type RouteRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// RouteStatusChange is a route whose status changes (Key): Before and After are the status
// istiod writes (nil: none — the route is not there, or its namespace is not discovered);
// Gained and Lost the parent conditions that appear and go, each spelt
// "<Kind> <namespace>/<name>[:<port>] <Type>=<Status> <Reason>: <Message>".
type RouteStatusChange = report.Change[RouteRef, *RouteStatus, string]

// DiffRouteStatus is the dry run of a change for the status istiod writes on Gateway API
// routes (see View.RouteStatus): every route of either view whose status differs — written
// or not, another parent, another condition —, sorted by kind, namespace and name. Either view
// may be nil: the view of an empty inventory.
func DiffRouteStatus(before, after *View) []RouteStatusChange {
	b, a := statuses(before), statuses(after)
	keys := slices.Collect(maps.Keys(b))
	for k := range a {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y gammaRouteID) int {
		return cmp.Or(strings.Compare(string(x.kind), string(y.kind)), strings.Compare(x.namespace, y.namespace), strings.Compare(x.name, y.name))
	})
	out := []RouteStatusChange{}
	for _, k := range keys {
		bs, as := conditionsOf(b[k], k.namespace), conditionsOf(a[k], k.namespace)
		if (b[k] == nil) == (a[k] == nil) && slices.Equal(bs, as) {
			continue
		}
		c := RouteStatusChange{Key: RouteRef{Kind: string(k.kind), Namespace: k.namespace, Name: k.name}, Before: b[k], After: a[k]}
		c.Gained, c.Lost = report.Delta(bs, as)
		out = append(out, c)
	}
	return out
}

// statuses are the statuses of v's routes, each the caller's; none for a nil view.
func statuses(v *View) map[gammaRouteID]*RouteStatus {
	out := map[gammaRouteID]*RouteStatus{}
	if v == nil || v.routes == nil {
		return out
	}
	for k := range v.routes.status {
		s, _ := v.routes.routeStatus(string(k.kind), k.namespace, k.name)
		out[k] = &s
	}
	return out
}

// conditionsOf spells each condition of each parent of s, the status of a route of namespace
// ns, in order (see RouteStatusChange).
func conditionsOf(s *RouteStatus, ns string) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, p := range s.Parents {
		parent := p.Kind + " " + cmp.Or(p.Namespace, ns) + "/" + p.Name
		if p.Port != 0 {
			parent += ":" + itoa(p.Port)
		}
		for _, c := range p.Conditions {
			out = append(out, parent+" "+c.Type+"="+string(c.Status)+" "+c.Reason+": "+c.Message)
		}
	}
	return out
}

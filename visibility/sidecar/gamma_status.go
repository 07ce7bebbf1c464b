package sidecar

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The ranks of a parent's problem when istiod reports one entry for a parentRef that resolves
// to several parents (a Gateway's listeners): the best result is reported, problems of one
// rank joined.
var gammaDeniedRank = map[string]int{
	gammaNotAllowedByListeners:      1,
	gammaNoMatchingListenerHostname: 2,
	"ParentRefConflict":             3,
	gammaNoMatchingParent:           4,
}

func gammaRank(e *gammaErr) int {
	if e == nil {
		return 0
	}
	return gammaDeniedRank[e.reason]
}

// status is the status istiod writes on the route: for each parentRef that resolves to a
// parent, Accepted (the parent's verdict; for several parents, the best one, with the
// problems of equals joined by "; ", and how many took the route when more than one did) and
// ResolvedRefs (the conversion's last problem: the mesh's for a mesh parent, the Gateways'
// for a Gateway parent).
func (c *gammaRoute) status() RouteStatus {
	type entry struct {
		ref      int
		denied   *gammaErr
		mesh     bool
		accepted int
	}
	var entries []*entry
	byRef := map[int]*entry{}
	for i := range c.parents {
		p := &c.parents[i]
		e := byRef[p.ref]
		if e == nil {
			e = &entry{ref: p.ref, denied: p.denied, mesh: p.mesh}
			byRef[p.ref] = e
			entries = append(entries, e)
		} else if r, have := gammaRank(p.denied), gammaRank(e.denied); r < have {
			e.denied = p.denied
		} else if r == have && e.denied != nil {
			e.denied = &gammaErr{e.denied.reason, e.denied.message + "; " + p.denied.message}
		}
		if p.denied == nil {
			e.accepted++
		}
	}
	slices.SortStableFunc(entries, func(a, b *entry) int {
		return -strings.Compare(c.refString(a.ref), c.refString(b.ref))
	})
	out := RouteStatus{Parents: make([]RouteParentStatus, 0, len(entries))}
	for _, e := range entries {
		pr := &c.r.ParentRefs[e.ref]
		accepted := gammaCondition("Accepted", "Accepted", "Route was valid", e.denied)
		if e.accepted > 1 {
			accepted.Message = fmt.Sprintf("Route was valid, bound to %d parents", e.accepted)
		}
		refs := c.gw.err
		if e.mesh {
			refs = c.mesh.err
		}
		out.Parents = append(out.Parents, RouteParentStatus{
			Kind: pr.Kind, Namespace: pr.Namespace, Name: pr.Name, Port: pr.Port,
			Conditions: []metav1.Condition{accepted, gammaCondition("ResolvedRefs", "ResolvedRefs", "All references resolved", refs)},
		})
	}
	return out
}

// gammaCondition is a condition of type typ: True with reason and message, or False with
// err's.
func gammaCondition(typ, reason, message string, err *gammaErr) metav1.Condition {
	if err != nil {
		return metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: err.reason, Message: err.message}
	}
	return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: message}
}

// RouteStatus returns the status istiod writes on the route of kind ("HTTPRoute",
// "GRPCRoute", "TCPRoute", "TLSRoute") in namespace with name: one entry per parentRef it
// keeps, in its order (see RouteStatus); false when it writes none — no such route, or its
// namespace is not discovered.
func (v *View) RouteStatus(kind, namespace, name string) (RouteStatus, bool) {
	if v.routes == nil {
		return RouteStatus{}, false
	}
	return v.routes.routeStatus(kind, namespace, name)
}

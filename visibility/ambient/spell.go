package ambient

import (
	"fmt"
	"slices"
	"strings"
)

// Got spells what the answer's clients get, for a report: the service ("ServiceEntry
// shop/api"); when the release leaves it to the order ztunnel received them in, the services
// one of which answers; none — nil Service — "(not in the mesh: upstream DNS /
// passthrough)": a host's query is forwarded upstream, an address's traffic passed through.
// The before and after of an AnswerChange spell alike as Answer{Service: c.Before}.Got().
//
//	one of [ServiceEntry a/api ServiceEntry b/api]: the order ztunnel received them in decides
func (a Answer) Got() string {
	switch {
	case len(a.Undetermined) > 0:
		return fmt.Sprintf("one of %v: the order ztunnel received them in decides", a.Undetermined)
	case a.Service == nil:
		return "(not in the mesh: upstream DNS / passthrough)"
	}
	return a.Service.String()
}

// Clients spells the client namespaces of a change of the audit (q, the Key of one of its
// Hosts or Addresses) for a report: its namespaces by name ("payments, shop"); for the "*"
// change, "every namespace but " the namespaces the query's other changes name and those
// Except names, sorted — "every namespace" when there are none (namespaces the inventory does
// not have and a client without a namespace included).
//
//	every namespace but payments, platform
func (a Audit) Clients(q Question) string {
	if !slices.Equal(q.Clients, []string{AllOtherNamespaces}) {
		return strings.Join(q.Clients, ", ")
	}
	but := slices.Clone(q.Except)
	for _, c := range slices.Concat(a.Hosts, a.Addresses) {
		if c.Key.Query == q.Query && !slices.Equal(c.Key.Clients, q.Clients) {
			but = append(but, c.Key.Clients...)
		}
	}
	if len(but) == 0 {
		return "every namespace"
	}
	slices.Sort(but)
	return "every namespace but " + strings.Join(slices.Compact(but), ", ")
}

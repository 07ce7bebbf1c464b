package sidecar

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
)

// Answers returns what a sidecar in namespace with the workload labels workload has for each
// host, sorted by host: the Answer Diff compares — the service Proxy lists, the
// DestinationRule it gets and the virtual hosts VirtualServices build of it (VirtualHosts,
// from the route table of every port on which it is routed over HTTP). A table of what each
// class of proxies receives, and which VirtualService routes each host (RoutedBy), is made
// of it. Its cost is that of Proxy and, where the view holds VirtualServices, of a route
// table per such port.
func (v *View) Answers(namespace string, workload labels.Set) []Answer {
	var rec record
	m := v.answers(&rec, sidecarKind, namespace, workload, nil)
	out := make([]Answer, 0, len(m))
	for _, a := range m {
		out = append(out, *a)
	}
	slices.SortFunc(out, func(x, y Answer) int { return strings.Compare(x.Host, y.Host) })
	return out
}

// RoutedBy names the VirtualServices ("namespace/name"; one istiod made from Gateway API
// routes as istiod names it) that route the host for the class, each once: those whose
// routes its virtual hosts hold (VirtualHosts: on each port Istio routes HTTP on, the first
// VirtualService in the listener's order that claims the host), then, written
// "(listener: namespace/name)", each listener's Routes answer (the most specific
// VirtualService) that builds none of them: only its TCP and TLS routes, if any, apply to the
// host; on its HTTP ports another VirtualService or Istio's default route serves it (Lint:
// RoutesAnswerBuildsNothing). "" when no VirtualService routes the host.
//
//	default/default~9080~reviews.default.svc.cluster.local
//	default/reviews (listener: default/tcp-reviews)
func (a *Answer) RoutedBy() string {
	var out, seen []string
	for _, vh := range a.VirtualHosts {
		if !slices.Contains(seen, vh.VirtualService) {
			seen = append(seen, vh.VirtualService)
			out = append(out, vh.VirtualService)
		}
	}
	for _, r := range a.Routes {
		if !slices.Contains(seen, r) {
			seen = append(seen, r)
			out = append(out, "(listener: "+r+")")
		}
	}
	return strings.Join(out, " ")
}

// String spells an answer as a dry run's line shows it: the service and its ports, the
// VirtualService whose destination brought it, what routes it (RoutedBy) and the rule the
// class gets; "(not received)" for nil, the side of a Change on which the class does not get
// the host.
//
//	KubernetesService shop/checkout 8080, routed by shop/checkout-routes, rule shop/checkout [v1,v2]
func (a *Answer) String() string {
	if a == nil {
		return "(not received)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s/%s %s", a.Kind, a.Namespace, a.Name, spellPorts(a.Ports))
	if a.AddedBy != "" {
		b.WriteString(", destination of " + a.AddedBy)
	}
	if r := a.RoutedBy(); r != "" {
		b.WriteString(", routed by " + r)
	}
	if a.Rule != nil {
		b.WriteString(", rule " + a.Rule.String())
	}
	return b.String()
}

// String spells a change as a dry run's line shows it: the class of proxies (as Class.String
// spells it), the host, the answer before and after (Answer.String), and, between two
// releases, the causes behind it.
//
//	shop with app=web api.example.com: (not received) -> ServiceEntry ext/api 443 (causes: SidecarExclusions)
func (c Change) String() string {
	who := c.Key.Namespace
	if c.Key.Workload != "" {
		who += " with " + c.Key.Workload
	}
	out := who + " " + c.Key.Host + ": " + c.Before.String() + " -> " + c.After.String()
	if len(c.Causes) > 0 {
		causes := make([]string, len(c.Causes))
		for i, cause := range c.Causes {
			causes[i] = string(cause)
		}
		out += " (causes: " + strings.Join(causes, ", ") + ")"
	}
	return out
}

// String spells a rule as a table cell shows it: the rules merged into it, joined by "+", and
// its subsets ("shop/checkout+shop/checkout-extra [v1,v2]"); "" for nil, no rule.
func (r *Rule) String() string {
	if r == nil {
		return ""
	}
	out := strings.Join(r.From, "+")
	if len(r.Subsets) > 0 {
		out += " [" + strings.Join(r.Subsets, ",") + "]"
	}
	return out
}

// spellPorts spells a host's ports: "80,8080"; "(no ports)" for none.
func spellPorts(ps []uint32) string {
	if len(ps) == 0 {
		return "(no ports)"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = itoa(p)
	}
	return strings.Join(out, ",")
}

package sidecar

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Explanation is how a proxy — a sidecar (ExplainHost) or a gateway (ExplainGatewayHost) —
// came to get one host, or not: the Sidecar that applies and why, what the proxy gets, and
// every service claiming the host at each step. It reads the record the proxy's view is
// built from: every verdict is the decision Proxy (Gateway) made, with its losers.
type Explanation struct {
	Namespace string            `json:"namespace"`
	Workload  map[string]string `json:"workload,omitempty"`
	Host      string            `json:"host"`
	// Gateway is set for a gateway's explanation: no Sidecar applies, Levels holds one step
	// (the services exported to the namespace, of which the first of a host stands) and
	// Routes none.
	Gateway bool `json:"gateway,omitempty"`
	// Sidecar is the Sidecar that applies ("namespace/name", "" for none) and Why says how
	// it was chosen.
	Sidecar string `json:"sidecar"`
	Why     string `json:"why"`
	// Answer is what the proxy gets for the host, as Proxy lists it; nil when it gets nothing.
	Answer *Service `json:"answer,omitempty"`
	// Levels are the steps the candidates go through: "not discovered" first when a
	// service of an undiscovered namespace claims the host, then each egress listener in
	// order, with every service claiming the host — hidden (not exported to the namespace),
	// excluded, not imported, outranked (by whom), merged or chosen, and why. It is empty
	// when no service has the host (see Unclaimed), and holds no listener when only
	// undiscovered services do.
	Levels []Step `json:"levels"`
	// VisibilityApplies reports whether serviceEntryVisibility narrows what sidecars get: it
	// is configured with applyToSidecars. When it does not, each candidate's Decision is its
	// visibility for ambient clients only, which has no bearing on the proxy (its exportTo
	// alone decides), and String leaves the decisions out; VisibilityNote then says so when
	// visibility is configured.
	VisibilityApplies bool   `json:"visibilityApplies"`
	VisibilityNote    string `json:"visibilityNote,omitempty"`
	// Unclaimed is set when no service of the inventory, discovered or not, has the host
	// (Levels is then empty): it says so, then what comes near — a service host that differs
	// only in letter case (Istio compares hosts as written), a wildcard service host that
	// covers it (what the proxy gets for that host is what serves this one), an import of the
	// proxy's listeners whose wildcard covers it (an import selects services; it creates
	// none). One sentence each.
	Unclaimed []string `json:"unclaimed,omitempty"`
	// Routes are, for each listener that imports the host, every VirtualService a host of
	// which matches it — the one that routes it, those a more specific or earlier one
	// outranks, those the listener does not select, and those that do not apply to the
	// proxy (not exported to its namespace, bound to gateways only, not discovered) — in
	// Istio's order.
	Routes []Step `json:"routes,omitempty"`
	// VirtualHosts are, for each port of Answer on which Istio routes HTTP (HTTP, HTTP2,
	// HTTP_PROXY, GRPC, GRPC-Web, or a protocol it sniffs), the route table's decision for the
	// host (see View.RouteTable): the VirtualService that builds its virtual host, or Istio's
	// default route ("(Istio's default route)"), and why each other VirtualService of the
	// listener with a host matching it builds none — a later claimant, no HTTP route for the
	// port and the proxy, one istiod made from a route for other proxies, a wildcard host that
	// is not the listener's Routes answer. A VirtualService istiod made from Gateway API
	// routes names them and their rules in its Reason, here and in Routes; Routes ends with
	// the routes with a parent for the host of which istiod makes no VirtualService (Object
	// "HTTPRoute shop/reviews"), and why. A gateway's explanation has none.
	VirtualHosts []Step `json:"virtualHosts,omitempty"`
	// Rule is the DestinationRule the proxy gets for the host, as Proxy's Rules has it; nil
	// for none. Rules are every DestinationRule whose host matches the host, and what became
	// of each: chosen (the first rule of the merged one), merged into it, or why it lost.
	Rule  *Rule       `json:"rule,omitempty"`
	Rules []Candidate `json:"rules,omitempty"`
}

// ExplainHost explains what a sidecar in namespace with the workload labels workload gets
// for host, a service host as services spell it ("api.example.com", "*.wild.org";
// compared exactly as written, as Istio compares sidecar hosts). Its Answer is always the
// entry Proxy lists for the host.
func (v *View) ExplainHost(namespace string, workload labels.Set, host string) Explanation {
	return v.explain(sidecarKind, namespace, workload, host)
}

// ExplainGatewayHost explains what a gateway in namespace with the workload labels workload
// gets for host, as ExplainHost does for a sidecar: every service claiming the host, hidden
// (not exported to the namespace) or in the gateway's order of candidates, the first of which
// stands unless a Kubernetes Service replaces it; and the DestinationRule it gets. Its Answer
// is always the entry Gateway lists for the host.
func (v *View) ExplainGatewayHost(namespace string, workload labels.Set, host string) Explanation {
	return v.explain(gatewayKind, namespace, workload, host)
}

// explain explains what a proxy of kind k gets for host, from the record of its view with
// the losers of host.
func (v *View) explain(k kind, namespace string, workload labels.Set, host string) Explanation {
	sc := v.sidecarOf(k, namespace, workload)
	e := Explanation{Namespace: namespace, Host: host, Gateway: k == gatewayKind, Sidecar: sidecarName(sc), Why: v.why(k, sc, namespace), Levels: []Step{}, VisibilityApplies: v.narrows}
	if v.enabled && !v.narrows {
		e.VisibilityNote = "visibility does not apply to sidecars: serviceEntryVisibility's applyToSidecars is off, so each service's exportTo alone decides what the proxy gets (the visibility decisions are ztunnel's, for ambient clients)"
	}
	if len(workload) > 0 {
		e.Workload = map[string]string(workload)
	}
	x := &v.services
	if ids := x.undisc[host]; len(ids) > 0 {
		l := Step{Key: "not discovered"}
		for _, i := range ids {
			l.Candidates = append(l.Candidates, Candidate{Service: x.inv[i].Ref(), Decision: x.reading.decisions[i], Verdict: NotDiscovered,
				Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its services", x.inv[i].Namespace)})
		}
		e.Levels = append(e.Levels, l)
	}
	if len(x.byHost[host]) == 0 && len(x.undisc[host]) == 0 {
		e.Unclaimed = v.unclaimed(sc, namespace, host)
		return e
	}
	tr := newTrace(host)
	var rec record
	v.build(&rec, k, sc, namespace, workload, tr, nil)
	p := v.spell(&rec)
	e.Levels = append(e.Levels, v.explainSteps(&rec)...)
	if i, ok := slices.BinarySearchFunc(p.Services, host, func(s Service, h string) int { return strings.Compare(s.Host, h) }); ok {
		e.Answer = &p.Services[i]
		e.Rule = p.Rules[host]
		e.Routes = v.explainRoutes(&rec)
		if k == sidecarKind {
			if s := v.explainUnmade(host); s != nil {
				e.Routes = append(e.Routes, *s)
			}
			e.VirtualHosts = v.explainVirtualHosts(&rec, host, portsHTTP(v.services.service(v.services.received(&rec.got, host).id), e.Answer.Ports))
		}
		e.Rules = v.explainRules(&rec, e.Answer.Namespace, e.Rule)
	}
	return e
}

// sidecarOf returns the Sidecar that applies to a proxy of kind k in namespace with labels
// workload: none, for a gateway.
func (v *View) sidecarOf(k kind, namespace string, workload labels.Set) *inventory.Sidecar {
	if k == gatewayKind {
		return nil
	}
	return v.sidecars.forProxy(namespace, workload)
}

// why says how the Sidecar sc came to apply to a proxy of kind k in namespace, or none.
func (v *View) why(k kind, sc *inventory.Sidecar, namespace string) string {
	if k == gatewayKind {
		return "a gateway: Sidecar resources never apply to it, whatever their workloadSelector"
	}
	return v.sidecars.why(sc, namespace)
}

// unclaimed says that no service has host, and what comes near it for a proxy in namespace
// with the Sidecar sc.
func (v *View) unclaimed(sc *inventory.Sidecar, namespace, host string) []string {
	x := &v.services
	out := []string{fmt.Sprintf("no service in the inventory has the host %s, so no listener has anything to import for it", host)}
	var folded []string
	for _, m := range []map[string][]int32{x.byHost, x.undisc} {
		for h := range m {
			if strings.EqualFold(h, host) && !slices.Contains(folded, h) {
				folded = append(folded, h)
			}
		}
	}
	slices.Sort(folded)
	for _, h := range folded {
		out = append(out, fmt.Sprintf("%s has %s, which differs from it only in letter case: Istio compares hosts as written, case-sensitively", v.claimant(h), h))
	}
	for i := 0; i < len(host); i++ {
		if host[i] != '.' {
			continue
		}
		if w := "*" + host[i:]; w != host && (len(x.byHost[w]) > 0 || len(x.undisc[w]) > 0) {
			out = append(out, fmt.Sprintf("%s has the wildcard host %s, which covers it: a request for this host goes to what the proxy gets for %s, if anything (explain that host)", v.claimant(w), w, w))
		}
	}
	for li, eg := range egressOf(sc) {
		for _, raw := range eg.Hosts {
			h := v.sidecars.reading.parse(raw)
			if h.exclude || h.host == names.Wildcard || !isWildcard(h.host) || !hosts.Covers(h.host, host) {
				continue
			}
			out = append(out, fmt.Sprintf("%s imports %q, which covers it, but an import only selects the inventory's services and creates none: a proxy gets a host only from a service (a ServiceEntry) that has it",
				listenerKey(sc, li, eg), raw))
		}
	}
	return out
}

// claimant names the first service, in Istio's order, that has host h: discovered, else not.
func (v *View) claimant(h string) string {
	x := &v.services
	if ids := x.byHost[h]; len(ids) > 0 {
		return x.ref(ids[0]).String()
	}
	return x.inv[x.undisc[h][0]].Ref().String() + " (of a namespace istiod does not discover)"
}

// listenerKey names a listener for an explanation.
func listenerKey(sc *inventory.Sidecar, i int, e *inventory.Egress) string {
	if sc == nil || len(sc.Egress) == 0 {
		return "the default listener (*/*)"
	}
	k := fmt.Sprintf("egress[%d] (%s", i, strings.Join(e.Hosts, ", "))
	if e.Port != 0 {
		k += fmt.Sprintf("; port %d", e.Port)
		if e.Protocol != "" {
			k += " " + e.Protocol
		}
	}
	return k + ")"
}

// stepKey names the step of listener li of a proxy's record.
func (rec *record) stepKey(li int) string {
	if rec.kind == gatewayKind {
		return "the gateway's candidates (the services exported to " + rec.ns + " by name, then the public ones, each oldest first)"
	}
	return listenerKey(rec.sidecar, li, rec.listeners[li].l.egress)
}

// String renders the explanation a candidate a line.
func (e Explanation) String() string {
	var b strings.Builder
	proxy := "a proxy"
	if e.Gateway {
		proxy = "a gateway"
	}
	fmt.Fprintf(&b, "%s for %s in %s", e.Host, proxy, e.Namespace)
	if len(e.Workload) > 0 {
		fmt.Fprintf(&b, " with %s", labels.Set(e.Workload))
	}
	if e.Sidecar == "" {
		fmt.Fprintf(&b, ": no Sidecar (%s)", e.Why)
	} else {
		fmt.Fprintf(&b, ": Sidecar %s (%s)", e.Sidecar, e.Why)
	}
	if e.Answer == nil {
		b.WriteString("; the proxy does not get the host")
	} else {
		fmt.Fprintf(&b, "; it gets %s %s/%s", e.Answer.Kind, e.Answer.Namespace, e.Answer.Name)
		if len(e.Answer.Ports) == 0 {
			b.WriteString(", no ports")
		} else {
			fmt.Fprintf(&b, ", ports %v", e.Answer.Ports)
		}
		if e.Answer.AddedBy != "" {
			fmt.Fprintf(&b, ", a destination of VirtualService %s", e.Answer.AddedBy)
		}
	}
	if e.VisibilityNote != "" {
		b.WriteString("\n  " + e.VisibilityNote)
	}
	writeSteps(&b, e.Levels, "  ", e.VisibilityApplies)
	for _, u := range e.Unclaimed {
		b.WriteString("\n  " + u)
	}
	if len(e.Routes) > 0 {
		b.WriteString("\n  VirtualServices:")
		for _, r := range e.Routes {
			fmt.Fprintf(&b, "\n    %s:", r.Key)
			writeObjects(&b, r.Candidates, "      ")
		}
	}
	if len(e.VirtualHosts) > 0 {
		b.WriteString("\n  Route tables:")
		for _, r := range e.VirtualHosts {
			fmt.Fprintf(&b, "\n    %s:", r.Key)
			writeObjects(&b, r.Candidates, "      ")
		}
	}
	if e.Answer != nil {
		if e.Rule == nil {
			b.WriteString("\n  DestinationRule: none")
		} else {
			fmt.Fprintf(&b, "\n  DestinationRule: %s, host %s, subsets %v", strings.Join(e.Rule.From, " + "), e.Rule.Host, e.Rule.Subsets)
			if e.Rule.TrafficPolicyFrom != "" {
				fmt.Fprintf(&b, ", traffic policy of %s", e.Rule.TrafficPolicyFrom)
			}
		}
		writeObjects(&b, e.Rules, "    ")
	}
	return b.String()
}

// writeObjects writes each candidate VirtualService or DestinationRule, a line each.
func writeObjects(b *strings.Builder, cs []Candidate, indent string) {
	for _, c := range cs {
		fmt.Fprintf(b, "\n%s%s (host %s): %s: %s", indent, c.Object, c.Host, c.Verdict, c.Reason)
	}
}

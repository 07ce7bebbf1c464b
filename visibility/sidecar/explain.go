package sidecar

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Explanation is how a sidecar proxy came to get one host, or not: the Sidecar that
// applies and why, what the proxy gets, and every service claiming the host at each step.
type Explanation struct {
	Namespace string            `json:"namespace"`
	Workload  map[string]string `json:"workload,omitempty"`
	Host      string            `json:"host"`
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
	sc := v.sidecarFor(namespace, workload)
	e := Explanation{Namespace: namespace, Host: host, Sidecar: sidecarName(sc), Why: v.sidecarWhy(sc, namespace), Levels: []Step{}, VisibilityApplies: v.narrows}
	if v.enabled && !v.narrows {
		e.VisibilityNote = "visibility does not apply to sidecars: serviceEntryVisibility's applyToSidecars is off, so each service's exportTo alone decides what the proxy gets (the visibility decisions are ztunnel's, for ambient clients)"
	}
	if len(workload) > 0 {
		e.Workload = map[string]string(workload)
	}
	if ids := v.undisc[host]; len(ids) > 0 {
		l := Step{Key: "not discovered"}
		for _, i := range ids {
			l.Candidates = append(l.Candidates, Candidate{Service: v.inv[i].Ref(), Decision: v.decisions[i], Verdict: NotDiscovered,
				Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its services", v.inv[i].Namespace)})
		}
		e.Levels = append(e.Levels, l)
	}
	if len(v.byHost[host]) == 0 && len(v.undisc[host]) == 0 {
		e.Unclaimed = v.unclaimed(sc, namespace, host)
		return e
	}
	p, routed := v.buildProxy(sc, namespace, workload, true)
	ids := slices.Clone(v.byHost[host])
	slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(v.group(a, namespace), v.group(b, namespace)) })
	got := &receivedSet{}
	var holder *mark // the candidate that holds the host so far
	for li, rl := range routed {
		l := rl.l
		lv := Step{Key: listenerKey(sc, li, l.egress)}
		at := map[int32]int{} // candidate index by service
		for _, id := range ids {
			at[id] = len(lv.Candidates)
			lv.Candidates = append(lv.Candidates, v.verdict(l, namespace, id))
		}
		// The candidates still standing are ranked as Proxy ranks them, in the order the
		// listener considers them: within the listener (which namespace holds the host), then
		// against what earlier listeners gave.
		var standing []int32
		for _, id := range v.candidates(l, namespace) {
			if v.svcs[id].host == host && lv.Candidates[at[id]].Verdict == "" {
				standing = append(standing, id)
			}
		}
		kept := v.imported(l, namespace, standing)
		for _, id := range standing {
			if !slices.ContainsFunc(kept, func(is importedService) bool { return is.id == id }) {
				c := &lv.Candidates[at[id]]
				c.Verdict, c.Reason = Outranked, v.heldBy(l, namespace, kept, id)
			}
		}
		e.Levels = append(e.Levels, lv)
		for _, is := range kept {
			v.rank(&e, len(e.Levels)-1, at[is.id], is, got, "", &holder)
		}
		for _, k := range rl.vss {
			v.explainDestination(&e, l, lv.Key, k, got, &holder)
		}
	}
	if i, ok := slices.BinarySearchFunc(p.Services, host, func(s Service, h string) int { return strings.Compare(s.Host, h) }); ok {
		e.Answer = &p.Services[i]
		e.Rule = p.Rules[host]
		e.Routes = v.explainRoutes(sc, namespace, host, p, routed)
		e.Rules = v.explainRules(namespace, workload, host, e.Answer.Namespace, e.Rule)
	}
	return e
}

// mark places a candidate of an explanation: a level and an index in it.
type mark struct{ level, cand int }

// rank applies one service a listener brings for the host to what the proxy has, as Proxy
// does, and gives the candidate at (level, cand) its verdict; holder is the candidate that
// holds the host so far.
func (v *View) rank(e *Explanation, level, cand int, is importedService, got *receivedSet, addedBy string, holder **mark) {
	c := &e.Levels[level].Candidates[cand]
	before := got.get(e.Host)
	var prev received
	if before != nil {
		prev = *before
	}
	v.apply([]importedService{is}, got, addedBy)
	now := got.get(e.Host)
	switch {
	case before == nil:
		c.Verdict, c.Reason = Chosen, "the first service the proxy gets for the host"
		*holder = &mark{level, cand}
	case now.id != prev.id:
		c.Verdict, c.Reason = Chosen, fmt.Sprintf("a Kubernetes Service replaces %s, a ServiceEntry", v.ref(prev.id))
		if h := *holder; h != nil {
			old := &e.Levels[h.level].Candidates[h.cand]
			old.Verdict, old.Reason = Outranked, fmt.Sprintf("replaced by %s, a Kubernetes Service (%s)", v.ref(is.id), e.Levels[level].Key)
		}
		*holder = &mark{level, cand}
	case prev.id == is.id:
		c.Verdict, c.Reason = Merged, "the service the proxy already has; its ports join"
	case len(now.ports) != len(prev.ports) || canMerge(v.service(prev.id), v.service(is.id)):
		c.Verdict, c.Reason = Merged, fmt.Sprintf("its ports join those of %s: same namespace, kind, resolution, labels, selector and exportTo", v.ref(prev.id))
	default:
		c.Verdict, c.Reason = Outranked, v.outranked(prev.id, is.id)
	}
}

// explainDestination adds the step of VirtualService k of a listener when its routes send
// the proxy to the host: the service istiod takes for it, and what became of that service.
func (v *View) explainDestination(e *Explanation, l *listener, key string, k int32, got *receivedSet, holder **mark) {
	r := &v.vss[k]
	var ports []uint32
	named := false
	for _, hp := range r.destinationPorts(e.Namespace) {
		if hp.host == e.Host {
			ports, named = hp.ports, true
		}
	}
	if !named {
		return
	}
	step := Step{Key: fmt.Sprintf("%s: a destination of VirtualService %s", key, r.ref), Candidates: []Candidate{}}
	id, own := v.oldest[hostNS{e.Host, e.Namespace}]
	why := fmt.Sprintf("the service of %s in the proxy's own namespace %s, which istiod takes for a destination whether or not it is exported there", e.Host, e.Namespace)
	if !own {
		var ok bool
		if id, ok = v.bestExported(e.Host, e.Namespace); !ok {
			step.Key += fmt.Sprintf("; no service of %s is in %s or exported to it, so it adds nothing", e.Host, e.Namespace)
			e.Levels = append(e.Levels, step)
			return
		}
		why = fmt.Sprintf("%s has no service of %s, and of those exported to it istiod takes a Kubernetes Service, else the oldest", e.Namespace, e.Host)
	}
	svc := v.service(id)
	step.Candidates = append(step.Candidates, Candidate{Service: svc.Ref(), Decision: v.decisions[v.svcs[id].svc]})
	e.Levels = append(e.Levels, step)
	level := len(e.Levels) - 1
	p, ok := v.destinationPortsOf(l, id, ports)
	if !ok {
		c := &e.Levels[level].Candidates[0]
		c.Verdict = NotImported
		if matchesPort(l.egress) {
			c.Reason = fmt.Sprintf("%s; the listener's port %d is not among its ports %v", why, l.egress.Port, svc.Ports)
		} else {
			c.Reason = fmt.Sprintf("%s; none of the ports the routes give (%v) is among its ports %v", why, ports, svc.Ports)
		}
		return
	}
	v.rank(e, level, 0, importedService{id, p}, got, r.ref, holder)
	c := &e.Levels[level].Candidates[0]
	c.Reason = why + "; " + c.Reason
}

// unclaimed says that no service has host, and what comes near it for a proxy in namespace
// with the Sidecar sc.
func (v *View) unclaimed(sc *inventory.Sidecar, namespace, host string) []string {
	out := []string{fmt.Sprintf("no service in the inventory has the host %s, so no listener has anything to import for it", host)}
	var folded []string
	for _, m := range []map[string][]int32{v.byHost, v.undisc} {
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
		if w := "*" + host[i:]; w != host && (len(v.byHost[w]) > 0 || len(v.undisc[w]) > 0) {
			out = append(out, fmt.Sprintf("%s has the wildcard host %s, which covers it: a request for this host goes to what the proxy gets for %s, if anything (explain that host)", v.claimant(w), w, w))
		}
	}
	for li, eg := range egressOf(sc) {
		for _, raw := range eg.Hosts {
			h := parseEgressHost(raw)
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
	if ids := v.byHost[h]; len(ids) > 0 {
		return v.ref(ids[0]).String()
	}
	return v.inv[v.undisc[h][0]].Ref().String() + " (of a namespace istiod does not discover)"
}

func (v *View) service(id int32) *inventory.Service { return &v.inv[v.svcs[id].svc] }
func (v *View) ref(id int32) inventory.ServiceRef   { return v.service(id).Ref() }

// group places a service among a listener's candidates for namespace n: exported to n by
// name (0), public (1), not exported to n (2).
func (v *View) group(id int32, n string) int {
	s := &v.svcs[id]
	switch {
	case s.exp.Public():
		return 1
	case s.exportedTo(n):
		return 0
	}
	return 2
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

// verdict is what exportTo, the listener's candidates and its exclusions and imports make
// of a service: "" when it is imported, else why not.
func (v *View) verdict(l *listener, n string, id int32) Candidate {
	s := &v.svcs[id]
	svc := &v.inv[s.svc]
	c := Candidate{Service: svc.Ref(), Decision: v.decisions[s.svc]}
	if !s.exportedTo(n) {
		c.Verdict, c.Reason = Hidden, v.hiddenReason(s.svc, n)
		return c
	}
	if l.exactOnly {
		if o := v.oldest[hostNS{s.host, svc.Namespace}]; o != id {
			c.Verdict, c.Reason = Outranked, fmt.Sprintf("every import of the listener is an exact host of a named namespace, so it looks only at the oldest service of %s in %s: %s", s.host, svc.Namespace, v.ref(o))
			return c
		}
	}
	for _, raw := range l.egress.Hosts {
		h := parseEgressHost(raw)
		if h.namespace == "." {
			h.namespace = n
		}
		if h.exclude && (h.namespace == svc.Namespace || h.namespace == names.Wildcard) && hosts.Covers(h.host, s.host) {
			c.Verdict, c.Reason = Excluded, fmt.Sprintf("%q excludes it (an exclusion beats any import)", raw)
			return c
		}
	}
	if _, ok := l.byNS[svc.Namespace].imports(s.host); !ok {
		if _, ok := l.byNS[names.Wildcard].imports(s.host); !ok {
			c.Verdict, c.Reason = NotImported, fmt.Sprintf("no import of %s or * covers %s", svc.Namespace, s.host)
			return c
		}
	}
	if matchesPort(l.egress) && !slices.Contains(svc.Ports, l.egress.Port) {
		c.Verdict, c.Reason = NotImported, fmt.Sprintf("the listener's port %d is not among its ports %v", l.egress.Port, svc.Ports)
	}
	return c
}

// hiddenReason says why service i is not exported to namespace n.
func (v *View) hiddenReason(i int32, n string) string {
	s := &v.inv[i]
	eff := v.exported[i]
	declared := s.ExportTo
	from := "its exportTo"
	if len(declared) == 0 {
		declared, from = exportto.ListOf(nil, v.defaultTo), "the mesh's defaultServiceExportTo"
	}
	if !slices.Equal(eff, declared) {
		return fmt.Sprintf("%s %q, narrowed by visibility %s (applyToSidecars) to %q, does not export it to %s", from, declared, v.decisions[i], eff, n)
	}
	return fmt.Sprintf("%s %q does not export it to %s", from, declared, n)
}

// heldBy says which namespace holds the host in listener l, keeping id out.
func (v *View) heldBy(l *listener, n string, kept []importedService, id int32) string {
	if len(kept) == 0 {
		return "another namespace holds the host"
	}
	w := v.service(kept[0].id)
	rule := "the first namespace met: the services exported to " + n + " by name, then the public ones, each oldest first"
	if l.exactOnly {
		rule = "the first namespace met: every import is an exact host of a named namespace, so the listener meets their services oldest first"
	}
	switch {
	case w.Namespace == n:
		rule = "the proxy's own namespace"
	case w.Kind == inventory.KubernetesService:
		rule = "a Kubernetes Service, outside the proxy's namespace, takes the host from a ServiceEntry"
	}
	return fmt.Sprintf("namespace %s holds the host in this listener (%s): %s; %s is in %s", w.Namespace, rule, v.ref(kept[0].id), v.ref(id), v.service(id).Namespace)
}

// outranked says why a service the listener kept does not replace or join what the proxy
// has from earlier listeners.
func (v *View) outranked(have, id int32) string {
	h, s := v.service(have), v.service(id)
	switch {
	case h.Kind == inventory.KubernetesService && s.Kind != inventory.KubernetesService:
		return fmt.Sprintf("the proxy has %s, a Kubernetes Service, which a ServiceEntry never replaces", h.Ref())
	case h.Namespace != s.Namespace:
		return fmt.Sprintf("an earlier listener gave the host to %s, and the first choice stands", h.Ref())
	}
	return fmt.Sprintf("the proxy has %s, whose kind, resolution, labels, selector or exportTo differ, so their ports do not merge", h.Ref())
}

// String renders the explanation a candidate a line.
func (e Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s for a proxy in %s", e.Host, e.Namespace)
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

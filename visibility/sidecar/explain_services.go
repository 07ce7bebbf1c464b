package sidecar

import (
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// explainSteps spells the steps the trace of a proxy's record went through for its host:
// each listener's candidates and the destinations of its VirtualServices, with every
// candidate's verdict and why.
func (v *View) explainSteps(rec *record) []Step {
	tr := rec.trace
	out := make([]Step, len(tr.steps))
	for i, st := range tr.steps {
		out[i].Key = rec.stepKey(st.listener)
		if st.vs >= 0 {
			out[i].Key += fmt.Sprintf(": a destination of VirtualService %s", v.vss.vss[st.vs].ref)
		}
	}
	for i := range tr.steps {
		st := &tr.steps[i]
		if st.vs >= 0 {
			v.destinationStep(rec, st, &out[i], out)
			continue
		}
		out[i].Candidates = make([]Candidate, len(st.cands))
		for j := range st.cands {
			out[i].Candidates[j] = v.candidate(rec, &st.cands[j], st, "", out)
		}
	}
	return out
}

// destinationStep spells into step the step of a VirtualService's destination to the host:
// the service istiod takes for it, and what became of that service (steps: every step, for
// their keys).
func (v *View) destinationStep(rec *record, st *traceStep, step *Step, steps []Step) {
	host, n := rec.trace.host, rec.ns
	step.Candidates = []Candidate{}
	if len(st.cands) == 0 {
		step.Key += fmt.Sprintf("; no service of %s is in %s or exported to it, so it adds nothing", host, n)
		return
	}
	why := fmt.Sprintf("the service of %s in the proxy's own namespace %s, which istiod takes for a destination whether or not it is exported there", host, n)
	if !st.own {
		why = fmt.Sprintf("%s has no service of %s, and of those exported to it istiod takes a Kubernetes Service, else the oldest", n, host)
	}
	c := &st.cands[0]
	svc := v.services.service(c.id)
	cand := v.candidate(rec, c, st, why, steps)
	switch c.fate {
	case lacksPort:
		cand.Reason = fmt.Sprintf("%s; the listener's port %d is not among its ports %v", why, rec.listeners[st.listener].l.egress.Port, svc.Ports)
	case uncovered:
		cand.Reason = fmt.Sprintf("%s; none of the ports the routes give (%v) is among its ports %v", why, c.ports, svc.Ports)
	}
	step.Candidates = append(step.Candidates, cand)
}

// candidate spells a traced service at a step: its verdict and why (prefixed with how a
// destination's service was found, why, once it reached the proxy; steps: every step, for
// their keys).
func (v *View) candidate(rec *record, c *traced, st *traceStep, why string, steps []Step) Candidate {
	x, n := &v.services, rec.ns
	s := &x.svcs[c.id]
	svc := &x.inv[s.svc]
	out := Candidate{Service: svc.Ref(), Decision: x.reading.decisions[s.svc]}
	lr := &rec.listeners[st.listener]
	switch c.fate {
	case notExported:
		out.Verdict, out.Reason = Hidden, x.hiddenReason(s.svc, n)
	case notIndexed:
		out.Verdict, out.Reason = Outranked, fmt.Sprintf("every import of the listener is an exact host of a named namespace, so it looks only at the oldest service of %s in %s: %s", s.host, svc.Namespace, x.ref(c.other))
	case excludedBy:
		out.Verdict, out.Reason = Excluded, fmt.Sprintf("%q excludes it (an exclusion beats any import)", lr.l.egress.Hosts[c.at])
	case uncovered:
		out.Verdict, out.Reason = NotImported, fmt.Sprintf("no import of %s or * covers %s", svc.Namespace, s.host)
	case lacksPort:
		out.Verdict, out.Reason = NotImported, fmt.Sprintf("the listener's port %d is not among its ports %v", lr.l.egress.Port, svc.Ports)
	case heldElsewhere:
		out.Verdict, out.Reason = Outranked, v.heldBy(rec, lr, c.id)
	case replacedLater:
		out.Verdict, out.Reason = Outranked, fmt.Sprintf("replaced by %s, a Kubernetes Service (%s)", x.ref(c.other), steps[c.at].Key)
	case reached:
		out.Verdict, out.Reason = v.reached(rec, c)
		if why != "" {
			out.Reason = why + "; " + out.Reason
		}
	}
	return out
}

// reached says what a service that reached the proxy did to what it had.
func (v *View) reached(rec *record, c *traced) (Verdict, string) {
	x := &v.services
	switch c.out {
	case firstOfHost:
		return Chosen, "the first service the proxy gets for the host"
	case replacing:
		return Chosen, fmt.Sprintf("a Kubernetes Service replaces %s, a ServiceEntry", x.ref(c.other))
	case repeated:
		return Merged, "the service the proxy already has; its ports join"
	case joining:
		return Merged, fmt.Sprintf("its ports join those of %s: same namespace, kind, resolution, labels, selector and exportTo", x.ref(c.other))
	}
	h, s := x.service(c.other), x.service(c.id)
	switch {
	case replaces(h, s):
		return Outranked, fmt.Sprintf("the proxy has %s, a Kubernetes Service, which a ServiceEntry never replaces", h.Ref())
	case h.Namespace != s.Namespace && rec.kind == gatewayKind:
		return Outranked, fmt.Sprintf("the gateway has %s, which came first: a gateway takes the first service of a host it meets, and prefers no namespace", h.Ref())
	case h.Namespace != s.Namespace:
		return Outranked, fmt.Sprintf("an earlier listener gave the host to %s, and the first choice stands", h.Ref())
	}
	return Outranked, fmt.Sprintf("the proxy has %s, whose kind, resolution, labels, selector or exportTo differ, so their ports do not merge", h.Ref())
}

// hiddenReason says why service i (of the inventory) is not exported to namespace n.
func (x *serviceIndex) hiddenReason(i int32, n string) string {
	s := &x.inv[i]
	eff := x.exported[i]
	declared, from := s.ExportTo, fmt.Sprintf("its exportTo %q", s.ExportTo)
	if len(declared) == 0 {
		declared, from = x.reading.defaultList, meshDefaultSaid("defaultServiceExportTo", x.reading.meshDefault, x.reading.release)
	}
	if !slices.Equal(eff, declared) {
		return fmt.Sprintf("%s, narrowed by visibility %s (applyToSidecars) to %q, does not export it to %s", from, x.reading.decisions[i], eff, n)
	}
	return fmt.Sprintf("%s does not export it to %s", from, n)
}

// meshDefaultSaid spells the mesh default exportTo of a kind (field: its name; given: as the
// mesh configuration gives it) that an object without its own goes by, as release r reads it
// (exportto.DefaultList).
func meshDefaultSaid(field string, given []string, r mesh.Release) string {
	list := exportto.ListOf(nil, given)
	out := fmt.Sprintf("the mesh's %s %q", field, list)
	if read := exportto.DefaultList(given, r); !slices.Equal(read, list) {
		out += fmt.Sprintf(", which Istio %s reads as %q (before 1.30.3 istiod honours only \".\" and \"*\" in it: %s),", r.Version(), read, mesh.DefaultExportToLists)
	}
	return out
}

// heldBy says which namespace holds the host in listener lr, keeping service id out: the
// namespace of the first service of the host the listener kept.
func (v *View) heldBy(rec *record, lr *listenerRecord, id int32) string {
	x, n := &v.services, rec.ns
	i := slices.IndexFunc(lr.imported, func(is importedService) bool { return x.svcs[is.id].host == rec.trace.host })
	if i < 0 {
		return "another namespace holds the host"
	}
	holder := lr.imported[i].id
	w := x.service(holder)
	rule := "the first namespace met: the services exported to " + n + " by name, then the public ones, each oldest first"
	if lr.l.exactOnly {
		rule = "the first namespace met: every import is an exact host of a named namespace, so the listener meets their services oldest first"
	}
	switch {
	case w.Namespace == n:
		rule = "the proxy's own namespace"
	case w.Kind == inventory.KubernetesService:
		rule = "a Kubernetes Service, outside the proxy's namespace, takes the host from a ServiceEntry"
	}
	return fmt.Sprintf("namespace %s holds the host in this listener (%s): %s; %s is in %s", w.Namespace, rule, x.ref(holder), x.ref(id), x.service(id).Namespace)
}

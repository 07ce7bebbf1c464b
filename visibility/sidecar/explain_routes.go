package sidecar

import (
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// explainRoutes spells, for each listener of a proxy's record that imports the traced host,
// every VirtualService with a host covering it and what became of it; then those of
// undiscovered namespaces.
func (v *View) explainRoutes(rec *record) []Step {
	tr := rec.trace
	var out []Step
	for _, rt := range tr.routes {
		step := Step{Key: rec.stepKey(rt.listener), Candidates: []Candidate{}}
		for _, c := range rt.cands {
			step.Candidates = append(step.Candidates, v.routeCandidate(rec, &rt, &c))
		}
		for _, vs := range v.vss.undisc {
			var hs []string
			for _, h := range vs.Hosts {
				hs = append(hs, resolveHost(h, vs.Namespace, v.domain))
			}
			if h, ok := mostSpecificOf(slices.Values(hs), tr.host); ok {
				step.Candidates = append(step.Candidates, Candidate{Object: vs.Namespace + "/" + vs.Name, Host: h, Verdict: NotDiscovered,
					Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its VirtualServices", vs.Namespace)})
			}
		}
		if len(step.Candidates) > 0 {
			out = append(out, step)
		}
	}
	return out
}

// routeCandidate spells a VirtualService whose host covers the traced one, on a listener.
func (v *View) routeCandidate(rec *record, rt *routeTrace, c *routeCand) Candidate {
	r := &v.vss.vss[c.k]
	n, host := rec.ns, rec.trace.host
	out := Candidate{Object: r.ref, Host: c.host}
	switch c.fate {
	case vsGatewaysOnly:
		out.Verdict, out.Reason = Hidden, fmt.Sprintf("its gateways %q do not name mesh: it applies to gateways only", r.vs.Gateways)
	case vsNotExported:
		out.Verdict, out.Reason = Hidden, v.vss.hiddenReason(r, n, v.release)
	case vsExcluded:
		out.Verdict, out.Reason = Excluded, fmt.Sprintf("an exclusion of the listener covers %s, the host of it an import matches", c.matched)
	case vsUncovered:
		out.Verdict, out.Reason = NotImported, fmt.Sprintf("no import of the listener for its namespace %s or for * matches one of its hosts %q", r.vs.Namespace, r.hosts)
	case vsRoutes:
		out.Verdict, out.Reason = Chosen, fmt.Sprintf("its host %s matches %s most specifically (an exact host, else the longest wildcard), the first in Istio's order among equals", c.host, host)
	case vsSameHost:
		order := "private to %s, exported to it by name, public; each by creation time"
		if r.converted() || v.vss.vss[rt.best].converted() {
			order = "private to %s, exported to it by name, public; in each, those istiod made from routes of the proxy's namespace first, then by creation time"
		}
		out.Verdict, out.Reason = Outranked, fmt.Sprintf("%s gives the same host %s and comes first in Istio's order ("+order+")", v.vss.vss[rt.best].ref, c.host, n)
	case vsLessSpecific:
		out.Verdict, out.Reason = Outranked, fmt.Sprintf("%s's host %s matches %s more specifically than %s", v.vss.vss[rt.best].ref, rt.bestHost, host, c.host)
	}
	out.Reason += v.madeFrom(r)
	return out
}

// hiddenReason says why VirtualService r is not exported to namespace n under release rel.
func (x *vsIndex) hiddenReason(r *virtualService, n string, rel mesh.Release) string {
	if len(r.vs.ExportTo) == 0 {
		return fmt.Sprintf("%s does not export it to %s", meshDefaultSaid("defaultVirtualServiceExportTo", x.meshDefault, rel), n)
	}
	return fmt.Sprintf("its exportTo %q does not export it to %s", r.vs.ExportTo, n)
}

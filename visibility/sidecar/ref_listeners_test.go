package sidecar

import (
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// The literal reference's egress listeners (steps 4 to 6 of refSidecarView): which services a
// listener imports, in order.

// refEgressHost is one egress host, its namespace resolved.
type refEgressHost struct {
	ns, host string
	exclude  bool
}

// refParseEgress reads a listener's hosts for a proxy in n as release rel does: "~" before a
// namespace excludes from 1.31 on; before, "~/h" names the literal namespace "~".
func refParseEgress(hosts []string, n string, rel mesh.Release) []refEgressHost {
	var entries []refEgressHost
	for _, raw := range hosts {
		ns, h, _ := strings.Cut(raw, "/")
		x := strings.HasPrefix(ns, "~") && rel.Has(mesh.SidecarExclusions)
		if x {
			ns = strings.TrimPrefix(ns, "~")
		}
		if x && ns == "" {
			ns = "*"
		}
		if ns == "." {
			ns = n
		}
		entries = append(entries, refEgressHost{ns, h, x})
	}
	return entries
}

// refExcluded: an exclusion of namespace ns covers host h.
func refExcluded(entries []refEgressHost, ns, h string) bool {
	for _, en := range entries {
		if en.exclude && en.ns == ns && refSubset(h, en.host) {
			return true
		}
	}
	return false
}

// refListenerServices are steps 4 to 6 for one listener: the services it imports, in order,
// as release rel lists them.
func refListenerServices(svcs []refService, entries []refEgressHost, e inventory.Egress, n string, rel mesh.Release) []refGot {
	exact := rel.Has(mesh.ExactHostListeners)
	for _, en := range entries {
		if !en.exclude && (strings.HasPrefix(en.host, "*") || en.ns == "*") {
			exact = false
		}
	}
	var cands []refService
	if exact {
		for _, en := range entries {
			if en.exclude || slices.ContainsFunc(cands, func(c refService) bool { return c.host == en.host && c.s.Namespace == en.ns }) {
				continue
			}
			if idx := refIndexed(svcs, en.host, en.ns); idx != nil && refVisible(*idx, n) {
				cands = append(cands, *idx)
			}
		}
		slices.SortStableFunc(cands, func(a, b refService) int { return a.rank - b.rank })
	} else {
		cands = refExportedTo(svcs, n, rel)
	}
	// Step 5.
	imports := func(ns, h string) bool {
		for _, en := range entries {
			if !en.exclude && en.ns == ns && (en.host == h || (strings.HasPrefix(h, "*") || strings.HasPrefix(en.host, "*")) && refSubset(h, en.host)) {
				return true
			}
		}
		return false
	}
	var imported []refGot
	for _, c := range cands {
		if refExcluded(entries, c.s.Namespace, c.host) || refExcluded(entries, "*", c.host) {
			continue
		}
		if !imports(c.s.Namespace, c.host) && !imports("*", c.host) {
			continue
		}
		ports := c.s.Ports
		if refMatchesPort(e) {
			if !slices.Contains(ports, e.Port) {
				continue
			}
			ports = []uint32{e.Port}
		}
		imported = append(imported, refGot{c, ports})
	}
	// Step 6.
	type holder struct {
		ns   string
		kube bool
	}
	held := map[string]holder{}
	for _, g := range imported {
		h := holder{g.x.s.Namespace, g.x.s.Kind == inventory.KubernetesService}
		cur, ok := held[g.x.host]
		if !ok || h.ns == n || !cur.kube && h.kube && (h.ns == n || cur.ns != n) {
			held[g.x.host] = h
		}
	}
	return slices.DeleteFunc(imported, func(g refGot) bool { return held[g.x.host].ns != g.x.s.Namespace })
}

// refExportedTo are the services exported to n in the order release rel lists them: those
// exported to n by name (n's own included), then the public ones; before 1.30.3, n's own
// first — one whose exportTo names n as "." and by name, twice — then the others exported to
// n by name, then the public ones.
func refExportedTo(svcs []refService, n string, rel mesh.Release) []refService {
	var out []refService
	if !rel.Has(mesh.ListenerOrder) {
		for _, x := range svcs {
			if refListed(x, n) && x.s.Namespace == n {
				out = append(out, x)
				if slices.Contains(x.eff, ".") && slices.Contains(x.eff, n) {
					out = append(out, x)
				}
			}
		}
	}
	for _, x := range svcs {
		if refListed(x, n) && (rel.Has(mesh.ListenerOrder) || x.s.Namespace != n) {
			out = append(out, x)
		}
	}
	for _, x := range svcs {
		if refPublic(x) {
			out = append(out, x)
		}
	}
	return out
}

// refMatchesPort: the listener keeps only services that declare its port (an HTTP_PROXY
// listener keeps them whatever their ports).
func refMatchesPort(e inventory.Egress) bool {
	return e.Port != 0 && !strings.EqualFold(e.Protocol, "HTTP_PROXY")
}

// refSubset is Istio's host.Name.SubsetOf: whether service host h is covered by the egress
// host o.
func refSubset(h, o string) bool {
	hw, ow := strings.HasPrefix(h, "*"), strings.HasPrefix(o, "*")
	switch {
	case hw && ow:
		if len(h) < len(o) {
			return false
		}
		return strings.HasSuffix(h[1:], o[1:])
	case hw:
		return false
	case ow:
		return strings.HasSuffix(h, o[1:])
	}
	return h == o
}

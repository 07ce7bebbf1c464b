package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// lintRoutes judges, per class of proxies, the routes and rules each class actually gets,
// reading the record of its view: route destinations to a subset the class's
// DestinationRule for the host lacks, hosts two user VirtualServices of one listener give
// alike, destinations istiod takes from a map among equals (DestinationTie, as Proxy notes
// it), and (lintClassRoutes) hosts routed by both a VirtualService and a Gateway API
// route, and Routes answers that build no virtual host. A finding lists every class it
// holds for.
func (v *View) lintRoutes() []Finding {
	fs := classFindings{who: "proxies"}
	for _, c := range v.Classes() {
		var rec record
		v.build(&rec, sidecarKind, v.sidecars.forProxy(c.Namespace, c.Workload), c.Namespace, c.Workload, nil, nil)
		for i := range rec.ties {
			if f, ok := v.tieNote(&rec, rec.ties[i].host); ok && slices.IndexFunc(rec.ties, func(t destinationTie) bool { return t.host == rec.ties[i].host }) == i {
				fs.note(f.Path, f.Code, f.Message, c)
			}
		}
		for i := range rec.listeners {
			lr := &rec.listeners[i]
			for _, k := range lr.vss {
				r := &v.vss.vss[k]
				for _, d := range r.subsetDestinations(c.Namespace) {
					g := v.services.received(&rec.got, d.host)
					switch {
					case g == nil:
					case g.rule == nil:
						fs.note("VirtualService "+r.ref, RouteSubsetMissing, fmt.Sprintf("routes to subset %s of %s, but these proxies get no DestinationRule for %s: requests routed there fail", d.subset, d.host, d.host), c)
					case !slices.Contains(g.rule.subsets, d.subset):
						rule := v.rules.spell(g.rule)
						fs.note("VirtualService "+r.ref, RouteSubsetMissing, fmt.Sprintf("routes to subset %s of %s, but the DestinationRule these proxies get for it (%s) has subsets %v: requests routed there fail", d.subset, d.host, strings.Join(rule.From, " + "), rule.Subsets), c)
					}
				}
			}
			if len(lr.vss) == 0 {
				continue
			}
			for _, is := range lr.imported {
				host := v.services.svcs[is.id].host
				// The first user VirtualService of the most specific host, and the others of it
				// (those istiod made from routes are HostRoutedByBoth's).
				var best routeHost
				top := ""
				for claim := range lr.routes.claims(host) {
					if top == "" {
						top = claim.host
					}
					if claim.host != top {
						break // a less specific host
					}
					if v.vss.vss[claim.vs].converted() {
						continue
					}
					if best.host == "" {
						best = claim
						continue
					}
					fs.note("VirtualService "+v.vss.vss[claim.vs].ref, HostRoutedTwice, fmt.Sprintf("gives host %s, as %s does, which comes first in Istio's order and routes %s: this one's routes for it are never used", best.host, v.vss.vss[best.vs].ref, host), c)
				}
			}
		}
		v.lintClassRoutes(&fs, c, &rec)
	}
	return fs.findings()
}

// classFindings gathers findings that hold for several classes of proxies: each once, in
// the order they were first noted, with every class it holds for.
type classFindings struct {
	who     string // "proxies", "gateways"
	order   []classFinding
	classes map[classFinding][]string
}

type classFinding struct {
	path string
	code report.Code
	what string
}

// note notes a finding for class c.
func (fs *classFindings) note(path string, code report.Code, what string, c Class) {
	k := classFinding{path, code, what}
	if fs.classes == nil {
		fs.classes = map[classFinding][]string{}
	}
	if _, ok := fs.classes[k]; !ok {
		fs.order = append(fs.order, k)
	}
	if name := c.String(); !slices.Contains(fs.classes[k], name) {
		fs.classes[k] = append(fs.classes[k], name)
	}
}

// findings returns the findings, each naming the classes it holds for.
func (fs *classFindings) findings() []Finding {
	var out []Finding
	format := "%s (for the " + fs.who + " of %s)"
	for _, k := range fs.order {
		out = append(out, report.New(k.path, k.code, format, k.what, strings.Join(fs.classes[k], "; ")))
	}
	return out
}

// lintRules finds DestinationRules no proxy of another namespace can get although they are
// exported beyond theirs, and catch-all rules merged into a workload-selected one.
func (v *View) lintRules() []Finding {
	var out []Finding
	xs, x := &v.services, &v.rules
	for k := range x.drs {
		r := &x.drs[k]
		ns := r.dr.Namespace
		if ns == v.root || r.exp.OwnOnly() || len(r.exportTo) == 0 { // only a rule declaring an exportTo beyond its namespace is judged
			continue
		}
		if !slices.ContainsFunc(xs.byNS[ns], func(id int32) bool { return hosts.Covers(r.host, xs.svcs[id].host) }) {
			out = append(out, report.New("DestinationRule "+r.ref, RuleOutOfReach,
				"exported to %q, but a rule applies only from the proxy's namespace, the service's namespace and the root namespace %s, and no service of %s is in %s: no proxy of another namespace gets it",
				r.dr.ExportTo, v.root, r.host, ns))
		}
	}
	seen := map[int32]bool{}
	for _, ns := range slices.Sorted(maps.Keys(x.local)) {
		for _, pool := range [2]map[string][]*mergedRule{x.local[ns].specific, x.local[ns].wildcard} {
			for _, h := range slices.Sorted(maps.Keys(pool)) {
				list := pool[h]
				for _, m := range list {
					first := x.drs[m.first].dr
					if first.WorkloadSelector == nil {
						continue
					}
					for _, k := range m.from[1:] {
						if seen[k] || x.drs[k].dr.WorkloadSelector != nil || slices.ContainsFunc(list, func(o *mergedRule) bool { return o.first == k }) {
							continue
						}
						seen[k] = true
						out = append(out, report.New("DestinationRule "+x.drs[k].ref, CatchAllRuleMerged,
							"it has no workloadSelector, but istiod merges it into %s, an earlier workload-selected rule of %s for %s with the same exportTo: only workloads with %s get its subsets and policy, and the namespace's other workloads get no rule for %s from it",
							x.drs[m.first].ref, ns, h, labels.Set(first.WorkloadSelector), h))
					}
				}
			}
		}
	}
	return out
}

// lintShortHosts finds hosts written name.namespace (or name.namespace.svc) in
// VirtualServices and DestinationRules: Istio expands only names without a dot, so they
// never match the Kubernetes Service's host.
func (v *View) lintShortHosts() []Finding {
	namespaces := v.inv.NamespaceNames()
	short := func(h string) (string, bool) {
		parts := strings.Split(h, ".")
		switch {
		case len(parts) == 2, len(parts) == 3 && parts[2] == "svc":
		default:
			return "", false
		}
		if _, ok := slices.BinarySearch(namespaces, parts[1]); !ok {
			return "", false
		}
		full := inventory.ServiceHost(parts[0], parts[1], v.domain)
		return full, len(v.services.byHost[h]) == 0
	}
	var out []Finding
	add := func(path, where, h string) {
		if full, ok := short(h); ok {
			out = append(out, report.New(path, ShortHostNeverMatches, "%s %q is kept as written (Istio expands only names without a dot): it never matches %s", where, h, full))
		}
	}
	for i := range v.inv.VirtualServices {
		vs := &v.inv.VirtualServices[i]
		path := "VirtualService " + vs.Namespace + "/" + vs.Name
		for _, h := range vs.Hosts {
			add(path, "host", h)
		}
		seen := map[string]bool{}
		for _, rt := range vs.HTTP {
			for _, d := range slices.Concat(rt.Route, rt.Mirrors) {
				if !seen[d.Host] {
					seen[d.Host] = true
					add(path, "destination host", d.Host)
				}
			}
			if rt.Mirror != nil && !seen[rt.Mirror.Host] {
				seen[rt.Mirror.Host] = true
				add(path, "destination host", rt.Mirror.Host)
			}
		}
		for _, rt := range slices.Concat(vs.TLS, vs.TCP) {
			for _, d := range rt.Route {
				if !seen[d.Host] {
					seen[d.Host] = true
					add(path, "destination host", d.Host)
				}
			}
		}
	}
	for i := range v.inv.DestinationRules {
		dr := &v.inv.DestinationRules[i]
		add("DestinationRule "+dr.Namespace+"/"+dr.Name, "host", dr.Host)
	}
	return out
}

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

// lintRoutes judges, per class of proxies, the routes and rules each class actually gets:
// route destinations to a subset the class's DestinationRule for the host lacks, and hosts
// two VirtualServices of one listener give alike. A finding lists every class it holds for.
func (v *View) lintRoutes() []Finding {
	type key struct {
		path, code, what string
	}
	classes := map[key][]string{}
	var order []key
	note := func(k key, class string) {
		if _, ok := classes[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(classes[k], class) {
			classes[k] = append(classes[k], class)
		}
	}
	for _, c := range v.Classes() {
		sc := v.sidecarFor(c.Namespace, c.Workload)
		p, routed := v.buildProxy(sc, c.Namespace, c.Workload, true)
		has := map[string]bool{}
		for _, s := range p.Services {
			has[s.Host] = true
		}
		for li, rl := range routed {
			selected := rl.vss
			for _, k := range selected {
				r := &v.vss[k]
				for _, d := range r.subsetDestinations(c.Namespace) {
					if !has[d.host] {
						continue
					}
					rule := p.Rules[d.host]
					switch {
					case rule == nil:
						note(key{"VirtualService " + r.ref, string(RouteSubsetMissing), fmt.Sprintf("routes to subset %s of %s, but these proxies get no DestinationRule for %s: requests routed there fail", d.subset, d.host, d.host)}, c.String())
					case !slices.Contains(rule.Subsets, d.subset):
						note(key{"VirtualService " + r.ref, string(RouteSubsetMissing), fmt.Sprintf("routes to subset %s of %s, but the DestinationRule these proxies get for it (%s) has subsets %v: requests routed there fail", d.subset, d.host, strings.Join(rule.From, " + "), rule.Subsets)}, c.String())
					}
				}
			}
			for _, h := range p.Listeners[li].Services {
				_, host, _ := strings.Cut(h, "/")
				best, bestHost, ok := rl.ix.lookup(host)
				if !ok {
					continue
				}
				for _, k := range selected {
					if h, ok := mostSpecificOf(slices.Values(v.vss[k].hosts), host); ok && k != best && h == bestHost {
						note(key{"VirtualService " + v.vss[k].ref, string(HostRoutedTwice), fmt.Sprintf("gives host %s, as %s does, which comes first in Istio's order and routes %s: this one's routes for it are never used", bestHost, v.vss[best].ref, host)}, c.String())
					}
				}
			}
		}
	}
	var out []Finding
	for _, k := range order {
		out = append(out, report.New(k.path, report.Code(k.code), "%s (for the proxies of %s)", k.what, strings.Join(classes[k], "; ")))
	}
	return out
}

// subsetDestinations returns r's route destinations that name a subset, for proxies of
// namespace n, each once.
func (r *virtualService) subsetDestinations(n string) []destination {
	var out []destination
	for d := range r.destinationsFor(n) {
		if d.subset != "" && !slices.ContainsFunc(out, func(o destination) bool { return o.host == d.host && o.subset == d.subset }) {
			out = append(out, d)
		}
	}
	return out
}

// lintRules finds DestinationRules no proxy of another namespace can get although they are
// exported beyond theirs, and catch-all rules merged into a workload-selected one.
func (v *View) lintRules() []Finding {
	var out []Finding
	for k := range v.drs {
		r := &v.drs[k]
		ns := r.dr.Namespace
		if ns == v.root || r.exp.OwnOnly() || len(r.exportTo) == 0 { // only a rule declaring an exportTo beyond its namespace is judged
			continue
		}
		if !slices.ContainsFunc(v.byNS[ns], func(id int32) bool { return hosts.Covers(r.host, v.svcs[id].host) }) {
			out = append(out, report.New("DestinationRule "+r.ref, RuleOutOfReach,
				"exported to %q, but a rule applies only from the proxy's namespace, the service's namespace and the root namespace %s, and no service of %s is in %s: no proxy of another namespace gets it",
				r.dr.ExportTo, v.root, r.host, ns))
		}
	}
	seen := map[int32]bool{}
	for _, ns := range slices.Sorted(maps.Keys(v.drLocal)) {
		for _, pool := range [2]map[string][]*mergedRule{v.drLocal[ns].specific, v.drLocal[ns].wildcard} {
			for _, h := range slices.Sorted(maps.Keys(pool)) {
				list := pool[h]
				for _, m := range list {
					first := v.drs[m.first].dr
					if first.WorkloadSelector == nil {
						continue
					}
					for _, k := range m.from[1:] {
						if seen[k] || v.drs[k].dr.WorkloadSelector != nil || slices.ContainsFunc(list, func(o *mergedRule) bool { return o.first == k }) {
							continue
						}
						seen[k] = true
						out = append(out, report.New("DestinationRule "+v.drs[k].ref, CatchAllRuleMerged,
							"it has no workloadSelector, but istiod merges it into %s, an earlier workload-selected rule of %s for %s with the same exportTo: only workloads with %s get its subsets and policy, and the namespace's other workloads get no rule for %s from it",
							v.drs[m.first].ref, ns, h, labels.Set(first.WorkloadSelector), h))
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
	namespaces := v.all.NamespaceNames()
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
		return full, len(v.byHost[h]) == 0
	}
	var out []Finding
	add := func(path, where, h string) {
		if full, ok := short(h); ok {
			out = append(out, report.New(path, ShortHostNeverMatches, "%s %q is kept as written (Istio expands only names without a dot): it never matches %s", where, h, full))
		}
	}
	for i := range v.all.VirtualServices {
		vs := &v.all.VirtualServices[i]
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
	for i := range v.all.DestinationRules {
		dr := &v.all.DestinationRules[i]
		add("DestinationRule "+dr.Namespace+"/"+dr.Name, "host", dr.Host)
	}
	return out
}

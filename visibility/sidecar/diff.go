package sidecar

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/report"
)

// ProxyHost names a host as a class of sidecar proxies receives it: those of a namespace
// (Workload "") or those of its workloads a workload Sidecar selects (Workload: the labels
// it selects, "app=web"; in Diff also the labels of two, one Sidecar of each
// configuration, for the workloads both select: "app=web,version=v1").
type ProxyHost struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload,omitempty"`
	Host      string `json:"host"`
}

// Change is a host whose service changes for a class of proxies (Key): Before and
// After are what they get (nil: not received), Gained and Lost the ports they gain and lose.
type Change = report.Change[ProxyHost, *Service, uint32]

// Diff is the dry run of a change to what sidecars receive — Sidecars, exportTo,
// the mesh's defaultServiceExportTo, discovery selectors, rootNamespace or visibility: build
// a view of the current configuration and one of the proposed, and it lists, for every
// namespace of either and for the workloads each workload Sidecar of either selects, every
// host the change adds, removes, sends to another service or gives other ports. A workload
// that one Sidecar selects before and another after is a class of its own, named by both
// selectors' labels ("app=web,version=v1"): it gets the first one's view before and the
// second one's after. Nothing is enforced. Changes are sorted by namespace, workload and
// host. Its cost is that of Proxy for each class of proxies, twice. Either view may be nil:
// the view of an empty inventory, in which proxies receive nothing.
func Diff(before, after *View) []Change {
	if before == nil {
		before = &View{}
	}
	if after == nil {
		after = &View{}
	}
	type class struct {
		ns       string
		workload labels.Set
	}
	seen := map[string]bool{}
	var classes []class
	add := func(ns string, w map[string]string) {
		key := ns + "\x00" + labels.Set(w).String()
		if w != nil && len(w) == 0 || seen[key] {
			return
		}
		seen[key] = true
		classes = append(classes, class{ns, labels.Set(w)})
	}
	var selectors [2]map[string][]map[string]string // per view, per namespace: its workload Sidecars' selectors
	for k, v := range []*View{before, after} {
		selectors[k] = map[string][]map[string]string{}
		for _, ns := range v.all.NamespaceNames() {
			add(ns, nil)
		}
		for i := range v.scs {
			if sc := &v.scs[i]; sc.WorkloadSelector != nil {
				add(sc.Namespace, sc.WorkloadSelector)
				selectors[k][sc.Namespace] = append(selectors[k][sc.Namespace], sc.WorkloadSelector)
			}
		}
	}
	// A workload one Sidecar selects before and another after carries both selectors' labels:
	// it gets the first's view before and the second's after, which neither selector's
	// workloads alone show.
	for ns, list := range selectors[0] {
		for _, x := range list {
			for _, y := range selectors[1][ns] {
				if u, ok := unionLabels(x, y); ok {
					add(ns, u)
				}
			}
		}
	}
	slices.SortFunc(classes, func(a, b class) int {
		return cmp.Or(strings.Compare(a.ns, b.ns), strings.Compare(a.workload.String(), b.workload.String()))
	})
	out := []Change{}
	for _, c := range classes {
		b, a := byHost(before.Proxy(c.ns, c.workload)), byHost(after.Proxy(c.ns, c.workload))
		hosts := slices.Sorted(maps.Keys(b))
		for h := range a {
			if _, ok := b[h]; !ok {
				hosts = append(hosts, h)
			}
		}
		slices.Sort(hosts)
		for _, h := range hosts {
			x, y := b[h], a[h]
			if x != nil && y != nil && x.Kind == y.Kind && x.Namespace == y.Namespace && x.Name == y.Name && slices.Equal(x.Ports, y.Ports) {
				continue
			}
			ch := Change{Key: ProxyHost{Namespace: c.ns, Workload: c.workload.String(), Host: h}, Before: x, After: y}
			var bp, ap []uint32
			if x != nil {
				bp = x.Ports
			}
			if y != nil {
				ap = y.Ports
			}
			ch.Gained, ch.Lost = report.Delta(bp, ap)
			out = append(out, ch)
		}
	}
	return out
}

// unionLabels returns the labels of a workload both selectors select, false when no workload
// can carry both (they want different values for one key).
func unionLabels(x, y map[string]string) (map[string]string, bool) {
	u := maps.Clone(x)
	for k, b := range y {
		if a, ok := u[k]; ok && a != b {
			return nil, false
		}
		u[k] = b
	}
	return u, true
}

func byHost(p Proxy) map[string]*Service {
	m := make(map[string]*Service, len(p.Services))
	for i := range p.Services {
		m[p.Services[i].Host] = &p.Services[i]
	}
	return m
}

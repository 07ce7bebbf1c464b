package sidecar

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// sidecarIndex is the Sidecar resources of a view: those of each discovered namespace in
// Istio's order, the root namespace's default, and the egress listeners of each read once.
type sidecarIndex struct {
	all     []inventory.Sidecar // the inventory's, discovered or not
	root    string
	reading egressReading // how the release reads egress hosts
	// byNS holds the Sidecars of each discovered namespace in Istio's order: those with a
	// workload selector first, each group by creation time and name.
	byNS        map[string][]*inventory.Sidecar
	rootDefault *inventory.Sidecar // the first Sidecar without a selector of the root namespace
	// The egress listeners of each discovered Sidecar read for its own namespace, and those
	// of a proxy no Sidecar applies to.
	listeners       map[*inventory.Sidecar]sidecarListeners
	defaultListener []listener
}

// sidecarListeners are a Sidecar's name and its egress listeners read for its namespace;
// dot: one of them imports or excludes hosts of "." (the proxy's namespace).
type sidecarListeners struct {
	name      string
	listeners []listener
	dot       bool
}

// newSidecarIndex orders the discovered Sidecars of each namespace, reads their listeners
// as rd reads them and finds the root namespace's default.
func newSidecarIndex(scs []inventory.Sidecar, disc discovery, root string, rd egressReading) sidecarIndex {
	x := sidecarIndex{all: scs, root: root, reading: rd, byNS: map[string][]*inventory.Sidecar{}}
	sorted := make([]*inventory.Sidecar, 0, len(scs))
	for i := range scs {
		if disc.discovered(scs[i].Namespace) {
			sorted = append(sorted, &scs[i])
		}
	}
	slices.SortFunc(sorted, func(a, b *inventory.Sidecar) int {
		return cmp.Or(cmp.Compare(b2i(a.WorkloadSelector == nil), b2i(b.WorkloadSelector == nil)), compareSidecars(a, b))
	})
	x.listeners = make(map[*inventory.Sidecar]sidecarListeners, len(sorted))
	x.defaultListener = rd.listeners(nil, "")
	for _, sc := range sorted {
		x.listeners[sc] = sidecarListeners{sidecarName(sc), rd.listeners(sc, sc.Namespace), slices.ContainsFunc(sc.Egress, rd.namesOwnNamespace)}
		x.byNS[sc.Namespace] = append(x.byNS[sc.Namespace], sc)
		if sc.Namespace == root && sc.WorkloadSelector == nil && x.rootDefault == nil {
			x.rootDefault = sc
		}
	}
	return x
}

// compareSidecars orders Sidecars as Istio does: by creation time, name, namespace.
func compareSidecars(a, b *inventory.Sidecar) int {
	return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
}

// forProxy returns the Sidecar that applies to a sidecar proxy in namespace with labels l;
// nil for none (a default listener importing "*/*").
func (x *sidecarIndex) forProxy(namespace string, l map[string]string) *inventory.Sidecar {
	for _, sc := range x.byNS[namespace] {
		if subsetOf(sc.WorkloadSelector, l) { // no selector applies to every workload
			return sc
		}
	}
	return x.rootDefault
}

// why says how forProxy chose sc for a proxy in namespace.
func (x *sidecarIndex) why(sc *inventory.Sidecar, namespace string) string {
	switch {
	case sc == nil:
		return "no Sidecar applies, and the root namespace " + x.root + " has none without a workloadSelector: one listener imports */*"
	case sc.Namespace != namespace:
		return "the root namespace " + x.root + "'s oldest Sidecar without a workloadSelector, read as if it were in " + namespace
	case sc.WorkloadSelector != nil:
		return "the oldest Sidecar of " + namespace + " whose workloadSelector matches the workload"
	}
	return "the oldest Sidecar of " + namespace + " without a workloadSelector; none with one matches"
}

// listenersOf returns the name of the Sidecar sc (nil: none applies; "") and its egress
// listeners read for a proxy in namespace n: those New read, unless sc is another
// namespace's (the root namespace's) and names ".", which then stands for n.
func (x *sidecarIndex) listenersOf(sc *inventory.Sidecar, n string) (string, []listener) {
	if sc == nil {
		return "", x.defaultListener
	}
	p := x.listeners[sc] // forProxy returns discovered Sidecars only
	if sc.Namespace != n && p.dot {
		return p.name, x.reading.listeners(sc, n)
	}
	return p.name, p.listeners
}

// sidecarName spells a Sidecar as "namespace/name"; "" for none.
func sidecarName(sc *inventory.Sidecar) string {
	if sc == nil {
		return ""
	}
	return sc.Namespace + "/" + sc.Name
}

// subsetOf reports whether every label of a is in b: whether a selector a (nil or empty
// selects everything) selects a workload with labels b.
func subsetOf(a, b map[string]string) bool {
	for k, x := range a {
		if y, ok := b[k]; !ok || x != y {
			return false
		}
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

package sidecar

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Class is a class of sidecar proxies that get one view: those of a namespace (Workload
// nil), or the workloads of it carrying the labels a workload Sidecar or a workload-selected
// DestinationRule selects (both, for the workloads both select).
type Class struct {
	Namespace string     `json:"namespace"`
	Workload  labels.Set `json:"workload,omitempty"`
}

// String returns "shop", or "shop with app=web".
func (c Class) String() string {
	if len(c.Workload) == 0 {
		return c.Namespace
	}
	return c.Namespace + " with " + c.Workload.String()
}

// Classes returns the classes of sidecar proxies whose views can differ: every namespace of
// the inventory; in each, the workloads each workload Sidecar selects and those each
// workload-selected DestinationRule selects; and the workloads a Sidecar's and a rule's
// selectors both select (their labels together, when no key asks for two values). Sorted by
// namespace, then by labels; each once. A workload of a class may carry more labels: its
// view is the class's unless more selectors select it.
func (v *View) Classes() []Class { return v.classes(sidecarKind) }

// GatewayClasses returns the classes of gateways whose views can differ, as Classes does for
// sidecars: Sidecars never apply to a gateway, so every namespace of the inventory and, in
// each, the workloads each workload-selected DestinationRule selects.
func (v *View) GatewayClasses() []Class { return v.classes(gatewayKind) }

// classes returns the classes of proxies of kind k whose views can differ.
func (v *View) classes(k kind) []Class {
	var cs classSet
	for _, ns := range v.inv.NamespaceNames() {
		cs.add(ns, nil)
	}
	scSel, drSel := map[string][]labels.Set{}, map[string][]labels.Set{}
	for i := range v.sidecars.all {
		if sc := &v.sidecars.all[i]; k == sidecarKind && len(sc.WorkloadSelector) > 0 {
			scSel[sc.Namespace] = append(scSel[sc.Namespace], sc.WorkloadSelector)
			cs.add(sc.Namespace, sc.WorkloadSelector)
		}
	}
	for k := range v.rules.drs {
		if dr := v.rules.drs[k].dr; len(dr.WorkloadSelector) > 0 {
			drSel[dr.Namespace] = append(drSel[dr.Namespace], dr.WorkloadSelector)
			cs.add(dr.Namespace, dr.WorkloadSelector)
		}
	}
	cs.addUnions(scSel, drSel)
	out := cs.sorted()
	for i := range out { // the selectors are the inventory's: the caller gets copies
		if out[i].Workload != nil {
			out[i].Workload = maps.Clone(out[i].Workload)
		}
	}
	return out
}

// classSet gathers classes of proxies, each namespace and set of labels once, in the order
// they come.
type classSet struct {
	seen map[string]bool
	list []Class
}

// add adds the class of the workloads of namespace ns with labels w (nil: the whole
// namespace), unless it has it; it keeps w itself.
func (s *classSet) add(ns string, w labels.Set) {
	k := ns + "\x00" + w.String()
	if s.seen[k] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[k] = true
	s.list = append(s.list, Class{Namespace: ns, Workload: w})
}

// addUnions adds, in each namespace, the class of the workloads that one selector of xs and
// one of ys both select, for every pair that some workload can satisfy.
func (s *classSet) addUnions(xs, ys map[string][]labels.Set) {
	for ns, list := range xs {
		for _, x := range list {
			for _, y := range ys[ns] {
				if u, ok := unionLabels(x, y); ok {
					s.add(ns, u)
				}
			}
		}
	}
}

// sorted returns the classes ordered by namespace, then by their labels as a string.
func (s *classSet) sorted() []Class {
	slices.SortFunc(s.list, func(a, b Class) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Workload.String(), b.Workload.String()))
	})
	return s.list
}

// ParseWorkload reads a workload's labels written key=value, separated by commas
// ("app=web,version=v1"), each key once, as a program takes them from its user. It is not a
// label selector: a selector's test ("app!=web", "app in (a)"), a key alone, a key given
// twice (which would otherwise keep only the last value), an empty label between commas,
// and a key or value Kubernetes would refuse on a pod are errors saying which.
func ParseWorkload(s string) (labels.Set, error) {
	const want = "want a workload's labels, key=value separated by commas, such as app=web,version=v1"
	out := labels.Set{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		k, val, ok := strings.Cut(part, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		switch {
		case part == "":
			return nil, fmt.Errorf("%q: an empty label between commas (%s)", s, want)
		case !ok:
			return nil, fmt.Errorf("%q: %q is not key=value (%s)", s, part, want)
		case strings.HasSuffix(k, "!"):
			return nil, fmt.Errorf("%q: %q is a selector's test, not a label (%s)", s, part, want)
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("%q: %q is not a label key: %s (%s)", s, k, strings.Join(msgs, "; "), want)
		}
		if msgs := validation.IsValidLabelValue(val); len(msgs) > 0 {
			return nil, fmt.Errorf("%q: %q is not a label value: %s (%s)", s, val, strings.Join(msgs, "; "), want)
		}
		if prev, dup := out[k]; dup {
			return nil, fmt.Errorf("%q: label %s given twice (%s and %s=%s): a workload has one value per label", s, k, k+"="+prev, k, val)
		}
		out[k] = val
	}
	return out, nil
}

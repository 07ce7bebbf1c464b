package sidecar

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// ProxyHost names a host as a class of sidecar proxies receives it (see Class): those of a
// namespace (Workload "") or those of its workloads a selector selects (Workload: the labels,
// "app=web"; in Diff also the labels of two selectors, one of each configuration, for the
// workloads both select: "app=web,version=v1").
type ProxyHost struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload,omitempty"`
	Host      string `json:"host"`
}

// Answer is what a class of proxies has for one host: the service (with how its listeners
// route it), the DestinationRule it gets (nil: none) and, for sidecars, the virtual hosts of
// the host a VirtualService builds.
type Answer struct {
	Service
	Rule *Rule `json:"rule,omitempty"`
	// VirtualHosts are the host's virtual hosts, one per port of the service Istio routes
	// HTTP on, whose routes come from a VirtualService (one istiod made from Gateway API
	// routes among them), as View.RouteTable gives them for the port, sorted by name; a port
	// where Istio's default route serves the host is not listed. Gateways have none.
	VirtualHosts []VirtualHost `json:"virtualHosts,omitempty"`
}

// Change is a host whose answer changes for a class of proxies (Key): Before and After are
// what they have (nil: not received); Gained and Lost the ports they gain and lose; Causes,
// when the two views answer as two Istio releases, the differences between them (mesh.Cause,
// in the order of the constants) that change it. It has the fields of every dry run's
// change (Key, Before, After, Gained, Lost), and Causes.
type Change struct {
	Key    ProxyHost `json:"key"`
	Before *Answer   `json:"before,omitzero"`
	After  *Answer   `json:"after,omitzero"`
	Gained []uint32  `json:"gained,omitempty"`
	Lost   []uint32  `json:"lost,omitempty"`
	// Causes are, of the causes the two views' releases differ by (mesh.Differences), those
	// whose rule decided something about the host for the class in either view (see the
	// package documentation, "An upgrade's dry run"); empty when the views answer as one
	// release. A change without causes between two releases comes from a difference between
	// the two configurations.
	Causes []mesh.Cause `json:"causes,omitempty"`
}

// Diff is the dry run of a change to what sidecars receive and how they route — Sidecars,
// services and their exportTo, VirtualServices, Gateway API routes, DestinationRules, the
// mesh's default exportTo of each, discovery selectors, rootNamespace or visibility: build a
// view of the current configuration and one of the proposed, and it lists, for every class
// of proxies of either (Classes), every host whose Answer differs in any field: a host added
// or removed, sent to another service, given other ports, brought by another
// VirtualService's destination (or by the egress hosts instead), routed otherwise — another
// Routes answer on its listeners, or another VirtualService (one istiod made from Gateway API
// routes among them) building one of its virtual hosts (VirtualHosts) —, or given another
// DestinationRule — other rules merged, other subset names, another traffic policy (compared
// by meaning, not spelling) or another workload selector. A workload that one selector
// selects before and another after is a class of its own, named by both selectors' labels
// ("app=web,version=v1"): it gets the first one's view before and the second one's after.
// Nothing is enforced. Changes are sorted by namespace, workload and host. Its cost is that
// of Proxy for each class of proxies, twice, and, where a view holds VirtualServices, that of
// a route table per port on which the class's services are routed over HTTP. Either view may
// be nil: the view of an empty inventory, in which proxies receive nothing. What changes in
// the status istiod writes on routes is DiffRouteStatus's.
//
// Two views answering as two Istio releases (View.Release) make Diff the dry run of an
// upgrade or a rollback: each Change then names the causes (mesh.Cause) that change it,
// among those the releases differ by (see the package documentation, "An upgrade's dry
// run"). Build each view from the inventory without what its release refuses, and list
// those objects as refused by it:
//
//	refused := inv.ValidateFor(m.Release())
//	v, err := sidecar.New(m, inv.Without(refused))
func Diff(before, after *View) []Change { return diff(sidecarKind, before, after) }

// DiffGateways is the dry run of a change to what gateways receive, as Diff is for sidecars:
// for every class of gateways of either view (GatewayClasses), every host whose Answer
// differs — another service, other ports, another DestinationRule — with, between two
// releases, the causes that change it (those that reach gateways: DefaultExportToLists,
// ListenerOrder, ServiceEntryVisibility). Its cost is that of Gateway for each class of
// gateways, twice.
func DiffGateways(before, after *View) []Change { return diff(gatewayKind, before, after) }

// diff lists what changes for every class of proxies of kind k.
func diff(k kind, before, after *View) []Change {
	switch {
	case before == nil && after == nil:
		return []Change{}
	case before == nil:
		before = &View{release: after.release}
	case after == nil:
		after = &View{release: before.release}
	}
	differ := release.SetOf(mesh.Differences(before.release, after.release)...)
	refused := map[string]bool{} // the Sidecars one view applies that the other's release refuses
	if differ.Has(mesh.SidecarExclusions) {
		maps.Copy(refused, refusedSidecars(before, after.release))
		maps.Copy(refused, refusedSidecars(after, before.release))
	}
	var cs classSet
	var selectors [2]map[string][]labels.Set // per view, per namespace: the workload classes
	for i, v := range []*View{before, after} {
		selectors[i] = map[string][]labels.Set{}
		for _, c := range v.classes(k) {
			cs.add(c.Namespace, c.Workload)
			if len(c.Workload) > 0 {
				selectors[i][c.Namespace] = append(selectors[i][c.Namespace], c.Workload)
			}
		}
	}
	// A workload one selector selects before and another after carries both selectors'
	// labels: it gets the first's view before and the second's after, which neither
	// selector's workloads alone show.
	cs.addUnions(selectors[0], selectors[1])
	classes := cs.sorted()
	out := []Change{}
	for _, c := range classes {
		var rb, ra record
		var sb, sa *causeStamps
		if differ != 0 {
			sb, sa = &causeStamps{}, &causeStamps{}
		}
		b, a := before.answers(&rb, k, c.Namespace, c.Workload, sb), after.answers(&ra, k, c.Namespace, c.Workload, sa)
		var whole release.Set // the causes of every host of the class
		if refused[rb.name] || refused[ra.name] {
			whole = release.SetOf(mesh.SidecarExclusions)
		}
		hosts := slices.Sorted(maps.Keys(b))
		for h := range a {
			if _, ok := b[h]; !ok {
				hosts = append(hosts, h)
			}
		}
		slices.Sort(hosts)
		for _, h := range hosts {
			x, y := b[h], a[h]
			if x != nil && y != nil && sameAnswer(x, y) {
				continue
			}
			ch := Change{Key: ProxyHost{Namespace: c.Namespace, Workload: c.Workload.String(), Host: h}, Before: x, After: y}
			if differ != 0 {
				ch.Causes = ((whole | sb.hosts[h] | sa.hosts[h]) & differ).Causes()
			}
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
func unionLabels(x, y map[string]string) (labels.Set, bool) {
	u := labels.Set(maps.Clone(x))
	if u == nil {
		u = labels.Set{}
	}
	for k, b := range y {
		if a, ok := u[k]; ok && a != b {
			return nil, false
		}
		u[k] = b
	}
	return u, true
}

// answers are the answers of a proxy of kind k in namespace ns with labels w, by host: what
// Proxy (Gateway) gives for each, with, for a sidecar, the virtual hosts VirtualServices
// build of it (routeTables). rec is left holding the proxy's record; cz, when not nil,
// collects which of the release's rules took part.
func (v *View) answers(rec *record, k kind, ns string, w labels.Set, cz *causeStamps) map[string]*Answer {
	v.build(rec, k, v.sidecarOf(k, ns, w), ns, w, nil, cz)
	p := v.spell(rec)
	m := make(map[string]*Answer, len(p.Services))
	for _, s := range p.Services {
		m[s.Host] = &Answer{Service: s, Rule: p.Rules[s.Host]}
	}
	if k.routed() {
		v.routeTables(rec, m)
	}
	return m
}

// routeTables adds to the answers of the proxy of rec, by host, the virtual hosts a
// VirtualService builds of each host, from the route table of every port on which a service
// the proxy gets is routed over HTTP, the ports in order.
func (v *View) routeTables(rec *record, answers map[string]*Answer) {
	if len(v.vss.vss) == 0 {
		return
	}
	var ports []uint32
	for i := range rec.got.list {
		g := &rec.got.list[i]
		ports = append(ports, portsHTTP(v.services.service(g.id), g.ports)...)
	}
	slices.Sort(ports)
	for _, p := range slices.Compact(ports) {
		t := v.routeTable(rec, p)
		if t.listener < 0 || len(rec.listeners[t.listener].vss) == 0 {
			continue // Istio's default route for every host
		}
		for _, h := range t.hosts {
			if a := answers[h.host()]; a != nil && h.vs >= 0 && h.service >= 0 {
				a.VirtualHosts = append(a.VirtualHosts, VirtualHost{Name: h.name, VirtualService: v.vsRef(h.vs)})
			}
		}
	}
}

// sameAnswer reports whether two answers for a host are alike in every field: the same
// service and ports, brought and routed alike, and the same rule.
func sameAnswer(x, y *Answer) bool {
	if !sameService(x.Service, y.Service) || x.AddedBy != y.AddedBy || !slices.Equal(x.Routes, y.Routes) || (x.Rule == nil) != (y.Rule == nil) ||
		!slices.Equal(x.VirtualHosts, y.VirtualHosts) {
		return false
	}
	return x.Rule == nil || sameRule(x.Rule, y.Rule)
}

// sameRule reports whether two rules are alike in every field, their traffic policies by
// meaning.
func sameRule(a, b *Rule) bool {
	return slices.Equal(a.From, b.From) && a.Host == b.Host && slices.Equal(a.Subsets, b.Subsets) && a.TrafficPolicyFrom == b.TrafficPolicyFrom &&
		(a.WorkloadSelector == nil) == (b.WorkloadSelector == nil) && maps.Equal(a.WorkloadSelector, b.WorkloadSelector) && sameJSON(a.TrafficPolicy, b.TrafficPolicy)
}

// sameJSON reports whether two JSON documents (nil: none) say the same: alike byte for byte,
// or decoding to equal values.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

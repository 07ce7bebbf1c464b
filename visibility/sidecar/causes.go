package sidecar

import (
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// causeStamps are what the builder records, when Diff asks, of the rules that differ between
// Istio releases: per host of a proxy's record, the causes (mesh.Cause) whose rule took part
// in deciding what the proxy gets for it. A rule takes part when what it decided for an
// object behind the host — a candidate service, a VirtualService that routes the host or
// adds it, a destination's namespace — is one that a release on the other side of the cause
// decides otherwise, in this view or in the other one of a dry run. Diff keeps, of a changed
// host's stamps in either view, the causes its two releases differ by.
//
// The stamps, rule by rule (the rule's home in parentheses):
//
//   - DefaultExportToLists, ServiceEntryVisibility (serviceReading, newVSIndex): a candidate
//     service of the host, or the VirtualService that routes it or adds it as a destination,
//     that goes by a mesh default the releases read otherwise, or that a visibility narrows
//     in one release and not in the other.
//   - ListenerOrder (builder.candidates): for a gateway, which takes the first candidate of a
//     host, the host's candidates that are not public span its own namespace and another
//     (and none is a Kubernetes Service, which wins in either order). A sidecar gets the same
//     services in either order.
//   - SidecarExclusions (egressReading): a candidate of the host, or a VirtualService of the
//     listener, that a "~ns/…" host of the listener covers read as an exclusion; and (Diff)
//     every host of a proxy to which a Sidecar applies that an older release refuses.
//   - ExactHostListeners (egressReading, builder.candidates): on a listener of exact hosts of
//     named namespaces, a host whose services in an imported namespace exported to the proxy
//     are not exactly the one istiod indexes, or whose candidates span several namespaces
//     (the two ways order them otherwise).
//   - DestinationNamespace (serviceIndex.destinationOf): a destination host the proxy's
//     namespace holds no service of, for which the first namespace and the best one differ;
//     and the causes of every service istiod indexes for that host, any of which another
//     release may export to the proxy otherwise.
type causeStamps struct {
	hosts map[string]release.Set
}

// add stamps host with the causes s.
func (c *causeStamps) add(host string, s release.Set) {
	if s == 0 {
		return
	}
	if c.hosts == nil {
		c.hosts = map[string]release.Set{}
	}
	c.hosts[host] |= s
}

// candidate stamps a candidate service id of a listener read for namespace n, imported or
// excluded (why).
func (c *causeStamps) candidate(x *serviceIndex, l *listener, n string, id int32, why refusal) {
	if why != admitted && why != excluded {
		return
	}
	s := &x.svcs[id]
	stamps := x.causesOf(id)
	if tildeCovers(l, n, x.inv[s.svc].Namespace, s.host) {
		stamps |= release.SetOf(mesh.SidecarExclusions)
	}
	c.add(s.host, stamps)
}

// exactHosts stamps, on a listener of exact hosts of named namespaces (in either release's
// reading), each imported host whose services of its namespace exported to n are not
// exactly the one istiod indexes there, and each host its imported candidates (in) bring
// from several namespaces.
func (c *causeStamps) exactHosts(x *serviceIndex, l *listener, n string, in []importedService) {
	if !exactShape(l) {
		return
	}
	for _, hc := range l.classes {
		for _, h := range hc.exact {
			o, _ := x.indexed(h, hc.ns)
			for _, id := range x.byHost[h] {
				if id != o && x.service(id).Namespace == hc.ns && x.svcs[id].exportedTo(n) {
					c.add(h, release.SetOf(mesh.ExactHostListeners))
					break
				}
			}
		}
	}
	c.spread(x, in)
}

// gatewayOrder stamps each host of a gateway of namespace n whose candidates (in) that are not
// public span n and another namespace, unless Kubernetes Services of one namespace are among
// them (the first of those wins in either order).
func (c *causeStamps) gatewayOrder(x *serviceIndex, n string, in []importedService) {
	type sides struct {
		own, other bool
		kube       string // the namespace of its Kubernetes Services; "*" for several
	}
	by := map[string]*sides{}
	for _, is := range in {
		s := &x.svcs[is.id]
		svc := &x.inv[s.svc]
		e := by[s.host]
		if e == nil {
			e = &sides{}
			by[s.host] = e
		}
		if svc.Kind == inventory.KubernetesService {
			switch e.kube {
			case "":
				e.kube = svc.Namespace
			case svc.Namespace:
			default:
				e.kube = "*"
			}
		}
		switch {
		case s.exp.Public():
		case svc.Namespace == n:
			e.own = true
		default:
			e.other = true
		}
	}
	for h, e := range by {
		if e.own && e.other && (e.kube == "" || e.kube == "*") {
			c.add(h, release.SetOf(mesh.ListenerOrder))
		}
	}
}

// spread stamps each host whose candidates in come from several namespaces: the exact-host
// lookup and the scan order them otherwise, and the first namespace of a host holds it.
func (c *causeStamps) spread(x *serviceIndex, in []importedService) {
	first := map[string]string{}
	for _, is := range in {
		s := &x.svcs[is.id]
		ns := x.inv[s.svc].Namespace
		if f, ok := first[s.host]; !ok {
			first[s.host] = ns
		} else if f != ns {
			c.add(s.host, release.SetOf(mesh.ExactHostListeners))
		}
	}
}

// virtualServices stamps, for a listener's record, the hosts each selected VirtualService
// routes and the destinations it adds, with the causes under which a release selects it
// otherwise: it goes by a mesh default the releases read otherwise, or a "~ns/…" host of
// the listener covers one of its hosts.
func (c *causeStamps) virtualServices(b *builder, lr *listenerRecord) {
	x, n := &b.v.vss, b.rec.ns
	for _, k := range lr.vss {
		r := &x.vss[k]
		var stamps release.Set
		if len(r.vs.ExportTo) == 0 && b.v.vsDefaultsDiffer {
			stamps |= release.SetOf(mesh.DefaultExportToLists)
		}
		for _, h := range r.hosts {
			if tildeCovers(lr.l, n, r.vs.Namespace, h) {
				stamps |= release.SetOf(mesh.SidecarExclusions)
				break
			}
		}
		if stamps == 0 {
			continue
		}
		for _, hp := range r.destinationPorts(n) {
			c.add(hp.host, stamps)
		}
		for _, is := range lr.imported {
			h := b.v.services.svcs[is.id].host
			if routing, _, ok := lr.routes.lookup(h); ok && routing == k {
				c.add(h, stamps)
			}
		}
	}
}

// destination stamps a destination host the proxy's namespace n holds no service of, for
// which the release picked id (found): DestinationNamespace when the other way of picking
// takes another; and the causes of every service istiod indexes for the host, any of which
// another release may export to n otherwise.
func (c *causeStamps) destination(x *serviceIndex, host, n string, best bool, id int32, found bool) {
	if o, ok, _ := x.destinationOf(host, n, !best); ok != found || o != id {
		c.add(host, release.SetOf(mesh.DestinationNamespace))
	}
	for _, o := range x.byHost[host] {
		if x.svcs[o].oldest {
			c.add(host, x.causesOf(o))
		}
	}
}

// tildeCovers reports whether an egress host "~ns/…" of listener l, read for namespace n as
// an exclusion (as 1.31 reads it, whatever the view's release), covers host h of namespace
// ns: whether SidecarExclusions decides for h.
func tildeCovers(l *listener, n, ns, h string) bool {
	for _, raw := range l.egress.Hosts {
		if raw == "" || raw[0] != '~' {
			continue
		}
		x := egressReading{exclusions: true}.parse(raw)
		if x.namespace == "." {
			x.namespace = n
		}
		if (x.namespace == ns || x.namespace == names.Wildcard) && hosts.Covers(x.host, h) {
			return true
		}
	}
	return false
}

// exactShape reports whether every import of listener l but its "~" hosts is an exact host of
// a named namespace: whether 1.31 looks its hosts up one by one (ExactHostListeners),
// whatever the view's release.
func exactShape(l *listener) bool {
	for _, raw := range l.egress.Hosts {
		if raw == "" || raw[0] == '~' {
			continue
		}
		if h := (egressReading{}).parse(raw); isWildcard(h.host) || h.namespace == names.Wildcard {
			return false
		}
	}
	return true
}

// refusedSidecars returns the Sidecars ("namespace/name") of v's inventory that release
// other refuses although v's accepts them (inventory.Inventory.ValidateFor): a proxy to
// which one applies gets another Sidecar's view under other.
func refusedSidecars(v *View, other mesh.Release) map[string]bool {
	if v.inv == nil {
		return nil
	}
	out := map[string]bool{}
	for _, r := range v.inv.ValidateFor(other) {
		if r.Kind == "Sidecar" {
			out[r.Namespace+"/"+r.Name] = true
		}
	}
	return out
}

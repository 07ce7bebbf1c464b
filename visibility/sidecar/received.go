package sidecar

import (
	"maps"
	"slices"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// received is what a proxy has for a host so far: the service it reports, its ports, and
// the DestinationRule it gets.
type received struct {
	host    string
	id      int32
	rank    int32    // the host's (viewService.rank)
	ports   []uint32 // the listener's or the inventory's until a merge adds to them (own)
	own     bool
	addedBy string      // the VirtualService whose destination brought the host; "" for an egress import
	rule    *mergedRule // the rule the proxy gets for the host (see builder.lookupRules); nil: none
}

// receivedSet is what a proxy has received, a host each, in the order the hosts came, and
// where each host is, by its rank: found by a scan of the list while it holds at most
// scanHosts hosts (most proxies', whose Sidecars import a few hosts), by a map built once it
// outgrows them.
type receivedSet struct {
	list []received
	at   map[int32]int32 // a host's rank -> its index in list, once list holds more than scanHosts
}

// scanHosts is the most hosts a receivedSet finds by scanning its list (see
// BenchmarkReceivedSet: the scan is faster than a map up to this size and allocates nothing).
const scanHosts = 8

// find returns where the host of rank is in the list.
func (g *receivedSet) find(rank int32) (int, bool) {
	if g.at != nil {
		i, ok := g.at[rank]
		return int(i), ok
	}
	for i := range g.list {
		if g.list[i].rank == rank {
			return i, true
		}
	}
	return -1, false
}

// get returns what the proxy has for the host of rank so far; nil for nothing. It stays
// valid until the next receive.
func (g *receivedSet) get(rank int32) *received {
	if i, ok := g.find(rank); ok {
		return &g.list[i]
	}
	return nil
}

// findHost returns where host is in the list of got (false: the proxy has no such host).
func (x *serviceIndex) findHost(got *receivedSet, host string) (int, bool) {
	ids := x.byHost[host]
	if len(ids) == 0 {
		return -1, false // no service has it
	}
	return got.find(x.svcs[ids[0]].rank)
}

// received returns what the proxy has for host in got; nil for nothing.
func (x *serviceIndex) received(got *receivedSet, host string) *received {
	if i, ok := x.findHost(got, host); ok {
		return &got.list[i]
	}
	return nil
}

// reserve sizes an empty set for its first n hosts, and at least for as many as it scans;
// later ones grow it.
func (g *receivedSet) reserve(n int) {
	if g.list == nil {
		g.list = make([]received, 0, max(n, scanHosts))
	}
}

// add adds a host the proxy did not have.
func (g *receivedSet) add(r received) {
	g.list = append(g.list, r)
	switch {
	case g.at != nil:
		g.at[r.rank] = int32(len(g.list) - 1)
	case len(g.list) > scanHosts:
		g.at = make(map[int32]int32, max(cap(g.list), 2*len(g.list)))
		for i := range g.list {
			g.at[g.list[i].rank] = int32(i)
		}
	}
}

// outcome is what a service a listener brings does to what the proxy has for its host.
type outcome uint8

const (
	firstOfHost outcome = iota // the proxy had nothing for the host: it gets the service
	replacing                  // a Kubernetes Service replaces the ServiceEntry the proxy has
	repeated                   // the service the proxy has: its ports join
	joining                    // another service of the namespace the proxy's can merge with: its ports join
	standing                   // what the proxy has stands, and the service adds nothing
)

// receive adds the services a listener brings (its egress imports, or a VirtualService's
// destinations: addedBy) to what the proxy has: the first service of a host stands, except
// that a Kubernetes Service replaces a ServiceEntry; a later service of the same namespace
// that can merge with it adds its ports.
func (b *builder) receive(in []importedService, addedBy string) {
	got := &b.rec.got
	got.reserve(len(in))
	for _, is := range in {
		s := &b.v.services.svcs[is.id]
		r := got.get(s.rank)
		o, had := firstOfHost, int32(-1)
		if r != nil {
			had = r.id
			o = b.v.services.outcome(r.id, is.id)
		}
		switch o {
		case firstOfHost:
			got.add(received{host: s.host, id: is.id, rank: s.rank, ports: is.ports, addedBy: addedBy})
		case replacing:
			*r = received{host: s.host, id: is.id, rank: s.rank, ports: is.ports, addedBy: addedBy}
		case repeated, joining:
			for _, p := range is.ports {
				if slices.Contains(r.ports, p) {
					continue
				}
				if !r.own {
					r.ports, r.own = slices.Clip(slices.Clone(r.ports)), true
				}
				r.ports = append(r.ports, p)
			}
		}
		if b.tr != nil && s.host == b.tr.host {
			b.tr.received(is.id, o, had)
		}
	}
}

// outcome is what service next does to a proxy that has service have for its host.
func (x *serviceIndex) outcome(have, next int32) outcome {
	cur, svc := x.service(have), x.service(next)
	switch {
	case replaces(svc, cur):
		return replacing
	case replaces(cur, svc):
		return standing
	case have == next:
		return repeated
	case canMerge(cur, svc):
		return joining
	}
	return standing
}

// canMerge reports whether Istio merges the ports of two services of one host: same
// namespace, kind, resolution, labels, selector and declared exportTo (as sets).
func canMerge(a, b *inventory.Service) bool {
	return a.Namespace == b.Namespace && a.Kind == b.Kind && resolutionOf(a) == resolutionOf(b) &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Selector, b.Selector) && sameSet(a.ExportTo, b.ExportTo)
}

// resolutionOf is a service's resolution as Istio compares it: a ServiceEntry's, absent
// meaning NONE; a Kubernetes Service's is not compared (two of one host are one Service).
func resolutionOf(s *inventory.Service) inventory.Resolution {
	if s.Kind == inventory.ServiceEntry && s.Resolution == "" {
		return inventory.ResolutionNone
	}
	return s.Resolution
}

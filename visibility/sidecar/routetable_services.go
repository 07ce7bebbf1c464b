package sidecar

// The services of the listener a route table is built from, and which of them each
// VirtualService claims.

import (
	"cmp"
	"slices"

	"github.com/meshscope/meshscope/internal/hosts"
)

// tableService is a service of the listener the route table is built from: its host, the
// service the listener holds for it (the last of its imports with the port) and the ports
// routes are built for.
type tableService struct {
	host  string
	id    int32
	ports []uint32
}

// tableServices are the services of the listener a route table is built from, in its order,
// and where each host is: through the proxy's received hosts (got), whose index slot maps to
// the host's in list.
type tableServices struct {
	list     []tableService
	x        *serviceIndex
	got      *receivedSet
	slot     []int32
	wildcard []int // the indexes in list of wildcard hosts
	// order holds the indexes of list by the listener's Routes answer for their host (answer,
	// -1 for none), and covered whether a wildcard host matches one of them: worked out for
	// the wildcard hosts of users' VirtualServices (see separate), once — so that the cost
	// is not the wildcard hosts times the services (BenchmarkRouteTableRoutedWildcard40k).
	order   []int32
	answer  []int32
	covered []wildcardCover
}

// index returns where host is in list.
func (ts *tableServices) index(host string) (int, bool) {
	gi, ok := ts.x.findHost(ts.got, host)
	if !ok || ts.slot[gi] < 0 {
		return -1, false
	}
	return int(ts.slot[gi]), true
}

// wildcardCover is whether a wildcard host matches a service of a route table.
type wildcardCover struct {
	host  string
	found bool
}

// answered returns the services of the table whose host's Routes answer on listener lr is
// VirtualService k, in the table's order.
func (ts *tableServices) answered(lr *listenerRecord, k int32) []int32 {
	if ts.order == nil {
		ts.answer, ts.order = make([]int32, len(ts.list)), make([]int32, len(ts.list))
		for i := range ts.list {
			ts.answer[i], ts.order[i] = -1, int32(i)
			if best, _, ok := lr.routes.lookup(ts.list[i].host); ok {
				ts.answer[i] = best
			}
		}
		slices.SortStableFunc(ts.order, func(a, b int32) int { return cmp.Compare(ts.answer[a], ts.answer[b]) })
	}
	lo, _ := slices.BinarySearchFunc(ts.order, k, func(i, k int32) int { return cmp.Compare(ts.answer[i], k) })
	hi := lo
	for hi < len(ts.order) && ts.answer[ts.order[hi]] == k {
		hi++
	}
	return ts.order[lo:hi]
}

// matchesAny reports whether wildcard host h matches (either way) a service of the table.
func (ts *tableServices) matchesAny(h string) bool {
	if i := slices.IndexFunc(ts.covered, func(c wildcardCover) bool { return c.host == h }); i >= 0 {
		return ts.covered[i].found
	}
	found := slices.ContainsFunc(ts.list, func(s tableService) bool { return hosts.Matches(s.host, h) })
	ts.covered = append(ts.covered, wildcardCover{h, found})
	return found
}

// tableServices returns the services of listener lr of the proxy of rec routes are built for
// on port (0: every port), in the listener's order, each host once: the last of the
// listener's imports of the host that has the port (all of them for port 0, with all their
// ports).
func (v *View) tableServices(rec *record, lr *listenerRecord, port uint32) tableServices {
	x := &v.services
	ts := tableServices{list: make([]tableService, 0, len(lr.imported)), x: x, got: &rec.got, slot: make([]int32, len(rec.got.list))}
	for i := range ts.slot {
		ts.slot[i] = -1
	}
	one := []uint32{port}
	for _, is := range lr.imported {
		ports := is.ports
		if port != 0 {
			if !slices.Contains(is.ports, port) {
				continue
			}
			ports = one
		}
		host := x.svcs[is.id].host
		gi, _ := rec.got.find(x.svcs[is.id].rank) // every import reached what the proxy has
		if i := ts.slot[gi]; i >= 0 {
			ts.list[i].id, ts.list[i].ports = is.id, ports
			continue
		}
		ts.slot[gi] = int32(len(ts.list))
		if isWildcard(host) {
			ts.wildcard = append(ts.wildcard, len(ts.list))
		}
		ts.list = append(ts.list, tableService{host: host, id: is.id, ports: ports})
	}
	return ts
}

// matchesService reports whether a host of VirtualService r matches a service of the
// listener routes are built for (Istio's host.Name.Matches, either way).
func (v *View) matchesService(r *virtualService, ts *tableServices) bool {
	for _, h := range r.hosts {
		if _, ok := ts.index(h); ok {
			return true
		}
		candidates := ts.wildcard
		if isWildcard(h) {
			for i := range ts.list {
				if hosts.Matches(h, ts.list[i].host) {
					return true
				}
			}
			continue
		}
		for _, i := range candidates {
			if hosts.Matches(h, ts.list[i].host) {
				return true
			}
		}
	}
	return false
}

// the service of that host; a wildcard host of a user's VirtualService claims the services it
// covers (either way) of which r is the listener's Routes answer, and is a host of its own
// when it covers none; a wildcard host of one made from routes claims nothing.
func (v *View) separate(r *virtualService, k int32, lr *listenerRecord, ts *tableServices) (nonService []string, matching []int) {
	for _, h := range r.hosts {
		if isWildcard(h) {
			continue
		}
		if i, ok := ts.index(h); ok {
			matching = append(matching, i)
		} else {
			nonService = append(nonService, h)
		}
	}
	for _, h := range r.hosts {
		if !isWildcard(h) {
			continue
		}
		if r.converted() {
			nonService = append(nonService, h)
			continue
		}
		if !ts.matchesAny(h) {
			nonService = append(nonService, h)
			continue
		}
		for _, i := range ts.answered(lr, k) {
			if hosts.Matches(ts.list[i].host, h) {
				matching = append(matching, int(i))
			}
		}
	}
	return nonService, matching
}

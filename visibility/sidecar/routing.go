package sidecar

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
)

// routeIndex is the hosts of a listener's VirtualServices, each with every VirtualService
// that gives it, in Istio's order: exact hosts sorted, wildcards most specific (longest)
// first. The first VirtualService of a host routes it; the others it outranks.
type routeIndex struct {
	exact, wild []routeHost
}

type routeHost struct {
	host string
	vs   int32
	next int32 // in wild: the index of the next wildcard that is another host
}

// routesOf indexes the hosts of VirtualServices vss, in Istio's order.
func (x *vsIndex) routesOf(vss []int32) routeIndex {
	n, wild := 0, 0
	for _, k := range vss {
		n += len(x.vss[k].hosts)
		for _, h := range x.vss[k].hosts {
			wild += b2i(isWildcard(h))
		}
	}
	all := make([]routeHost, 0, n)
	ix := routeIndex{exact: all[: 0 : n-wild], wild: all[n-wild : n-wild]}
	for _, k := range vss {
		for _, h := range x.vss[k].hosts {
			if isWildcard(h) {
				ix.wild = append(ix.wild, routeHost{host: h, vs: k})
			} else {
				ix.exact = append(ix.exact, routeHost{host: h, vs: k})
			}
		}
	}
	// Stable sorts keep a host's VirtualServices in Istio's order.
	slices.SortStableFunc(ix.exact, func(a, b routeHost) int { return strings.Compare(a.host, b.host) })
	slices.SortStableFunc(ix.wild, func(a, b routeHost) int {
		return cmp.Or(cmp.Compare(len(b.host), len(a.host)), strings.Compare(a.host, b.host))
	})
	for i := len(ix.wild) - 1; i >= 0; i-- {
		ix.wild[i].next = int32(i + 1)
		if i+1 < len(ix.wild) && ix.wild[i+1].host == ix.wild[i].host {
			ix.wild[i].next = ix.wild[i+1].next
		}
	}
	return ix
}

// lookup returns the VirtualService that routes a service host, and its host that matches
// it: the one whose host matches it most specifically — an exact host equal to it, else the
// longest wildcard covering it — the first in Istio's order among those giving that host;
// ok is false when none does.
func (ix *routeIndex) lookup(host string) (int32, string, bool) {
	if !isWildcard(host) {
		if i, ok := slices.BinarySearchFunc(ix.exact, host, compareRouteHost); ok {
			return ix.exact[i].vs, host, true
		}
	}
	for i := 0; i < len(ix.wild); i = int(ix.wild[i].next) {
		if w := &ix.wild[i]; hosts.Covers(w.host, host) {
			return w.vs, w.host, true
		}
	}
	return -1, "", false
}

func compareRouteHost(r routeHost, h string) int { return strings.Compare(r.host, h) }

// claims yields, most specific first, every host of the listener's VirtualServices that
// matches a service host with the VirtualService giving it, in Istio's order among those
// giving one host: the first routes the host (lookup, which skips the others).
func (ix *routeIndex) claims(host string) iter.Seq[routeHost] {
	return func(yield func(routeHost) bool) {
		if !isWildcard(host) {
			i, _ := slices.BinarySearchFunc(ix.exact, host, compareRouteHost)
			for ; i < len(ix.exact) && ix.exact[i].host == host; i++ {
				if !yield(ix.exact[i]) {
					return
				}
			}
		}
		for _, w := range ix.wild {
			if hosts.Covers(w.host, host) && !yield(w) {
				return
			}
		}
	}
}

// mostSpecificOf returns, of the rule hosts hs, the one that covers the service host most
// specifically (an exact host equal to it, else the longest wildcard covering it); ok is
// false when none covers it.
func mostSpecificOf(hs iter.Seq[string], host string) (best string, ok bool) {
	for h := range hs {
		if hosts.Covers(h, host) && (!ok || hosts.MoreSpecific(h, best)) {
			best, ok = h, true
		}
	}
	return best, ok
}

package sidecar

import (
	"fmt"
	"maps"
	"slices"
)

// The literal reference's gateways (View.Gateway): what a gateway gets, and where a sidecar
// of its namespace scoped first changes it.

// gateway is what a gateway in n gets: every service exported to n, in the order the release
// lists them (refExportedTo), the first of a host standing (a Kubernetes Service displacing a
// ServiceEntry, services of one namespace merging their ports); and, where a sidecar of n
// may be scoped first, a note when that changes what it gets.
func (v refSidecarView) gateway(n string, workload map[string]string) Proxy {
	var scope refScope
	for _, x := range refExportedTo(v.services(), n, v.rel()) {
		scope.add(refGot{x, x.s.Ports}, "")
	}
	out := Proxy{Services: []Service{}, Listeners: []Listener{}, Rules: map[string]*Rule{}}
	pools := v.pools()
	for _, h := range slices.Sorted(maps.Keys(scope.have)) {
		g := scope.have[h]
		out.Services = append(out.Services, Service{Host: h, Kind: g.x.s.Kind, Namespace: g.x.s.Namespace, Name: g.x.s.Name, Ports: refSortedPorts(g.ports)})
		if r := v.ruleFor(pools, n, workload, g.x); r != nil {
			out.Rules[h] = r
		}
	}
	return out
}

// gatewayMayTakeSidecarScope: istiod hands a gateway of n the default sidecar scope of n when a
// sidecar of n was scoped first with no Sidecar applying to it: there is no mesh-wide default
// Sidecar, and some workload of n is selected by none of n's Sidecars.
func (v refSidecarView) gatewayMayTakeSidecarScope(n string) bool {
	for _, sc := range v.inv.Sidecars {
		if !v.discovered(sc.Namespace) {
			continue
		}
		if sc.Namespace == v.root() && sc.WorkloadSelector == nil {
			return false
		}
		if sc.Namespace == n && len(sc.WorkloadSelector) == 0 {
			return false
		}
	}
	return true
}

// gatewayDiffers lists the hosts a gateway in n gets otherwise when it takes the default
// sidecar scope of n: another service, other ports, or none on either side.
func (v refSidecarView) gatewayDiffers(n string, gw Proxy) []string {
	if !v.gatewayMayTakeSidecarScope(n) {
		return nil
	}
	sc := v.sidecarProxy(nil, n, nil)
	key := func(s Service) string { return fmt.Sprint(s.Kind, s.Namespace, s.Name, s.Ports) }
	a, b := map[string]string{}, map[string]string{}
	for _, s := range gw.Services {
		a[s.Host] = key(s)
	}
	for _, s := range sc.Services {
		b[s.Host] = key(s)
	}
	var hosts []string
	for h := range a {
		if b[h] != a[h] {
			hosts = append(hosts, h)
		}
	}
	for h := range b {
		if _, ok := a[h]; !ok {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	return hosts
}

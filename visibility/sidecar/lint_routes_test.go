package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestRoutingLint has a row per finding of VirtualServices and DestinationRules, each
// judged by what the proxies actually get.
func TestRoutingLint(t *testing.T) {
	nss := map[string]map[string]string{"shop": nil, "ext": nil, "ops": nil}
	reviews := inventory.Service{Kind: inventory.KubernetesService, Namespace: "shop", Name: "reviews", Hosts: []string{"reviews.shop.svc.cluster.local"}, Ports: []uint32{9080}, CreationTime: t0}
	vs := func(ns, name string, hosts []string, dests ...inventory.Destination) inventory.VirtualService {
		return inventory.VirtualService{Namespace: ns, Name: name, CreationTime: t0, Hosts: hosts, HTTP: []inventory.HTTPRoute{{Route: dests}}}
	}
	dr := func(ns, name, host string, sel map[string]string, exportTo []string, subsets ...string) inventory.DestinationRule {
		r := inventory.DestinationRule{Namespace: ns, Name: name, CreationTime: t0, Host: host, WorkloadSelector: sel, ExportTo: exportTo}
		for _, s := range subsets {
			r.Subsets = append(r.Subsets, inventory.Subset{Name: s})
		}
		return r
	}
	const host = "reviews.shop.svc.cluster.local"
	for _, tc := range []struct {
		name  string
		vss   []inventory.VirtualService
		rules []inventory.DestinationRule
		want  []Finding
	}{
		{"a route to a subset no rule defines", []inventory.VirtualService{vs("shop", "r", []string{"reviews"}, inventory.Destination{Host: "reviews", Subset: "v2"})}, nil,
			[]Finding{report.New("VirtualService shop/r", RouteSubsetMissing, "routes to subset v2 of reviews.shop.svc.cluster.local, but these proxies get no DestinationRule for reviews.shop.svc.cluster.local: requests routed there fail (for the proxies of ext; ops; shop)")}},
		{"a route to a subset the rule a class gets lacks, though another class's rule has it",
			[]inventory.VirtualService{vs("shop", "r", []string{"reviews"}, inventory.Destination{Host: "reviews", Subset: "v2"})},
			[]inventory.DestinationRule{dr("shop", "all", host, nil, nil, "v1", "v2"), dr("shop", "canary", host, map[string]string{"track": "canary"}, nil, "v1")},
			[]Finding{report.New("VirtualService shop/r", RouteSubsetMissing, "routes to subset v2 of reviews.shop.svc.cluster.local, but the DestinationRule these proxies get for it (shop/canary) has subsets [v1]: requests routed there fail (for the proxies of shop with track=canary)")}},
		{"two VirtualServices giving one host", []inventory.VirtualService{vs("shop", "a", []string{host}, inventory.Destination{Host: host}), vs("shop", "b", []string{host}, inventory.Destination{Host: host})}, nil,
			[]Finding{report.New("VirtualService shop/b", HostRoutedTwice, "gives host reviews.shop.svc.cluster.local, as shop/a does, which comes first in Istio's order and routes reviews.shop.svc.cluster.local: this one's routes for it are never used (for the proxies of ext; ops; shop)")}},
		{"a rule exported beyond its namespace that no one else reaches", nil, []inventory.DestinationRule{dr("ops", "reviews", host, nil, []string{"shop", "ext"}, "v1")},
			[]Finding{report.New("DestinationRule ops/reviews", RuleOutOfReach, `exported to ["shop" "ext"], but a rule applies only from the proxy's namespace, the service's namespace and the root namespace istio-system, and no service of reviews.shop.svc.cluster.local is in ops: no proxy of another namespace gets it`)}},
		{"a catch-all merged into a workload-selected rule", nil,
			[]inventory.DestinationRule{dr("shop", "canary", host, map[string]string{"track": "canary"}, nil, "canary"), dr("shop", "all", host, nil, []string{"."}, "v1")},
			[]Finding{report.New("DestinationRule shop/all", CatchAllRuleMerged, "it has no workloadSelector, but istiod merges it into shop/canary, an earlier workload-selected rule of shop for reviews.shop.svc.cluster.local with the same exportTo: only workloads with track=canary get its subsets and policy, and the namespace's other workloads get no rule for reviews.shop.svc.cluster.local from it")}},
		{"short hosts", []inventory.VirtualService{vs("ext", "r", []string{"reviews.shop"}, inventory.Destination{Host: "reviews.shop.svc"})}, nil,
			[]Finding{
				report.New("VirtualService ext/r", ShortHostNeverMatches, `destination host "reviews.shop.svc" is kept as written (Istio expands only names without a dot): it never matches reviews.shop.svc.cluster.local`),
				report.New("VirtualService ext/r", ShortHostNeverMatches, `host "reviews.shop" is kept as written (Istio expands only names without a dot): it never matches reviews.shop.svc.cluster.local`),
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(nil, &inventory.Inventory{Namespaces: nss, Services: []inventory.Service{reviews}, VirtualServices: tc.vss, DestinationRules: tc.rules})
			require.NoError(t, err)
			assert.Equal(t, tc.want, v.Lint())
		})
	}
}

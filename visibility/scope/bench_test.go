package scope

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// benchMesh has n GLOBAL configs, each for one team's services in prod or stage, and
// settings settings, each marking one namespace's hosts cluster-local; a service of the
// last team walks every config, and a host of no marked namespace every wildcard length.
func benchMesh(n, settings int) *mesh.Config {
	m := &mesh.Config{}
	for i := range n {
		m.ServiceScopeConfigs = append(m.ServiceScopeConfigs, mesh.ServiceScope{
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "stage"}}}},
			ServicesSelector: istiotest.LabelSelector("team", fmt.Sprintf("t%d", i)),
			Scope:            mesh.Global,
		})
	}
	for i := range settings {
		m.ServiceSettings = append(m.ServiceSettings, setting(i%2 == 0, fmt.Sprintf("*.%sns%d.svc.cluster.local", strings.Repeat("x", i%40), i)))
	}
	return m
}

var scopeSink mesh.Scope

func BenchmarkScope100Configs(b *testing.B) {
	s := mustNew(b, benchMesh(100, 10), nil)
	ns, svc := labels.Set{"env": "prod"}, labels.Set{"team": "t99"}
	b.ReportAllocs()
	for b.Loop() {
		scopeSink = s.Scope(ns, svc, "web.shop.svc.cluster.local")
	}
	if scopeSink != mesh.Global {
		b.Fatal(scopeSink)
	}
}

// BenchmarkScope100ConfigsConvertEachCall is the baseline: convert every selector with
// metav1.LabelSelectorAsSelector on each call, as code that keeps only the raw
// configuration does (cluster-locality from the compiled patterns, as Scope).
func BenchmarkScope100ConfigsConvertEachCall(b *testing.B) {
	m := benchMesh(100, 10)
	s := mustNew(b, m, nil)
	ns, svc := labels.Set{"env": "prod"}, labels.Set{"team": "t99"}
	b.ReportAllocs()
	for b.Loop() {
		scopeSink = mesh.Local
		for _, c := range m.ServiceScopeConfigs {
			if c.Scope == mesh.Global && refSelector(b, c.NamespaceSelector).Matches(ns) && refSelector(b, c.ServicesSelector).Matches(svc) {
				if p, ok := s.local.match("web.shop.svc.cluster.local"); !ok || !p.local {
					scopeSink = mesh.Global
				}
				break
			}
		}
	}
	if scopeSink != mesh.Global {
		b.Fatal(scopeSink)
	}
}

var localSink bool

func BenchmarkClusterLocal1000Settings(b *testing.B) {
	s := mustNew(b, benchMesh(0, 1000), nil)
	b.ReportAllocs()
	for b.Loop() {
		p, ok := s.local.match("web.shop.svc.cluster.local")
		localSink = ok && p.local
	}
	if localSink {
		b.Fatal("cluster-local")
	}
}

// BenchmarkClusterLocal1000SettingsScanEachCall is the baseline: the same patterns, compiled
// once, but every wildcard tried on each call for the longest match, rather than only the
// suffixes of the host as long as some wildcard.
func BenchmarkClusterLocal1000SettingsScanEachCall(b *testing.B) {
	s := mustNew(b, benchMesh(0, 1000), nil)
	host := "web.shop.svc.cluster.local"
	b.ReportAllocs()
	for b.Loop() {
		localSink = false
		if p, ok := s.local.specific[host]; ok {
			localSink = p.local
			continue
		}
		best := -1
		for suffix, p := range s.local.wildcard {
			if len(suffix) > best && strings.HasSuffix(host, suffix) {
				best, localSink = len(suffix), p.local
			}
		}
	}
	if localSink {
		b.Fatal("cluster-local")
	}
}

// benchInventory has n Kubernetes Services across 100 namespaces, half of them in prod,
// each service of one of 100 teams.
func benchInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{}}
	for i := range 100 {
		inv.Namespaces[fmt.Sprintf("ns%d", i)] = map[string]string{"env": []string{"prod", "dev"}[i%2]}
	}
	for i := range n {
		inv.Services = append(inv.Services, inventory.Service{Kind: inventory.KubernetesService, Namespace: fmt.Sprintf("ns%d", i%100),
			Name: fmt.Sprintf("svc%d", i), Labels: map[string]string{"team": fmt.Sprintf("t%d", i%100)}})
	}
	return inv
}

var (
	scoperSink *Scoper
	diffSink   []Change
)

// BenchmarkNew100kServices builds a Scoper of 100 configs over 10^5 services: the scope
// of every service, decided once.
func BenchmarkNew100kServices(b *testing.B) {
	m, inv := benchMesh(100, 10), benchInventory(100_000)
	b.ReportAllocs()
	for b.Loop() {
		scoperSink = mustNew(b, m, inv)
	}
}

// diffScopers are the scopes of 10^5 services under two configurations, the second with
// one team made LOCAL: a change for each of its 1000 services in prod.
func diffScopers(b *testing.B) (before, after *Scoper) {
	inv := benchInventory(100_000)
	m := benchMesh(100, 10)
	before = mustNew(b, m, inv)
	m.ServiceScopeConfigs[8].Scope = mesh.Local
	return before, mustNew(b, m, inv)
}

// benchDiff times diff and checks its answer: a change for each of the 1000 services whose
// scope diffScopers' two configurations differ on.
func benchDiff(b *testing.B, diff func() []Change) {
	b.ReportAllocs()
	for b.Loop() {
		diffSink = diff()
	}
	if len(diffSink) != 1000 {
		b.Fatal(len(diffSink))
	}
}

// BenchmarkDiff100kServices compares the scopes of 10^5 services under two configurations
// (diffScopers).
func BenchmarkDiff100kServices(b *testing.B) {
	before, after := diffScopers(b)
	benchDiff(b, func() []Change { return Diff(before, after) })
}

// BenchmarkDiff100kServicesByMap is the baseline: both sides' services in maps by name,
// compared over the sorted union of their names.
func BenchmarkDiff100kServicesByMap(b *testing.B) {
	before, after := diffScopers(b)
	beforeServices, afterServices := before.Services(), after.Services()
	benchDiff(b, func() []Change { return refDiff(beforeServices, afterServices) })
}

// TestScopeDoesNotAllocate: Scope allocates nothing, whether a config matches or not and
// whatever pattern decides.
func TestScopeDoesNotAllocate(t *testing.T) {
	m := benchMesh(100, 10)
	m.ServiceSettings = append(m.ServiceSettings, setting(true, "web.shop.svc.cluster.local"), setting(false, "*-canary.shop.svc.cluster.local"))
	s := mustNew(t, m, nil)
	ns := labels.Set{"env": "prod"}
	for _, host := range []string{"web.shop.svc.cluster.local", "db.shop.svc.cluster.local", "web-canary.shop.svc.cluster.local",
		"kube-dns.kube-system.svc.cluster.local", "*.x0ns0.svc.cluster.local", "api.example.com"} {
		for _, svc := range []labels.Labels{labels.Set{"team": "t99"}, labels.Set{"team": "none"}, nil} {
			if allocs, _ := growth.Allocated(func() { scopeSink = s.Scope(ns, svc, host) }); allocs > 0 {
				t.Errorf("Scope(%v, %s) allocates %v times", svc, host, allocs)
			}
		}
	}
}

// TestNewAndDiffGrowLinearly: New and Diff over 4n services allocate about four times
// what they do over n.
func TestNewAndDiffGrowLinearly(t *testing.T) {
	m := benchMesh(10, 10)
	work := func(n int) float64 {
		inv := benchInventory(n)
		allocs, _ := growth.Allocated(func() { diffSink = Diff(mustNew(t, m, inv), mustNew(t, nil, inv)) })
		return allocs
	}
	small, large := work(500), work(2000)
	if large > 5*small {
		t.Errorf("New and Diff over 500 services allocate %v times, over 2,000 %v times: more than linear", small, large)
	}
}

package scope

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// The reference: a slow, literal reading of the rules of the package documentation, from
// the raw mesh configuration on every call. The Scoper is checked against it on random
// inputs, and the benchmarks use it as their baseline.

// refScope returns the scope of a service and whether its host is cluster-local.
func refScope(t testing.TB, m *mesh.Config, domain string, ns, svc labels.Labels, host string) (mesh.Scope, bool) {
	local := refClusterLocal(m, domain, host)
	if m == nil || ns == nil {
		return mesh.Local, local
	}
	if set, ok := ns.(labels.Set); ok && set == nil {
		return mesh.Local, local // a namespace that is not known
	}
	if svc == nil {
		svc = labels.Set{}
	}
	global := false
	for _, c := range m.ServiceScopeConfigs {
		if c.Scope != mesh.Global {
			continue
		}
		if refSelector(t, c.NamespaceSelector).Matches(ns) && refSelector(t, c.ServicesSelector).Matches(svc) {
			global = true
		}
	}
	if global && !local {
		return mesh.Global, local
	}
	return mesh.Local, local
}

func refSelector(t testing.TB, ls *metav1.LabelSelector) labels.Selector {
	if ls == nil {
		return labels.Everything()
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// refClusterLocal reports whether host is cluster-local: Istio's defaults, each dropped by a
// clusterLocal: false host equal to it (or, for a wildcard default, ending with what follows
// its "*"); the settings in order, a later one of a pattern replacing an earlier one; the
// defaults kept, over a setting of their pattern; then the exact pattern, else the longest
// matching wildcard, decides.
func refClusterLocal(m *mesh.Config, domain, host string) bool {
	discovery, _, _ := net.SplitHostPort(m.Discovery())
	if !strings.HasSuffix(discovery, domain) {
		discovery += "." + domain
	}
	defaults := []string{"*.kube-system.svc." + domain, "kubernetes.default.svc." + domain, discovery}
	dropped := make([]bool, len(defaults))
	patterns := map[string]bool{}
	var settings []mesh.ServiceSetting
	if m != nil {
		settings = m.ServiceSettings
	}
	for _, st := range settings {
		for _, h := range st.Hosts {
			for k, d := range defaults {
				if !st.Settings.ClusterLocal && (h == d || strings.HasPrefix(d, "*") && strings.HasSuffix(h, d[1:])) {
					dropped[k] = true
				}
			}
		}
		for _, h := range st.Hosts {
			patterns[h] = st.Settings.ClusterLocal
		}
	}
	for k, d := range defaults {
		if !dropped[k] {
			patterns[d] = true
		}
	}
	best, found := "", false
	for p := range patterns {
		switch {
		case !strings.HasPrefix(p, "*"):
			if p == host {
				return patterns[p]
			}
		case strings.HasSuffix(strings.TrimPrefix(host, "*"), p[1:]) && (!found || len(p) > len(best)):
			best, found = p, true
		}
	}
	return found && patterns[best]
}

// refServices is Services, read literally.
func refServices(t testing.TB, m *mesh.Config, inv *inventory.Inventory) []Scoped {
	var out []Scoped
	for _, s := range inv.Services {
		if s.Kind != inventory.KubernetesService {
			continue
		}
		var ns labels.Labels
		if l, ok := inv.Namespaces[s.Namespace]; ok {
			ns = labels.Set(l)
			if l == nil {
				ns = labels.Set{}
			}
		}
		host := s.Name + "." + s.Namespace + ".svc." + inv.ClusterDomain()
		scope, _ := refScope(t, m, inv.ClusterDomain(), ns, labels.Set(s.Labels), host)
		out = append(out, Scoped{Service: s.Ref(), Host: host, Scope: scope})
	}
	slices.SortFunc(out, func(a, b Scoped) int {
		return cmp.Or(strings.Compare(a.Service.Namespace, b.Service.Namespace), strings.Compare(a.Service.Name, b.Service.Name))
	})
	return out
}

// refDiff is Diff, read literally: every service of either side, by namespace and name.
func refDiff(before, after []Scoped) []Change {
	b, a := map[inventory.ServiceRef]mesh.Scope{}, map[inventory.ServiceRef]mesh.Scope{}
	for _, s := range before {
		b[s.Service] = s.Scope
	}
	for _, s := range after {
		a[s.Service] = s.Scope
	}
	either := maps.Clone(b)
	maps.Copy(either, a)
	var out []Change
	for _, r := range slices.SortedFunc(maps.Keys(either), compareRefs) {
		if b[r] != a[r] {
			out = append(out, Change{Key: r, Before: b[r], After: a[r]})
		}
	}
	return out
}

// The random inputs.
var (
	propKeys   = []string{"team", "env", "shared", "app"}
	propValues = []string{"a", "b", "prod", "true"}
	propHosts  = []string{
		"*.kube-system.svc.cluster.local", "kubernetes.default.svc.cluster.local", "istiod.istio-system.svc.cluster.local",
		"metrics.kube-system.svc.cluster.local", "kube-system.svc.cluster.local", "a.kube-system.svc.cluster.local",
		"*.svc.cluster.local", "*.cluster.local", "*", "*.default.svc.cluster.local", "x.kubernetes.default.svc.cluster.local",
		"web.shop.svc.cluster.local", "*.shop.svc.cluster.local", "*-canary.shop.svc.cluster.local", "*b.shop.svc.cluster.local",
		"Web.shop.svc.cluster.local", "web.shop.svc.cluster.local.", "Kubernetes.default.svc.cluster.local",
		"*.kube-system.svc.corp.internal", "kube-dns.kube-system.svc.corp.internal", "web.shop.svc.corp.internal", "*.corp.internal",
		"istiod-canary.istio-system.svc.cluster.local", "istiod.mycluster.local",
	}
	propQueries = append(slices.Clone(propHosts), "kube-dns.kube-system.svc.cluster.local", "db.default.svc.cluster.local",
		"web-canary.shop.svc.cluster.local", "shop.svc.cluster.local", "istiod.istio-system.svc.corp.internal",
		"kubernetes.default.svc.corp.internal", "10.0.0.1.cluster.local", "api.example.com")
	propDiscovery = []string{"", "", "istiod-canary.istio-system.svc:15012", "istiod.istio-system.svc.cluster.local:15012",
		"istiod.mycluster.local:15012", "10.0.0.1:15012", "Istiod.istio-system.svc:15012"}
	propNamespaces = []string{"shop", "kube-system", "default", "istio-system", "ghost"}
)

func randomLabels(r *rand.Rand) map[string]string {
	return istiotest.LabelsOver(r, propKeys, propValues)
}

// randomSelector returns a random scope selector: absent one time in four (it matches
// everything), empty one in four, else one over the scope's alphabet.
func randomSelector(r *rand.Rand) *metav1.LabelSelector {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return &metav1.LabelSelector{}
	}
	return istiotest.SelectorOver(r, propKeys, propValues)
}

func randomMesh(r *rand.Rand) *mesh.Config {
	if r.IntN(10) == 0 {
		return nil
	}
	m := &mesh.Config{DefaultConfig: mesh.ProxyConfig{DiscoveryAddress: propDiscovery[r.IntN(len(propDiscovery))]}}
	for range r.IntN(4) {
		m.ServiceScopeConfigs = append(m.ServiceScopeConfigs, mesh.ServiceScope{NamespaceSelector: randomSelector(r), ServicesSelector: randomSelector(r),
			Scope: []mesh.Scope{"", mesh.Local, mesh.Global, mesh.Global}[r.IntN(4)]})
	}
	for range r.IntN(5) {
		st := mesh.ServiceSetting{Settings: mesh.ServiceSettingValues{ClusterLocal: r.IntN(2) == 0}}
		for range 1 + r.IntN(2) {
			st.Hosts = append(st.Hosts, propHosts[r.IntN(len(propHosts))])
		}
		m.ServiceSettings = append(m.ServiceSettings, st)
	}
	return m
}

func randomInventory(r *rand.Rand) *inventory.Inventory {
	inv := &inventory.Inventory{Domain: []string{"", "cluster.local", "corp.internal"}[r.IntN(3)], Namespaces: map[string]map[string]string{}}
	for _, ns := range propNamespaces[:4] {
		switch r.IntN(4) {
		case 0: // not known
		case 1:
			inv.Namespaces[ns] = nil
		default:
			inv.Namespaces[ns] = randomLabels(r)
		}
	}
	for i := range r.IntN(12) {
		ns := propNamespaces[r.IntN(len(propNamespaces))]
		name := []string{"web", "kube-dns", "kubernetes", "istiod", "istiod-canary", "db"}[r.IntN(6)]
		if r.IntN(3) == 0 {
			inv.Services = append(inv.Services, se(ns, fmt.Sprintf("se%d", i), "api.example.com"))
			continue
		}
		if slices.ContainsFunc(inv.Services, func(s inventory.Service) bool {
			return s.Kind == inventory.KubernetesService && s.Namespace == ns && s.Name == name
		}) {
			continue
		}
		inv.Services = append(inv.Services, inventory.Service{Kind: inventory.KubernetesService, Namespace: ns, Name: name, Labels: randomLabels(r)})
	}
	return inv
}

func randomNamespaceLabels(r *rand.Rand) labels.Labels {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		return labels.Set(nil)
	case 2:
		return labels.Set{}
	}
	return labels.Set(randomLabels(r))
}

// checkAgainstReference holds every answer of the Scoper of m over inv to the reference.
func checkAgainstReference(t *testing.T, r *rand.Rand, m *mesh.Config, inv *inventory.Inventory) {
	t.Helper()
	s := mustNew(t, m, inv)
	for range 20 {
		ns, svc, host := randomNamespaceLabels(r), labels.Set(randomLabels(r)), propQueries[r.IntN(len(propQueries))]
		want, local := refScope(t, m, inv.ClusterDomain(), ns, svc, host)
		e := s.Explain(ns, svc, host)
		if got := s.Scope(ns, svc, host); got != want || e.Scope != want || e.ClusterLocal != local {
			t.Fatalf("mesh %s, domain %s, namespace %v, service %v, host %s: Scope %s, Explain %s (cluster-local %t: %s); the reference says %s (cluster-local %t)",
				mustJSON(t, m), inv.ClusterDomain(), ns, svc, host, got, e.Scope, e.ClusterLocal, e.Reason, want, local)
		}
	}
	if got, want := withoutReasons(s.Services()), refServices(t, m, inv); !slices.Equal(got, want) {
		t.Fatalf("mesh %s, inventory %s: Services %v; the reference says %v", mustJSON(t, m), mustJSON(t, inv), got, want)
	}
}

// TestAgainstReference holds the Scoper — Scope, Explain, Services and Diff — to the
// reference on random mesh configurations, inventories and questions.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	for range longtest.N(400, 20000) {
		m, inv := randomMesh(r), randomInventory(r)
		checkAgainstReference(t, r, m, inv)

		m2, inv2 := randomMesh(r), inv
		if r.IntN(2) == 0 {
			inv2 = randomInventory(r)
		}
		if got, want := Diff(mustNew(t, m, inv), mustNew(t, m2, inv2)), refDiff(refServices(t, m, inv), refServices(t, m2, inv2)); !reflect.DeepEqual(got, want) {
			t.Fatalf("Diff %v; the reference says %v", got, want)
		}
	}
}

// withoutReasons is the services without their reasons, which the reference does not give
// (Explain's are held to the reference's elsewhere).
func withoutReasons(in []Scoped) []Scoped {
	out := slices.Clone(in)
	for i := range out {
		out[i].Reason = ""
	}
	return out
}

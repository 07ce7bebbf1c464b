package sidecar

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

func TestDiff(t *testing.T) {
	nss := map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop", "team": "a"}, "ext": {visibility.NamespaceNameLabel: "ext"}}
	svcs := []inventory.Service{
		{Kind: inventory.ServiceEntry, Namespace: "ext", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{443}, CreationTime: t0},
		{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{80}, CreationTime: t0, ExportTo: []string{"."}},
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Ports: []uint32{8080}},
	}
	view := func(m *mesh.Config, scs ...inventory.Sidecar) *View {
		v, err := New(m, &inventory.Inventory{Namespaces: nss, Services: svcs, Sidecars: scs})
		require.NoError(t, err)
		return v
	}
	cur := view(nil)
	assert.Empty(t, Diff(cur, cur), "no change, no difference")
	assert.Empty(t, Diff(nil, nil), "nil views are empty ones")
	fromNothing := Diff(nil, cur)
	for _, c := range fromNothing {
		assert.Nil(t, c.Before, "from no view, everything is gained: %v", c.Key)
	}
	assert.Len(t, Diff(cur, nil), len(fromNothing), "and to none, everything is lost")
	assert.NotEmpty(t, fromNothing)

	// shop's web workloads get a Sidecar importing only ext's hosts.
	web := inventory.Sidecar{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"}, Egress: []inventory.Egress{{Hosts: []string{"ext/*"}}}}
	shopAPI := &Answer{Service: Service{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Ports: []uint32{80}}}
	extAPI := &Answer{Service: Service{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "ext", Name: "api", Ports: []uint32{443}}}
	webSvc := &Answer{Service: Service{Host: "web.shop.svc.cluster.local", Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Ports: []uint32{8080}}}
	assert.Equal(t, []Change{
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "api.example.com"}, Before: shopAPI, After: extAPI, Gained: []uint32{443}, Lost: []uint32{80}},
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "web.shop.svc.cluster.local"}, Before: webSvc, Lost: []uint32{8080}},
	}, Diff(cur, view(nil, web)))

	// web's Sidecar goes, and one for version=v1 workloads, importing only ext's
	// db.example.com, comes: a workload labelled app=web and version=v1 gets web's view
	// before (ext/*) and v1's after, which neither the app=web class (the namespace's view
	// after) nor the version=v1 class (before) shows: it loses ext's api.example.com.
	extDB := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "ext", Name: "db", Hosts: []string{"db.example.com"}, Ports: []uint32{443}, CreationTime: t0}
	v1 := inventory.Sidecar{Namespace: "shop", Name: "v1", WorkloadSelector: map[string]string{"version": "v1"}, Egress: []inventory.Egress{{Hosts: []string{"ext/db.example.com"}}}}
	withDB := func(scs ...inventory.Sidecar) *View {
		v, err := New(nil, &inventory.Inventory{Namespaces: nss, Services: append(slices.Clone(svcs), extDB), Sidecars: scs})
		require.NoError(t, err)
		return v
	}
	var both []Change
	for _, c := range Diff(withDB(web), withDB(v1)) {
		if c.Key.Workload == "app=web,version=v1" {
			both = append(both, c)
		}
	}
	assert.Equal(t, []Change{
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web,version=v1", Host: "api.example.com"}, Before: extAPI, Lost: []uint32{443}},
	}, both, "a workload web's Sidecar selects before and v1's after")

	// Discovery selectors that leave ext out: its service and its proxies' view of it go.
	only := &mesh.Config{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"team": "a"}}}}
	assert.Equal(t, []Change{
		{Key: ProxyHost{Namespace: "ext", Host: "api.example.com"}, Before: extAPI, Lost: []uint32{443}},
	}, Diff(cur, view(only)))

	// A mesh default exportTo of ".": ext's entry (exportTo unset) is no longer shop's
	// business, and shop's web Service no longer reaches ext.
	dot := &mesh.Config{DefaultServiceExportTo: []string{"."}}
	assert.Equal(t, []Change{
		{Key: ProxyHost{Namespace: "ext", Host: "web.shop.svc.cluster.local"}, Before: webSvc, Lost: []uint32{8080}},
	}, Diff(cur, view(dot)))
}

// TestDiffRuleChanges: a DestinationRule that keeps its name, host and subsets but changes
// its traffic policy or its workload selector changes the rule proxies get for the host, and
// Diff lists it for every class of proxies whose rule changes; the same traffic policy spelt
// otherwise is no change.
func TestDiffRuleChanges(t *testing.T) {
	view := func(policy string, selector map[string]string) *View {
		v, err := New(nil, &inventory.Inventory{
			Namespaces: map[string]map[string]string{"shop": nil},
			Services:   []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{443}, CreationTime: t0}},
			DestinationRules: []inventory.DestinationRule{{Namespace: "shop", Name: "api", Host: "api.example.com", WorkloadSelector: selector,
				Subsets: []inventory.Subset{{Name: "v1"}}, TrafficPolicy: []byte(policy)}},
		})
		require.NoError(t, err)
		return v
	}
	const ten, twenty = `{"connectionPool":{"tcp":{"maxConnections":10}}}`, `{"connectionPool":{"tcp":{"maxConnections":20}}}`
	svc := Service{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Ports: []uint32{443}}
	rule := func(policy string, selector map[string]string) *Rule {
		return &Rule{From: []string{"shop/api"}, Host: "api.example.com", Subsets: []string{"v1"}, TrafficPolicy: []byte(policy), TrafficPolicyFrom: "shop/api", WorkloadSelector: selector}
	}
	assert.Equal(t, []Change{{Key: ProxyHost{Namespace: "shop", Host: "api.example.com"}, Before: &Answer{Service: svc, Rule: rule(ten, nil)}, After: &Answer{Service: svc, Rule: rule(twenty, nil)}}},
		Diff(view(ten, nil), view(twenty, nil)), "another traffic policy")
	assert.Empty(t, Diff(view(ten, nil), view(`{"connectionPool": {"tcp": {"maxConnections": 10}}}`, nil)), "the same traffic policy, spelt otherwise")
	web, all := map[string]string{"app": "web"}, map[string]string{}
	assert.Equal(t, []Change{
		{Key: ProxyHost{Namespace: "shop", Host: "api.example.com"}, Before: &Answer{Service: svc}, After: &Answer{Service: svc, Rule: rule(ten, all)}},
		{Key: ProxyHost{Namespace: "shop", Workload: "app=web", Host: "api.example.com"}, Before: &Answer{Service: svc, Rule: rule(ten, web)}, After: &Answer{Service: svc, Rule: rule(ten, all)}},
	}, Diff(view(ten, web), view(ten, all)), "a workload selector that selects every workload")
}

// TestDiffAgainstProxy asks every proxy directly: on random inventories whose Sidecars
// change (selectors on several keys, so that a workload can carry the labels of two), and
// whose VirtualServices and DestinationRules sometimes change too, for every namespace and
// every workload of a pool whose view changes, Diff holds a class of that namespace with
// exactly its changes: each host whose answer differs in any field, with both answers as
// Proxy gives them and the ports gained and lost, and no other host.
func TestDiffAgainstProxy(t *testing.T) {
	r := newRand(11, 12)
	selectors := []map[string]string{{"app": "web"}, {"version": "v1"}, {"app": "api"}, {"app": "web", "tier": "a"}, {}}
	workloads := []map[string]string{nil, {"app": "web"}, {"version": "v1"}, {"app": "web", "version": "v1"}, {"app": "api", "version": "v1"},
		{"app": "web", "tier": "a", "version": "v1"}, {"app": "web", "tier": "a"}}
	classes, compared := 0, 0
	for iter := range longtest.N(60, 3000) {
		m, inv := randomSidecarInventory(r)
		_, other := randomSidecarInventory(r)
		next := inv
		next.Sidecars = other.Sidecars
		if r.IntN(3) == 0 {
			next.VirtualServices = other.VirtualServices
		}
		if r.IntN(3) == 0 {
			next.DestinationRules = other.DestinationRules
		}
		for _, scs := range [][]inventory.Sidecar{inv.Sidecars, next.Sidecars} {
			for i := range scs {
				if r.IntN(2) == 0 {
					scs[i].WorkloadSelector = selectors[r.IntN(len(selectors))]
				}
			}
		}
		before, err := New(m, &inv)
		if err != nil {
			continue // two Sidecars of one name
		}
		after, err := New(m, &next)
		if err != nil {
			continue
		}
		byClass := changesByClass(Diff(before, after))
		classes += len(byClass)
		for ns := range inv.Namespaces {
			for _, w := range workloads {
				want := proxyChanges(ns, before.answers(&record{}, sidecarKind, ns, w, nil), after.answers(&record{}, sidecarKind, ns, w, nil))
				if len(want) == 0 {
					continue
				}
				compared++
				found, closest := byClass.find(ns, labels.Set(w), want)
				require.True(t, found, "iteration %d: the changes of a proxy in %s with %v are those of no class of Diff; against the class of its labels (-Proxy +Diff):\n%s", iter, ns, w, closest)
			}
		}
	}
	t.Logf("%d proxies whose view changes each found among the %d classes Diff reports", compared, classes)
}

// classChanges are the changes of a dry run by class of proxies (Host ""), each class's in
// host order.
type classChanges map[ProxyHost][]Change

func changesByClass(changes []Change) classChanges {
	out := classChanges{}
	for _, c := range changes {
		k := ProxyHost{Namespace: c.Key.Namespace, Workload: c.Key.Workload}
		out[k] = append(out[k], c)
	}
	return out
}

// find reports whether a class of namespace ns has exactly the changes want, whatever its
// workload; closest is how the class of labels w differs from them (-want +class).
func (cs classChanges) find(ns string, w labels.Set, want []Change) (found bool, closest string) {
	for k, got := range cs {
		if k.Namespace != ns {
			continue
		}
		d := cmp.Diff(want, got, cmpopts.IgnoreFields(ProxyHost{}, "Workload"))
		found = found || d == ""
		if k.Workload == w.String() {
			closest = d
		}
	}
	return found, closest
}

// proxyChanges are the changes of a proxy of namespace ns from its answers x to y, as Diff
// lists them: every host whose answer differs in any field, by host.
func proxyChanges(ns string, x, y map[string]*Answer) []Change {
	hosts := slices.Collect(maps.Keys(x))
	for h := range y {
		if x[h] == nil {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	var out []Change
	for _, h := range hosts {
		if x[h] != nil && y[h] != nil && reflect.DeepEqual(x[h], y[h]) {
			continue
		}
		c := Change{Key: ProxyHost{Namespace: ns, Host: h}, Before: x[h], After: y[h]}
		var bp, ap []uint32
		if x[h] != nil {
			bp = x[h].Ports
		}
		if y[h] != nil {
			ap = y[h].Ports
		}
		c.Gained, c.Lost = report.Delta(bp, ap)
		out = append(out, c)
	}
	return out
}

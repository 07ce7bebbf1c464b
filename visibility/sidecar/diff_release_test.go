package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// viewAs builds the view of inv under m answered as release istio (compatibilityVersion
// compat), as a caller comparing releases builds it: without what the release refuses,
// which it returns.
func viewAs(t *testing.T, m mesh.Config, inv inventory.Inventory, istio, compat string) (*View, []inventory.Refusal) {
	t.Helper()
	m.Istio, m.CompatibilityVersion = istio, compat
	refused := inv.ValidateFor(m.Release())
	v, err := New(&m, inv.Without(refused))
	require.NoError(t, err)
	return v, refused
}

// TestDiffCauses: per cause, a configuration whose answer only that cause changes between two
// releases, and the changes Diff (or DiffGateways) attributes to it alone.
func TestDiffCauses(t *testing.T) {
	nss := map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop"}, "ext": {visibility.NamespaceNameLabel: "ext"}, "a": {visibility.NamespaceNameLabel: "a"}}
	entry := func(ns, name, host string, age int, exportTo ...string) inventory.Service {
		s := se(ns, name, age, []string{host})
		s.Ports, s.ExportTo = []uint32{443}, exportTo
		return s
	}
	imports := func(hosts ...string) inventory.Sidecar {
		return inventory.Sidecar{Namespace: "shop", Name: "narrow", Egress: []inventory.Egress{{Hosts: hosts}}}
	}
	routeTo := func(ns, host, dest string, exportTo ...string) inventory.VirtualService {
		return inventory.VirtualService{Namespace: ns, Name: "route", Hosts: []string{host}, ExportTo: exportTo, CreationTime: t0,
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: dest}}}}}
	}
	for _, tc := range []struct {
		name           string
		m              mesh.Config
		inv            inventory.Inventory
		before, after  [2]string // release, compatibilityVersion
		gateways       bool
		want           []mesh.Cause
		hosts, refused int // the hosts that change for the namespace shop's class; the objects before's release refuses
	}{
		{
			name: "a destination's namespace: the alphabetically first, then the oldest",
			inv: inventory.Inventory{Services: []inventory.Service{entry("ext", "api", "api.example.com", 0), entry("a", "api", "api.example.com", 1)},
				Sidecars:        []inventory.Sidecar{imports("./*")},
				VirtualServices: []inventory.VirtualService{routeTo("shop", "front.example.com", "api.example.com")}},
			before: [2]string{"1.31", "1.29"}, after: [2]string{"1.31", ""},
			want: []mesh.Cause{mesh.DestinationNamespace}, hosts: 1,
		},
		{
			name:   "a default exportTo of names: no service, then exported to them",
			m:      mesh.Config{DefaultServiceExportTo: []string{"shop"}},
			inv:    inventory.Inventory{Services: []inventory.Service{entry("ext", "api", "api.example.com", 0)}},
			before: [2]string{"1.30.2", ""}, after: [2]string{"1.30.3", ""},
			want: []mesh.Cause{mesh.DefaultExportToLists}, hosts: 1,
		},
		{
			name: "a VirtualService default exportTo of names: not routed, then routed",
			m:    mesh.Config{DefaultVirtualServiceExportTo: []string{"shop"}},
			inv: inventory.Inventory{Services: []inventory.Service{entry("ext", "api", "api.example.com", 0, "*")},
				VirtualServices: []inventory.VirtualService{routeTo("ext", "api.example.com", "api.example.com")}},
			before: [2]string{"1.30.2", ""}, after: [2]string{"1.30.3", ""},
			want: []mesh.Cause{mesh.DefaultExportToLists}, hosts: 1,
		},
		{
			name: "a gateway's listener order: its own private service, then the older one exported to it by name",
			inv: inventory.Inventory{Services: []inventory.Service{entry("ext", "api", "api.example.com", 0, "shop"), entry("shop", "api", "api.example.com", 1, ".")},
				Sidecars: []inventory.Sidecar{imports("./*")}}, // a Sidecar: no gateway's
			before: [2]string{"1.30.2", ""}, after: [2]string{"1.30.3", ""}, gateways: true,
			want: []mesh.Cause{mesh.ListenerOrder}, hosts: 1,
		},
		{
			name:   "an exclusion: \"~/host\" names a namespace, then excludes",
			inv:    inventory.Inventory{Services: []inventory.Service{entry("ext", "db", "db.example.com", 0, "*")}, Sidecars: []inventory.Sidecar{imports("*/*", "~/db.example.com")}},
			before: [2]string{"1.30", ""}, after: [2]string{"1.31", ""},
			want: []mesh.Cause{mesh.SidecarExclusions}, hosts: 1,
		},
		{
			name: "an exclusion of a namespace: the Sidecar refused, then applying",
			inv: inventory.Inventory{Services: []inventory.Service{entry("ext", "db", "db.example.com", 0, "*"), entry("a", "api", "api.example.com", 0, "*")},
				Sidecars: []inventory.Sidecar{imports("*/*", "~ext/*")}},
			before: [2]string{"1.30", ""}, after: [2]string{"1.31", ""},
			want: []mesh.Cause{mesh.SidecarExclusions}, hosts: 1, refused: 1,
		},
		{
			name:   "serviceEntryVisibility: ignored, then narrowing",
			m:      mesh.Config{Visibility: &visibility.Config{ApplyToSidecars: true, DefaultVisibility: visibility.Namespace}},
			inv:    inventory.Inventory{Services: []inventory.Service{entry("ext", "api", "api.example.com", 0, "*")}},
			before: [2]string{"1.30", ""}, after: [2]string{"1.31", ""},
			want: []mesh.Cause{mesh.ServiceEntryVisibility}, hosts: 1,
		},
		{
			name: "an exact-host listener: a younger exported service, then only the hidden indexed one",
			inv: inventory.Inventory{Services: []inventory.Service{entry("ext", "old", "db.example.com", 0, "."), entry("ext", "young", "db.example.com", 1, "*")},
				Sidecars: []inventory.Sidecar{imports("ext/db.example.com")}},
			before: [2]string{"1.30", ""}, after: [2]string{"1.31", ""},
			want: []mesh.Cause{mesh.ExactHostListeners}, hosts: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.inv.Namespaces = nss
			before, refused := viewAs(t, tc.m, tc.inv, tc.before[0], tc.before[1])
			after, _ := viewAs(t, tc.m, tc.inv, tc.after[0], tc.after[1])
			assert.Len(t, refused, tc.refused)
			diff := Diff
			if tc.gateways {
				diff = DiffGateways
			}
			shop := 0
			for _, ch := range diff(before, after) {
				assert.Equal(t, tc.want, ch.Causes, "%+v", ch.Key)
				if ch.Key.Namespace == "shop" && ch.Key.Workload == "" {
					shop++
				}
			}
			assert.Equal(t, tc.hosts, shop, "the hosts that change for shop's proxies")
			same, _ := viewAs(t, tc.m, tc.inv, tc.after[0], tc.after[1])
			assert.Empty(t, diff(after, same), "one release: no change")
			for _, ch := range diff(after, before) {
				assert.Equal(t, tc.want, ch.Causes, "downgrade: %+v", ch.Key)
			}
		})
	}
}

// TestDiffCausesOnlyWhereTheyDecide: two releases that differ by every sidecar cause, over a
// configuration none of them touches but a change of configuration does, give changes
// without a cause.
func TestDiffCausesOnlyWhereTheyDecide(t *testing.T) {
	nss := map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop"}, "ext": {visibility.NamespaceNameLabel: "ext"}}
	api := se("ext", "api", 0, []string{"api.example.com"})
	api.ExportTo = []string{"*"}
	db := se("ext", "db", 0, []string{"db.example.com"})
	db.ExportTo = []string{"*"}
	before, _ := viewAs(t, mesh.Config{}, inventory.Inventory{Namespaces: nss, Services: []inventory.Service{api}}, "1.28", "")
	after, _ := viewAs(t, mesh.Config{}, inventory.Inventory{Namespaces: nss, Services: []inventory.Service{api, db}}, "1.31", "")
	changes := Diff(before, after)
	require.NotEmpty(t, changes)
	for _, ch := range changes {
		assert.Equal(t, "db.example.com", ch.Key.Host)
		assert.Empty(t, ch.Causes, "db.example.com comes with the configuration: %+v", ch.Key)
	}
}

// TestDiffAttributesEveryChange: on random configurations answered as two random releases,
// every change Diff and DiffGateways give has a cause, each one the releases differ by.
func TestDiffAttributesEveryChange(t *testing.T) {
	r := newRand(71, 72)
	changes := map[mesh.Cause]int{}
	for iter := range longtest.N(60, 3000) {
		m, inv := randomSidecarConfig(r)
		cfg := istiotest.Config[visibility.Config](r, 2)
		if cfg != nil {
			cfg.ApplyToSidecars = r.IntN(2) == 0
		}
		m.Visibility = cfg
		other := sidecarReleases[r.IntN(len(sidecarReleases))]
		before, _ := viewAs(t, *m, inv, m.Istio, m.CompatibilityVersion)
		after, _ := viewAs(t, *m, inv, other[0], other[1])
		differ := mesh.Differences(before.Release(), after.Release())
		for _, d := range []func(x, y *View) []Change{Diff, DiffGateways} {
			for _, ch := range d(before, after) {
				require.NotEmpty(t, ch.Causes, "iteration %d, from %s to %s: %+v: a change no cause explains (the releases differ by %v):\n%s", iter, before.Release(), after.Release(), ch.Key, differ, dumpInventory(m, inv))
				for _, c := range ch.Causes {
					require.Contains(t, differ, c)
					changes[c]++
				}
			}
		}
	}
	t.Logf("changes by cause: %v", changes)
}

// Diff on the routed inventory of 2,000 services (20 namespaces) between its views as 1.30 and
// 1.31 (the builder noting each host's causes), beside Diff between two views as 1.31, which
// notes none: what the attribution costs.
func BenchmarkDiffReleasesRouted2k(b *testing.B)   { benchmarkDiffReleases(b, "1.30") }
func BenchmarkDiffOneReleaseRouted2k(b *testing.B) { benchmarkDiffReleases(b, "1.31") }

func benchmarkDiffReleases(b *testing.B, before string) {
	inv := bigRoutedInventory(2_000)
	v0, err := New(&mesh.Config{Istio: before}, &inv)
	require.NoError(b, err)
	v1, err := New(&mesh.Config{Istio: "1.31"}, &inv)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		Diff(v0, v1)
	}
}

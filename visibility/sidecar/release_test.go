package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// releaseNamespaces are the namespaces of the release tests.
var releaseNamespaces = map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop"}, "ext": {visibility.NamespaceNameLabel: "ext"}, "a": {visibility.NamespaceNameLabel: "a"}}

// releaseEntry is a ServiceEntry of host on port 443, age hours after t0.
func releaseEntry(ns, name, host string, age int, exportTo ...string) inventory.Service {
	s := se(ns, name, age, []string{host})
	s.Ports, s.ExportTo = []uint32{443}, exportTo
	return s
}

func TestNewRefusesWhatTheReleaseRefuses(t *testing.T) {
	inv := &inventory.Inventory{Namespaces: releaseNamespaces, Sidecars: []inventory.Sidecar{
		{Namespace: "shop", Name: "narrow", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~ext/*", "~./db.example.com"}}}},
	}}
	_, err := New(&mesh.Config{Istio: "1.30"}, inv)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Sidecars[0] (Sidecar shop/narrow): Egress[0].Hosts[1]`)
	assert.Contains(t, err.Error(), `Sidecars[0] (Sidecar shop/narrow): Egress[0].Hosts[2]`)
	assert.Contains(t, err.Error(), `invalid namespace value "~ext" in sidecar`)
	assert.Contains(t, err.Error(), `invalid namespace value "~." in sidecar`)
	v, err := New(&mesh.Config{Istio: "1.31"}, inv)
	require.NoError(t, err)
	assert.Equal(t, "Istio 1.31", v.Release().String())
	v, err = New(nil, inv)
	require.NoError(t, err)
	assert.True(t, v.Release().Assumed(), "no release given: the newest")
	assert.True(t, (*View)(nil).Release().Assumed())
}

// TestReleaseRules: each rule as the releases on either side of its cause give it.
func TestReleaseRules(t *testing.T) {
	names := func(p Proxy) []string {
		out := []string{}
		for _, s := range p.Services {
			out = append(out, s.Namespace+"/"+s.Host)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		m            mesh.Config
		inv          inventory.Inventory
		gateway      bool
		old, new     string // the releases
		before, now  []string
		listenerWant [2][]string // Listener.Services of the first listener, when given
	}{
		{
			name: "serviceEntryVisibility ignored before 1.31",
			m:    mesh.Config{Visibility: &visibility.Config{ApplyToSidecars: true, DefaultVisibility: visibility.None}},
			inv:  inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0, "*")}},
			old:  "1.30", new: "1.31", before: []string{"ext/api.example.com"}, now: []string{},
		},
		{
			name: "a mesh default holding \".\" and \"~\": private up to 1.30.2, hidden from 1.30.3",
			m:    mesh.Config{DefaultServiceExportTo: []string{".", "~"}},
			inv:  inventory.Inventory{Services: []inventory.Service{releaseEntry("shop", "api", "api.example.com", 0)}},
			old:  "1.30.2", new: "1.30.3", before: []string{"shop/api.example.com"}, now: []string{},
		},
		{
			name: "a mesh default holding \".\" and \"*\": private up to 1.30.2, public from 1.30.3",
			m:    mesh.Config{DefaultServiceExportTo: []string{".", "*"}},
			inv:  inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0)}},
			old:  "1.30.2", new: "1.30.3", before: []string{}, now: []string{"ext/api.example.com"},
		},
		{
			name: "an annotation naming its namespace twice: listed twice up to 1.30.2",
			inv: inventory.Inventory{Services: []inventory.Service{{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web",
				Hosts: []string{"web.shop.svc.cluster.local"}, ExportTo: []string{".", "shop"}, CreationTime: t0}}},
			old: "1.30.2", new: "1.30.3", before: []string{"shop/web.shop.svc.cluster.local"}, now: []string{"shop/web.shop.svc.cluster.local"},
			listenerWant: [2][]string{{"shop/web.shop.svc.cluster.local", "shop/web.shop.svc.cluster.local"}, {"shop/web.shop.svc.cluster.local"}},
		},
		{
			name: "a sidecar's listener order: its own first up to 1.30.2",
			inv:  inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "db", "db.example.com", 0, "shop"), releaseEntry("shop", "api", "api.example.com", 1, ".")}},
			old:  "1.30.2", new: "1.30.3", before: []string{"shop/api.example.com", "ext/db.example.com"}, now: []string{"shop/api.example.com", "ext/db.example.com"},
			listenerWant: [2][]string{{"shop/api.example.com", "ext/db.example.com"}, {"ext/db.example.com", "shop/api.example.com"}},
		},
		{
			name:    "a gateway's listener order: its own private service first up to 1.30.2",
			inv:     inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0, "shop"), releaseEntry("shop", "api", "api.example.com", 1, ".")}},
			gateway: true, old: "1.30.2", new: "1.30.3", before: []string{"shop/api.example.com"}, now: []string{"ext/api.example.com"},
		},
		{
			name: "\"~/*\" beside \"*/*\": nothing excluded up to 1.30, everything from 1.31",
			inv: inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0, "*")},
				Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "all", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~/*"}}}}}},
			old: "1.30", new: "1.31", before: []string{"ext/api.example.com"}, now: []string{},
		},
		{
			name: "an exact host: a younger exported service up to 1.30, only the indexed one from 1.31",
			inv: inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "old", "db.example.com", 0, "."), releaseEntry("ext", "young", "db.example.com", 1, "*")},
				Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "exact", Egress: []inventory.Egress{{Hosts: []string{"ext/db.example.com"}}}}}},
			old: "1.30", new: "1.31", before: []string{"ext/db.example.com"}, now: []string{},
		},
		{
			name: "a destination's namespace: alphabetically first with the flag off, oldest with it on",
			m:    mesh.Config{CompatibilityVersion: "1.29"},
			inv: inventory.Inventory{Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0, "*"), releaseEntry("a", "api", "api.example.com", 1, "*")},
				Sidecars:        []inventory.Sidecar{{Namespace: "shop", Name: "own", Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
				VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "route", Hosts: []string{"front.example.com"}, CreationTime: t0, HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "api.example.com"}}}}}}},
			old: "1.31", new: "1.31", before: []string{"a/api.example.com"}, now: []string{"ext/api.example.com"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.inv.Namespaces = releaseNamespaces
			for i, istio := range []string{tc.old, tc.new} {
				m := tc.m
				m.Istio = istio
				if i == 1 {
					m.CompatibilityVersion = ""
				}
				v, err := New(&m, &tc.inv)
				require.NoError(t, err)
				get := v.Proxy
				if tc.gateway {
					get = v.Gateway
				}
				p := get("shop", nil)
				assert.ElementsMatch(t, [][]string{tc.before, tc.now}[i], names(p), "%s", v.Release())
				if tc.listenerWant[i] != nil {
					assert.Equal(t, tc.listenerWant[i], p.Listeners[0].Services, "%s", v.Release())
				}
			}
		})
	}
}

// TestExplainSaysHowTheReleaseReadsTheDefault: a service hidden by a mesh default the release
// reads otherwise than written is explained in the release's reading.
func TestExplainSaysHowTheReleaseReadsTheDefault(t *testing.T) {
	inv := &inventory.Inventory{Namespaces: releaseNamespaces, Services: []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0)}}
	v, err := New(&mesh.Config{Istio: "1.29", DefaultServiceExportTo: []string{"shop"}}, inv)
	require.NoError(t, err)
	e := v.ExplainHost("shop", nil, "api.example.com")
	require.NotEmpty(t, e.Levels)
	require.NotEmpty(t, e.Levels[0].Candidates)
	c := e.Levels[0].Candidates[0]
	assert.Equal(t, Hidden, c.Verdict)
	assert.Equal(t, `the mesh's defaultServiceExportTo ["shop"], which Istio 1.29 reads as ["~"] (before 1.30.3 istiod honours only "." and "*" in it: DefaultExportToLists), does not export it to shop`, c.Reason)
}

// TestDestinationTie: two equally old ServiceEntries of a destination's host in two
// namespaces: istiod takes either, and Proxy says so.
func TestDestinationTie(t *testing.T) {
	inv := &inventory.Inventory{Namespaces: releaseNamespaces,
		Services:        []inventory.Service{releaseEntry("ext", "api", "api.example.com", 0, "*"), releaseEntry("a", "api", "api.example.com", 0, "*")},
		Sidecars:        []inventory.Sidecar{{Namespace: "shop", Name: "own", Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "route", Hosts: []string{"front.example.com"}, CreationTime: t0, HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "api.example.com"}}}}}},
	}
	v, err := New(nil, inv)
	require.NoError(t, err)
	p := v.Proxy("shop", nil)
	require.Len(t, p.Services, 1)
	assert.Equal(t, "a", p.Services[0].Namespace, "the first in meshscope's order")
	require.Len(t, p.Notes, 1)
	assert.Equal(t, DestinationTie, p.Notes[0].Code)
	assert.Equal(t, "ServiceEntry a/api", p.Notes[0].Path)
	assert.Contains(t, p.Notes[0].Message, "ServiceEntry a/api and ServiceEntry ext/api are equally old ServiceEntries of api.example.com")
	var lint []Finding
	for _, f := range v.Lint() {
		if f.Code == DestinationTie {
			lint = append(lint, f)
		}
	}
	require.Len(t, lint, 1, "Lint says it too, for the class")
	assert.Equal(t, p.Notes[0].Message+" (for the proxies of shop)", lint[0].Message)
	// Up to 1.29 the alphabetically first namespace: no tie.
	v, err = New(&mesh.Config{Istio: "1.29"}, inv)
	require.NoError(t, err)
	assert.Empty(t, v.Proxy("shop", nil).Notes)
}

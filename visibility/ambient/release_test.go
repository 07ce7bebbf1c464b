package ambient

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// releaseInventory holds the conflicts the releases answer differently, each written from
// ztunnel's and istiod's source (no recording holds them):
//
//   - web.shop.svc.cluster.local: the Kubernetes Service shop/web, and a ServiceEntry of that
//     host in other (older);
//   - api.example.com: ServiceEntries in a (oldest) and b; db.example.com: two in a;
//   - 10.0.0.1: ServiceEntries in a and b; 10.0.0.2: one ServiceEntry, two hosts;
//   - 10.1.0.0/16: a ServiceEntry of corp.example.com in infra;
//   - 10.0.0.3: a ServiceEntry in other whose only host is a Kubernetes Service's.
func releaseInventory() *inventory.Inventory {
	at := func(s int) time.Time { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC) }
	se := func(ns, name string, created int, hs []string, addrs ...string) inventory.Service {
		return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hs, Addresses: pfx(addrs...), CreationTime: at(created), Resolution: inventory.ResolutionStatic}
	}
	return &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": {}, "other": {}, "a": {}, "b": {}, "c": {}, "infra": {}},
		Services: []inventory.Service{
			{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Addresses: pfx("10.96.0.10"), CreationTime: at(9)},
			se("other", "web-mirror", 1, []string{"web.shop.svc.cluster.local", "mirror.example.com"}, "10.0.0.9"),
			se("a", "api", 2, []string{"api.example.com"}, "10.0.1.1"),
			se("b", "api", 3, []string{"api.example.com"}, "10.0.1.2"),
			se("a", "db-old", 4, []string{"db.example.com"}, "10.0.2.1"),
			se("a", "db-new", 5, []string{"db.example.com"}, "10.0.2.2"),
			se("a", "vip", 6, []string{"vip-a.example.com"}, "10.0.0.1"),
			se("b", "vip", 7, []string{"vip-b.example.com"}, "10.0.0.1"),
			se("a", "two", 8, []string{"one.example.com", "two.example.com"}, "10.0.0.2"),
			se("infra", "corp", 10, []string{"corp.example.com"}, "10.1.0.0/16"),
			se("other", "shadow", 11, []string{"web.shop.svc.cluster.local"}, "10.0.0.3"),
		},
	}
}

// answerOf spells an outcome: "ns/name", "-" for none, "?a/x,b/y" when undetermined.
func answerOf(o Outcome) string {
	switch {
	case o.Found:
		return o.Service.Namespace + "/" + o.Service.Name
	case len(o.Undetermined) > 0:
		var s []string
		for _, r := range o.Undetermined {
			s = append(s, r.Namespace+"/"+r.Name)
		}
		return "?" + strings.Join(s, ",")
	}
	return "-"
}

// TestReleases: what ztunnel answers, release by release.
func TestReleases(t *testing.T) {
	inv := releaseInventory()
	type q struct{ client, query string }
	for _, tc := range []struct {
		name string
		q    q
		want map[string]string // release → answer
	}{
		{"a Kubernetes Service's host claimed by a ServiceEntry of the client's namespace", q{"other", "web.shop.svc.cluster.local"},
			map[string]string{"1.28": "shop/web", "1.29": "other/web-mirror", "1.30": "other/web-mirror", "1.31": "other/web-mirror"}},
		{"…and from another namespace", q{"c", "web.shop.svc.cluster.local"},
			map[string]string{"1.28": "shop/web", "1.29": "shop/web", "1.30.3": "shop/web", "1.31": "shop/web"}},
		{"a host of two namespaces, from a third", q{"c", "api.example.com"},
			map[string]string{"1.28.10": "?a/api,b/api", "1.29": "a/api", "1.30": "a/api", "1.31": "a/api"}},
		{"…from the client's own", q{"b", "api.example.com"},
			map[string]string{"1.28": "b/api", "1.29": "b/api", "1.31": "b/api"}},
		{"…from a client without a namespace", q{"", "api.example.com"},
			map[string]string{"1.28": "?a/api,b/api", "1.29": "a/api"}},
		{"a host of one namespace, twice: its oldest", q{"c", "db.example.com"},
			map[string]string{"1.28": "a/db-old", "1.29": "a/db-old", "1.31": "a/db-old"}},
		{"an address of two namespaces, from one of them", q{"b", "10.0.0.1"},
			map[string]string{"1.28": "?a/vip,b/vip", "1.29.6": "?a/vip,b/vip", "1.30.0": "b/vip", "1.31": "b/vip"}},
		{"…from a third", q{"c", "10.0.0.1"},
			map[string]string{"1.29": "?a/vip,b/vip", "1.30": "a/vip", "1.31": "a/vip"}},
		{"an address of one entry of two hosts", q{"c", "10.0.0.2"},
			map[string]string{"1.28": "a/two", "1.29": "a/two", "1.31": "a/two"}},
		{"a queried IPv4-mapped address is IPv4", q{"c", "::ffff:10.0.0.2"},
			map[string]string{"1.28": "a/two", "1.31": "a/two"}},
		{"an address inside a CIDR", q{"c", "10.1.2.3"},
			map[string]string{"1.28": "-", "1.29": "-", "1.30": "infra/corp", "1.31": "infra/corp"}},
		{"the host of an entry holding a CIDR", q{"c", "corp.example.com"},
			map[string]string{"1.29": "-", "1.30": "infra/corp"}},
		{"the address of an entry a Kubernetes Service hides in 1.28", q{"c", "10.0.0.3"},
			map[string]string{"1.28": "-", "1.29": "other/shadow", "1.31": "other/shadow"}},
		{"…an entry with another host is sent in 1.28", q{"c", "10.0.0.9"},
			map[string]string{"1.28": "other/web-mirror", "1.31": "other/web-mirror"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for istio, want := range tc.want {
				ix, err := New(&mesh.Config{Istio: istio}, inv)
				require.NoError(t, err)
				var o Outcome
				var e Explanation
				if a, err := netip.ParseAddr(tc.q.query); err == nil {
					o, e = ix.AnswerAddress(tc.q.client, a), ix.ExplainAddress(tc.q.client, a)
					s, ok := ix.LookupAddress(tc.q.client, a)
					assert.Equal(t, o.Found, ok, istio)
					assert.Equal(t, o.Service.Name, s.Name, istio)
				} else {
					o, e = ix.AnswerHost(tc.q.client, tc.q.query), ix.ExplainHost(tc.q.client, tc.q.query)
					s, ok := ix.LookupHost(tc.q.client, tc.q.query)
					assert.Equal(t, o.Found, ok, istio)
					assert.Equal(t, o.Service.Name, s.Name, istio)
				}
				assert.Equal(t, want, answerOf(o), "%s\n%s", istio, e)
				assert.Equal(t, o.Undetermined, e.Undetermined, istio)
				if o.Found {
					assert.Equal(t, o.Service.Ref(), *e.Answer, istio)
				}
			}
		})
	}
}

// TestReleaseExplanations: what an explanation says of a release's own rules.
func TestReleaseExplanations(t *testing.T) {
	inv := releaseInventory()
	ix28, err := New(&mesh.Config{Istio: "1.28"}, inv)
	require.NoError(t, err)
	assert.Equal(t, "Istio 1.28", ix28.Release().String())
	e := ix28.ExplainHost("c", "api.example.com").String()
	assert.Contains(t, e, "api.example.com from namespace c: answered by one of ServiceEntry a/api, ServiceEntry b/api: which one, the inventory does not determine")
	assert.Contains(t, e, "ServiceEntry b/api PUBLIC (default): undetermined: Istio 1.28: outside the client's namespace ztunnel takes the first of these in the order it received them")

	ix29, err := New(&mesh.Config{Istio: "1.29"}, inv)
	require.NoError(t, err)
	e = ix29.ExplainAddress("c", netip.MustParseAddr("10.1.2.3")).String()
	assert.Contains(t, e, "10.1.2.3 from namespace c: no visible service; the traffic passes through")
	assert.Contains(t, e, "ServiceEntry infra/corp PUBLIC (default): hidden: not sent to ztunnel: Istio 1.29 sends no ServiceEntry holding an address wider than one IP (from 1.30 it does)")
	e = ix29.ExplainAddress("a", netip.MustParseAddr("10.0.0.1")).String()
	assert.Contains(t, e, "undetermined: Istio 1.29: ztunnel keeps one service per address, the one it received last")

	var undetermined []Conflict
	for _, c := range ix28.Conflicts() {
		for _, a := range c.Answers {
			if len(a.Undetermined) > 0 {
				undetermined = append(undetermined, c)
				break
			}
		}
	}
	var keys []string
	for _, c := range undetermined {
		keys = append(keys, c.Key)
	}
	assert.Equal(t, []string{"api.example.com", "10.0.0.1"}, keys)
}

// TestReleaseVisibilityOff: before 1.31 istiod does not know serviceEntryVisibility, so no
// entry is hidden from ztunnel; from 1.31 the same configuration hides.
func TestReleaseVisibilityOff(t *testing.T) {
	inv := releaseInventory()
	vis := &visibility.Config{DefaultVisibility: visibility.Namespace}
	for istio, want := range map[string]string{"1.30.3": "infra/corp", "1.31": "-"} {
		ix, err := New(&mesh.Config{Istio: istio, Visibility: vis}, inv)
		require.NoError(t, err)
		assert.Equal(t, want, answerOf(ix.AnswerAddress("c", netip.MustParseAddr("10.1.2.3"))), istio)
		d, ok := ix.Decision("infra", "corp")
		require.True(t, ok)
		assert.Equal(t, map[string]visibility.Visibility{"1.30.3": visibility.Public, "1.31": visibility.Namespace}[istio], d.Visibility, istio)
	}
}

// TestReleaseDiff: Diff audits a visibility change between releases whose ztunnel answers
// alike (1.30 to 1.31: the upgrade that makes the block apply), and refuses others.
func TestReleaseDiff(t *testing.T) {
	inv := releaseInventory()
	vis := &visibility.Config{DefaultVisibility: visibility.Namespace}
	a, err := Diff(&mesh.Config{Istio: "1.30", Visibility: vis}, &mesh.Config{Istio: "1.31", Visibility: vis}, inv)
	require.NoError(t, err)
	assert.Len(t, a.Entries, 10, "every ServiceEntry goes from PUBLIC (the block ignored) to NAMESPACE")
	_, err = Diff(&mesh.Config{Istio: "1.29"}, &mesh.Config{Istio: "1.31"}, inv)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after: Istio 1.31 gives ztunnel its view otherwise than Istio 1.29 does (ZtunnelRankedAddress)")
	_, err = New(&mesh.Config{Istio: "1.28.0"}, inv)
	require.Error(t, err, "1.28.0 is not modelled")
	assert.Contains(t, err.Error(), "Istio \"1.28.0\" is not modelled")
}

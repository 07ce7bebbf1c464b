package ambient

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestPartialWildcardRules has a row per rule of how a DNS lookup treats wildcard hosts:
// *. ones at a query's label boundaries, most specific first, and never a partial one
// (*x.b.c), as ztunnel's DNS proxy does.
func TestPartialWildcardRules(t *testing.T) {
	inv := inventory.Inventory{Namespaces: map[string]map[string]string{"a": {}, "b": {}, "c": {}}, Services: []inventory.Service{
		se("a", "partial", 0, []string{"*x.example.com"}),
		se("a", "dash", 0, []string{"*-foo.example.com"}),
		se("a", "one-label", 0, []string{"*lab"}),
		se("b", "full", 0, []string{"*.example.com"}),
		se("b", "bx", 0, []string{"*.bx.example.com"}),
		se("c", "upper", 0, []string{"*Z.Example.com."}),
	}}
	ix, err := New(nil, &inv)
	require.NoError(t, err)
	for _, tt := range []struct{ name, query, want string }{
		{"a partial wildcard never answers: the *. wildcard does", "ax.example.com", "b/full"},
		{"... in a label further left", "a.cx.example.com", "b/full"},
		{"... for the host that is exactly what follows its *", "x.example.com", "b/full"},
		{"... with a dash after the *", "web-foo.example.com", "b/full"},
		{"... and of one label, with no *. wildcard left: upstream", "kitchen.lab", "-"},
		{"a full wildcard does not match its bare parent", "example.com", "-"},
		{"nothing matches another domain", "ax.example.org", "-"},
		{"the most specific *. wildcard first", "a.bx.example.com", "b/bx"},
		{"case and a trailing dot do not make a partial wildcard answer", "WZ.example.COM.", "b/full"},
		{"a query starting with a dot is no name under *.example.com, for the explanation too", ".example.com", "-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ref(ix.LookupHost("a", tt.query)))
			e := ix.ExplainHost("a", tt.query)
			explained := "-"
			if e.Answer != nil {
				explained = e.Answer.Namespace + "/" + e.Answer.Name
			}
			assert.Equal(t, tt.want, explained, "the explanation's answer is the lookup's")
		})
	}

	levels := ix.ExplainHost("a", "a.bx.example.com").Names[0].Levels
	var keys []string
	for _, l := range levels {
		keys = append(keys, l.Key)
	}
	assert.Equal(t, []string{"*.bx.example.com", "*x.example.com", "*.example.com"}, keys, "every level an explanation shows, the longest first")

	t.Run("a hidden longer level falls through past a partial wildcard, upstream", func(t *testing.T) {
		c := &visibility.Config{DefaultVisibility: visibility.Public, Policies: []visibility.Policy{{Visibility: visibility.Namespace, MatchingRules: []visibility.MatchingRule{
			{NamespaceSelector: istiotest.LabelSelector(visibility.NamespaceNameLabel, "b")}}}}}
		inv := inventory.Inventory{Namespaces: map[string]map[string]string{"a": {visibility.NamespaceNameLabel: "a"}, "b": {visibility.NamespaceNameLabel: "b"}}, Services: []inventory.Service{
			se("b", "bx", 0, []string{"*.bx.example.com"}),
			se("a", "partial", 0, []string{"*x.example.com"}),
		}}
		ix := mustNew(t, c, inv)
		assert.Equal(t, "-", ref(ix.LookupHost("c", "a.bx.example.com")))
		assert.Equal(t, "-", ref(ix.LookupHost("a", "a.bx.example.com")), "not even the partial wildcard's own namespace")
		assert.Equal(t, "b/bx", ref(ix.LookupHost("b", "a.bx.example.com")))
	})

	t.Run("ExplainHost says that ztunnel's DNS proxy does not answer through a partial wildcard", func(t *testing.T) {
		e := ix.ExplainHost("a", "ax.example.com")
		assert.Contains(t, e.String(), "ServiceEntry a/partial PUBLIC (default): not reached: "+partialWildcardNote)
		require.NotNil(t, e.Answer)
		assert.Equal(t, "full", e.Answer.Name, "the *. wildcard answers")
		assert.NotContains(t, ix.ExplainHost("a", "ay.example.com").String(), "partial wildcard", "no partial wildcard on the way")
	})

	t.Run("a partial wildcard puts no host in conflict: it answers no DNS query but its own", func(t *testing.T) {
		c := &visibility.Config{DefaultVisibility: visibility.Public, Policies: []visibility.Policy{{Visibility: visibility.Namespace, MatchingRules: []visibility.MatchingRule{matchLabels("team", "a")}}}}
		ix, err := New(meshOf(c), &inventory.Inventory{Namespaces: map[string]map[string]string{"a": {"team": "a"}, "b": {}}, Services: []inventory.Service{
			se("a", "own", 0, []string{"ax.example.com"}, "10.0.0.1"), // NAMESPACE: a's alone
			se("b", "partial", 0, []string{"*x.example.com"}, "10.0.0.2"),
		}})
		require.NoError(t, err)
		assert.Empty(t, ix.Conflicts(), "ax.example.com is claimed, for DNS, by namespace a only")
	})

	t.Run("Lint flags every partial wildcard with an address", func(t *testing.T) {
		var got []string
		for _, f := range ix.Lint() {
			if f.Code == PartialWildcardDNS {
				got = append(got, f.Path)
			}
		}
		assert.Equal(t, []string{"ServiceEntry a/dash", "ServiceEntry a/one-label", "ServiceEntry a/partial", "ServiceEntry c/upper"}, got)
	})

	t.Run("a partial wildcard is claimed in several namespaces like any host", func(t *testing.T) {
		inv := inventory.Inventory{Services: []inventory.Service{se("a", "one", 0, []string{"*x.example.com"}), se("b", "two", 1, []string{"*x.example.com"})}}
		ix, err := New(nil, &inv)
		require.NoError(t, err)
		conflicts := ix.Conflicts()
		require.Len(t, conflicts, 1)
		assert.Equal(t, "*x.example.com", conflicts[0].Key)
	})
}

// TestPartialWildcardAddresses: a partial wildcard is a wildcard for the addresses Istio
// allocates: none unless the resolution is DYNAMIC_DNS.
func TestPartialWildcardAddresses(t *testing.T) {
	s := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "a", Name: "x", Hosts: []string{"*x.example.com"}, Resolution: inventory.ResolutionDNS,
		AutoAddresses: autos(map[string][]string{"*x.example.com": {"240.240.0.9"}})}
	assert.Empty(t, s.AddressesFor("*x.example.com"), "DNS resolution: a wildcard host gets no allocated address")
	s.Resolution = inventory.ResolutionDynamicDNS
	assert.Equal(t, pfx("240.240.0.9"), s.AddressesFor("*x.example.com"))
	ix, err := New(nil, &inventory.Inventory{Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "a", Name: "x", Hosts: []string{"*x.example.com"}, Resolution: inventory.ResolutionDNS,
		AutoAddresses: autos(map[string][]string{"*x.example.com": {"240.240.0.9"}})}}})
	require.NoError(t, err)
	assert.Contains(t, ix.ExplainHost("a", "ax.example.com").String(), "a wildcard host gets none allocated unless the resolution is DYNAMIC_DNS")
}

// TestPartialWildcardsRead: inventory.Load and New accept the hosts Istio's validation
// accepts, partial wildcards included, and refuse the rest with the same words.
func TestPartialWildcardsRead(t *testing.T) {
	for _, h := range []string{"*x.example.com", "*-foo.example.com", "*x", "*.example.com"} {
		inv, err := inventory.Load([]byte("kind: ServiceEntry\nmetadata: {name: e, namespace: a}\nspec: {hosts: ['"+h+"'], addresses: [10.0.0.1]}\n"), "")
		require.NoError(t, err, h)
		_, err = New(nil, inv)
		require.NoError(t, err, h)
	}
	for h, want := range map[string]string{
		"*":               `invalid host *`,
		"a*.example.com":  `domain name "a*.example.com" invalid (label "a*" invalid)`,
		"*x-.example.com": `domain name "*x-.example.com" invalid (label "*x-" invalid)`,
	} {
		_, err := inventory.Load([]byte("kind: ServiceEntry\nmetadata: {name: e, namespace: a}\nspec: {hosts: ['"+h+"']}\n"), "")
		require.Error(t, err, h)
		assert.Equal(t, "ServiceEntry a/e: spec.hosts[0]: "+want, err.Error())
		_, err = New(nil, &inventory.Inventory{Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "a", Name: "e", Hosts: []string{h}}}})
		require.Error(t, err, h)
		assert.True(t, strings.HasSuffix(err.Error(), "Hosts[0]: "+want), err.Error())
	}
}

// wildcardProbes counts the wildcard table probes a lookup of the normalized name h makes.
func wildcardProbes(ix *Index, h string) int {
	n := 0
	for i := 1; i < len(h); i++ {
		if h[i] == '.' && ix.t.dnsLens.has(len(h)-i) {
			n++
		}
	}
	return n
}

// TestWildcardProbes: a lookup probes the wildcard table only at the lengths the index's *.
// wildcards have, at label boundaries: at most a probe per label boundary, however many
// wildcards (partial ones included, which a DNS lookup never tries) the index holds.
func TestWildcardProbes(t *testing.T) {
	inventoryOf := func(n int) inventory.Inventory {
		var inv inventory.Inventory
		for i := range n {
			ns := "n" + strings.Repeat("x", i%3) // three namespace lengths: three suffix lengths of each kind
			inv.Services = append(inv.Services,
				se(ns, "w"+strings.Repeat("w", i), 0, []string{"*." + ns + ".example.com"}),
				se(ns, "p"+strings.Repeat("p", i), 0, []string{"*-canary." + ns + ".example.com"}))
		}
		return inv
	}
	small, err := New(nil, new(inventoryOf(10)))
	require.NoError(t, err)
	large, err := New(nil, new(inventoryOf(40)))
	require.NoError(t, err)
	for _, q := range []string{"web.nxx.example.com", "a.b.c.d.e.example.com", "web-canary.n.example.com", "x", "nothing-here.example.org"} {
		dots := strings.Count(q, ".")
		assert.LessOrEqual(t, wildcardProbes(small, q), dots, q)
		assert.Equal(t, wildcardProbes(small, q), wildcardProbes(large, q), "%s: probes do not grow with the wildcards held", q)
	}
	none, err := New(nil, &inventory.Inventory{Services: []inventory.Service{se("a", "x", 0, []string{"api.example.com"})}})
	require.NoError(t, err)
	assert.Zero(t, wildcardProbes(none, "a.b.c.api.example.com"), "no wildcard, no probe")
}

package visibility_test

import (
	"fmt"
	"net/netip"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
)

const meshConfig = `
apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      applyToSidecars: true
      policies:
      - visibility: PUBLIC
        matchingRules:
        - namespaceSelector:
            matchLabels: {team: platform}
      - visibility: NONE
        matchingRules:
        - namespaceSelector:
            matchExpressions: [{key: env, operator: In, values: [sandbox]}]
`

func ExampleLoadConfig() {
	c, err := visibility.LoadConfig([]byte(meshConfig))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.DefaultVisibility, len(c.Policies), c.ApplyToSidecars)

	// A misspelt field is an error, not a selector that matches every namespace.
	_, err = visibility.LoadConfig([]byte(`
serviceEntryVisibility:
  policies:
  - visibility: NONE
    matchingRules:
    - namespaceSelector: {match_labels: {env: sandbox}}
`))
	fmt.Println(err)
	// Output:
	// NAMESPACE 2 true
	// serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)
}

func ExampleResolver_Resolve() {
	c, err := visibility.LoadConfig([]byte(meshConfig))
	if err != nil {
		panic(err)
	}
	r, err := visibility.Compile(c)
	if err != nil {
		panic(err)
	}
	for _, ns := range []labels.Set{
		{"team": "platform"},
		{"team": "shop", "env": "sandbox"},
		{"team": "shop"},
		nil, // a namespace that does not exist
	} {
		fmt.Printf("%-30v %v\n", ns, r.Resolve(ns))
	}
	// Output:
	// team=platform                  PUBLIC (policies[0])
	// env=sandbox,team=shop          NONE (policies[1])
	// team=shop                      NAMESPACE (default)
	//                                NAMESPACE (default)
}

func ExampleResolver_Explain() {
	c, _ := visibility.LoadConfig([]byte(meshConfig))
	r, _ := visibility.Compile(c)
	fmt.Println(r.Explain(labels.Set{"team": "shop", "env": "sandbox"}))
	// Output:
	// policies[0] PUBLIC: no match: matchingRules[0] (team=platform) does not select the namespace
	// policies[1] NONE: matches, decides
	// => NONE by policies[1]
}

func ExampleEffectiveExportTo() {
	// An entry in namespace "shop" exported to everyone, whose visibility is NAMESPACE.
	declared := []string{"*"}
	fmt.Println(visibility.EffectiveExportTo(declared, nil, "shop", visibility.Namespace, true))
	fmt.Println(visibility.EffectiveExportTo(declared, nil, "shop", visibility.Namespace, false))

	// Exported only to "infra": NAMESPACE visibility leaves no one.
	eff := visibility.EffectiveExportTo([]string{"infra"}, nil, "shop", visibility.Namespace, true)
	fmt.Println(eff, visibility.ExportedTo(eff, "shop", "infra"))
	// Output:
	// [.]
	// [*]
	// [~] false
}

func ExampleWaypointBinding() {
	c := visibility.WaypointBinding("shop", "infra", visibility.Namespace)
	fmt.Println(c.Type, c.Status, c.Reason)
	// Output:
	// istio.io/WaypointBound False CrossNamespaceWaypointForbidden
}

func ExampleResolver_Lint() {
	r, err := visibility.Compile(&visibility.Config{
		DefaultVisibility: visibility.Namespace,
		Policies: []visibility.Policy{
			{Visibility: visibility.Public}, // no rules: matches every namespace
			{Visibility: visibility.None},   // so this is never tried
		},
	})
	if err != nil {
		panic(err)
	}
	for _, f := range r.Lint() {
		fmt.Println(f)
	}
	// Output:
	// WARNING Unreachable policies[1]: policies[0] matches every namespace, so this policy is never tried
}

func ExampleResolver_Condition() {
	r, _ := visibility.Compile(&visibility.Config{DefaultVisibility: visibility.Namespace})
	c := r.Condition(r.Resolve(nil))
	fmt.Println(c.Type, c.Status, c.Reason)
	fmt.Println(c.Message)
	// Output:
	// istio.io/VisibilityApplied True Namespace
	// visibility NAMESPACE: no policy matched the namespace, the default applies; only workloads in the entry's own namespace can discover and reach it
}

func exampleIndex() *visibility.Index {
	r, err := visibility.Compile(&visibility.Config{
		DefaultVisibility: visibility.Namespace,
		Policies: []visibility.Policy{{
			Visibility:    visibility.Public,
			MatchingRules: []visibility.MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "platform"}}}},
		}},
	})
	if err != nil {
		panic(err)
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix, err := visibility.NewIndex(r, visibility.Inventory{
		Namespaces: map[string]map[string]string{"platform": {"team": "platform"}, "shop": {"team": "shop"}},
		Services: []visibility.Service{
			// Resolution DNS and no spec.addresses: Istio allocates an address (status.addresses).
			// An IP is a /32 (or /128) prefix.
			{Kind: visibility.ServiceEntry, Namespace: "platform", Name: "github", Hosts: []string{"api.github.com"}, CreationTime: created,
				Resolution: visibility.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"api.github.com": {netip.MustParsePrefix("240.240.0.1/32")}}},
			{Kind: visibility.ServiceEntry, Namespace: "shop", Name: "github-mirror", Hosts: []string{"api.github.com"}, Addresses: []netip.Prefix{netip.MustParsePrefix("198.51.100.7/32")}, CreationTime: created},
			{Kind: visibility.ServiceEntry, Namespace: "shop", Name: "orders-db", Hosts: []string{"db.orders.internal"}, CreationTime: created,
				Resolution: visibility.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"db.orders.internal": {netip.MustParsePrefix("240.240.0.2/32")}}},
		},
	})
	if err != nil {
		panic(err)
	}
	return ix
}

func ExampleIndex_LookupHost() {
	ix := exampleIndex()
	for _, q := range []struct{ client, host string }{
		{"shop", "api.github.com"},        // its own namespace's entry comes first
		{"billing", "api.github.com"},     // the PUBLIC entry
		{"shop", "db.orders.internal"},    // NAMESPACE: visible to shop...
		{"billing", "db.orders.internal"}, // ...and absent for everyone else
	} {
		if s, ok := ix.LookupHost(q.client, q.host); ok {
			fmt.Printf("%-8s %-20s -> %s/%s\n", q.client, q.host, s.Namespace, s.Name)
		} else {
			fmt.Printf("%-8s %-20s -> forwarded to the upstream resolver\n", q.client, q.host)
		}
	}
	// Output:
	// shop     api.github.com       -> shop/github-mirror
	// billing  api.github.com       -> platform/github
	// shop     db.orders.internal   -> shop/orders-db
	// billing  db.orders.internal   -> forwarded to the upstream resolver
}

func ExampleIndex_ExplainHost() {
	fmt.Println(exampleIndex().ExplainHost("billing", "api.github.com"))
	// Output:
	// api.github.com from namespace billing: answered by ServiceEntry platform/github
	//   api.github.com:
	//     ServiceEntry platform/github PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry
	//     ServiceEntry shop/github-mirror NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace shop sees it
}

func ExampleIndex_LookupAddress() {
	ix := exampleIndex()
	_, ok := ix.LookupAddress("billing", netip.MustParseAddr("198.51.100.7"))
	fmt.Println("billing:", ok) // unknown traffic: passed through to its destination
	s, ok := ix.LookupAddress("shop", netip.MustParseAddr("198.51.100.7"))
	fmt.Println("shop:", ok, s.Name)
	// Output:
	// billing: false
	// shop: true github-mirror
}

func ExampleDiff() {
	inv := visibility.Inventory{
		Namespaces: map[string]map[string]string{"shop": {"team": "shop"}},
		Services: []visibility.Service{{Kind: visibility.ServiceEntry, Namespace: "shop", Name: "orders-db", Hosts: []string{"db.orders.internal"},
			Resolution: visibility.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"db.orders.internal": {netip.MustParsePrefix("240.240.0.2/32")}}}},
	}
	before, _ := visibility.Compile(nil) // the feature is off today
	after, _ := visibility.Compile(&visibility.Config{DefaultVisibility: visibility.Namespace})
	audit, err := visibility.Diff(before, after, inv)
	if err != nil {
		panic(err)
	}
	for _, e := range audit.Entries {
		fmt.Printf("%s/%s: %s -> %s, lost by %v\n", e.Key.Namespace, e.Key.Name, e.Before, e.After, e.Lost)
	}
	for _, h := range audit.Hosts {
		fmt.Printf("%s for %v: %v -> %v\n", h.Key.Query, h.Key.Clients, h.Before, h.After)
	}
	for _, a := range audit.Addresses {
		fmt.Printf("%s for %v: %v -> %v\n", a.Key.Query, a.Key.Clients, a.Before, a.After)
	}
	// Output:
	// shop/orders-db: PUBLIC (default) -> NAMESPACE (default), lost by [*]
	// db.orders.internal for [*]: ServiceEntry shop/orders-db -> <nil>
	// 240.240.0.2 for [*]: ServiceEntry shop/orders-db -> <nil>
}

// ExampleIndex_LookupHost_shortName: a workload in namespace shop asks for "payments" — the
// short name of the Kubernetes Service payments.shop.svc.cluster.local — and ztunnel's DNS
// proxy expands it as the workload's resolver would.
func ExampleIndex_LookupHost_shortName() {
	ix, err := visibility.NewIndex(nil, visibility.Inventory{
		Services: []visibility.Service{{Kind: visibility.KubernetesService, Namespace: "shop", Name: "payments",
			Hosts: []string{"payments.shop.svc.cluster.local"}, Addresses: []netip.Prefix{netip.MustParsePrefix("10.96.0.20/32")}}},
	})
	if err != nil {
		panic(err)
	}
	for _, q := range []struct{ client, host string }{
		{"shop", "payments"},          // x -> x.<client ns>.svc.cluster.local
		{"billing", "payments.shop"},  // x.y -> x.y.svc.cluster.local
		{"billing", "payments"},       // payments.billing.svc.cluster.local: none
		{"shop", "payments.shop.svc"}, // x.y.svc -> x.y.svc.cluster.local
		{"", "payments.shop.svc.cluster.local"},
	} {
		s, ok := ix.LookupHost(q.client, q.host)
		if !ok {
			s.Name = "(forwarded upstream)"
		}
		fmt.Printf("%-9q %-32s %s\n", q.client, q.host, s.Name)
	}
	// Output:
	// "shop"    payments                         payments
	// "billing" payments.shop                    payments
	// "billing" payments                         (forwarded upstream)
	// "shop"    payments.shop.svc                payments
	// ""        payments.shop.svc.cluster.local  payments
}

// ExampleScoper_Scope decides which Kubernetes Services a cluster shares with the other
// clusters of the mesh.
func ExampleScoper_Scope() {
	s, err := visibility.CompileScope(&visibility.ScopeConfig{
		ServiceScopeConfigs: []visibility.ServiceScope{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"shared": "true"}},
			Scope:             visibility.Global,
		}},
		ServiceSettings: []visibility.ServiceSetting{{
			Settings: visibility.ServiceSettingValues{ClusterLocal: true},
			Hosts:    []string{"*.internal-only.svc.cluster.local"},
		}},
	})
	if err != nil {
		panic(err)
	}
	shared := labels.Set{"shared": "true"}
	fmt.Println(s.Scope(shared, nil, "web.shop.svc.cluster.local"))
	fmt.Println(s.Scope(labels.Set{}, nil, "web.other.svc.cluster.local"))
	fmt.Println(s.Explain(shared, nil, "vault.internal-only.svc.cluster.local").Reason)
	// Output:
	// GLOBAL
	// LOCAL
	// serviceScopeConfigs[0] makes it GLOBAL, but vault.internal-only.svc.cluster.local is cluster-local (serviceSettings[0] host *.internal-only.svc.cluster.local), and local wins
}

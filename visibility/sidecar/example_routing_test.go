package sidecar_test

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

func kube(ns, name string, created int, ports ...uint32) inventory.Service {
	return inventory.Service{Kind: inventory.KubernetesService, Namespace: ns, Name: name, Hosts: []string{name + "." + ns + ".svc.cluster.local"},
		CreationTime: at(created), Ports: ports}
}

func rule(ns, name, host string, created int, subsets ...string) inventory.DestinationRule {
	r := inventory.DestinationRule{Namespace: ns, Name: name, Host: host, CreationTime: at(created)}
	for _, s := range subsets {
		r.Subsets = append(r.Subsets, inventory.Subset{Name: s, Labels: map[string]string{"version": s}})
	}
	return r
}

func printRule(p sidecar.Proxy, host string) {
	r := p.Rules[host]
	if r == nil {
		fmt.Printf("%s: no DestinationRule\n", host)
		return
	}
	fmt.Printf("%s: %s, subsets %v\n", host, strings.Join(r.From, " + "), r.Subsets)
}

// A VirtualService's destination brings the service of the proxy's own namespace, even one
// not exported to it: reviews is exported to payments only, yet shop's proxies get it,
// because shop's VirtualService ratings routes to it.
func ExampleView_Proxy_virtualServiceDestination() {
	reviews := kube("shop", "reviews", 1, 9080)
	reviews.ExportTo = []string{"payments"} // not exported to shop itself
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "payments": nil},
		Services:   []inventory.Service{reviews},
		Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "default", CreationTime: at(1),
			Egress: []inventory.Egress{{Hosts: []string{"./ratings.shop.svc.cluster.local"}}}}},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "ratings", CreationTime: at(2),
			Hosts: []string{"ratings.shop.svc.cluster.local"},
			HTTP:  []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "reviews"}}}}}},
	}
	v, err := sidecar.New(nil, &inv)
	if err != nil {
		panic(err)
	}
	for _, s := range v.Proxy("shop", nil).Services {
		fmt.Printf("%s from %s/%s, brought by VirtualService %s\n", s.Host, s.Namespace, s.Name, s.AddedBy)
	}
	// Output:
	// reviews.shop.svc.cluster.local from shop/reviews, brought by VirtualService shop/ratings
}

// When rules for one host stay separate, the youngest without a workloadSelector is the one
// a proxy gets: here the two have different exportTo, so istiod does not merge them, and it
// takes the last.
func ExampleView_Proxy_youngestRuleWins() {
	older, younger := rule("shop", "old", "reviews.shop.svc.cluster.local", 1, "v1"), rule("shop", "new", "reviews.shop.svc.cluster.local", 2, "v2")
	older.ExportTo, younger.ExportTo = []string{"*"}, []string{"."}
	inv := inventory.Inventory{
		Namespaces:       map[string]map[string]string{"shop": nil},
		Services:         []inventory.Service{kube("shop", "reviews", 0, 9080)},
		DestinationRules: []inventory.DestinationRule{older, younger},
	}
	v, err := sidecar.New(nil, &inv)
	if err != nil {
		panic(err)
	}
	printRule(v.Proxy("shop", nil), "reviews.shop.svc.cluster.local")
	// Output:
	// reviews.shop.svc.cluster.local: shop/new, subsets [v2]
}

// A later rule without a workloadSelector and with exportTo ["."] merges into an earlier
// workload-selected rule of its namespace (a selected rule is exported to its namespace
// only, so the two have the same exportTo): the selected workloads get both rules' subsets,
// and every other workload gets no rule at all. Lint says so.
func ExampleView_Proxy_catchAllMergedIntoSelected() {
	canary := rule("shop", "canary", "reviews.shop.svc.cluster.local", 1, "canary")
	canary.WorkloadSelector = map[string]string{"track": "canary"}
	all := rule("shop", "all", "reviews.shop.svc.cluster.local", 2, "v1", "v2")
	all.ExportTo = []string{"."}
	inv := inventory.Inventory{
		Namespaces:       map[string]map[string]string{"shop": nil},
		Services:         []inventory.Service{kube("shop", "reviews", 0, 9080)},
		DestinationRules: []inventory.DestinationRule{canary, all},
	}
	v, err := sidecar.New(nil, &inv)
	if err != nil {
		panic(err)
	}
	printRule(v.Proxy("shop", labels.Set{"track": "canary"}), "reviews.shop.svc.cluster.local")
	printRule(v.Proxy("shop", labels.Set{"app": "web"}), "reviews.shop.svc.cluster.local")
	for _, f := range v.Lint() {
		if f.Code == sidecar.CatchAllRuleMerged {
			fmt.Println(f.Code, f.Path)
		}
	}
	// Output:
	// reviews.shop.svc.cluster.local: shop/canary + shop/all, subsets [canary v1 v2]
	// reviews.shop.svc.cluster.local: no DestinationRule
	// CatchAllRuleMerged DestinationRule shop/all
}

// defaultDestinationRuleExportTo takes effect only as ["."]: with ["payments"] a rule
// without an exportTo stays exported to every namespace, as if the default were unset.
func ExampleView_Proxy_defaultDestinationRuleExportTo() {
	inv := inventory.Inventory{
		Namespaces:       map[string]map[string]string{"shop": nil, "payments": nil, "web": nil},
		Services:         []inventory.Service{kube("shop", "reviews", 0, 9080)},
		DestinationRules: []inventory.DestinationRule{rule("shop", "reviews", "reviews.shop.svc.cluster.local", 1, "v1")},
	}
	for _, def := range [][]string{{"payments"}, {"."}} {
		v, err := sidecar.New(&mesh.Config{DefaultDestinationRuleExportTo: def}, &inv)
		if err != nil {
			panic(err)
		}
		fmt.Printf("default %q, a proxy of web: ", def)
		printRule(v.Proxy("web", nil), "reviews.shop.svc.cluster.local")
	}
	// Output:
	// default ["payments"], a proxy of web: reviews.shop.svc.cluster.local: shop/reviews, subsets [v1]
	// default ["."], a proxy of web: reviews.shop.svc.cluster.local: no DestinationRule
}

// A rule applies only from the proxy's namespace, the service's namespace and the root
// namespace, whatever its exportTo: a rule in ops exported to web never reaches web's proxies
// for a service of shop.
func ExampleView_ExplainHost_ruleOutOfReach() {
	r := rule("ops", "reviews", "reviews.shop.svc.cluster.local", 1, "v1")
	r.ExportTo = []string{"web"}
	inv := inventory.Inventory{
		Namespaces:       map[string]map[string]string{"shop": nil, "ops": nil, "web": nil},
		Services:         []inventory.Service{kube("shop", "reviews", 0, 9080)},
		DestinationRules: []inventory.DestinationRule{r},
	}
	v, err := sidecar.New(nil, &inv)
	if err != nil {
		panic(err)
	}
	e := v.ExplainHost("web", nil, "reviews.shop.svc.cluster.local")
	fmt.Println(e.Rule == nil)
	fmt.Printf("%s: %s: %s\n", e.Rules[0].Object, e.Rules[0].Verdict, e.Rules[0].Reason)
	// Output:
	// true
	// ops/reviews: hidden: a rule of ops applies only to proxies of ops and to services of ops (the root namespace's apply to every namespace); the proxy is in web and the service in shop, whatever its exportTo
}

// reviews.default is kept as written — Istio expands only names without a dot — so it never
// matches the Service reviews.default.svc.cluster.local, and Lint says so.
func ExampleView_Lint_shortHost() {
	inv := inventory.Inventory{
		Namespaces:       map[string]map[string]string{"default": nil},
		Services:         []inventory.Service{kube("default", "reviews", 0, 9080)},
		DestinationRules: []inventory.DestinationRule{rule("default", "reviews", "reviews.default", 1, "v1")},
	}
	v, err := sidecar.New(nil, &inv)
	if err != nil {
		panic(err)
	}
	printRule(v.Proxy("default", nil), "reviews.default.svc.cluster.local")
	for _, f := range v.Lint() {
		fmt.Println(f)
	}
	// Output:
	// reviews.default.svc.cluster.local: no DestinationRule
	// WARNING ShortHostNeverMatches DestinationRule default/reviews: host "reviews.default" is kept as written (Istio expands only names without a dot): it never matches reviews.default.svc.cluster.local
}

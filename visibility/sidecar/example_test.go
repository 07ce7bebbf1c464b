package visibility_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
)

func at(hour int) time.Time { return time.Date(2026, 1, 1, hour, 0, 0, 0, time.UTC) }

func entry(ns, name, host string, created int, exportTo ...string) visibility.Service {
	return visibility.Service{Kind: visibility.ServiceEntry, Namespace: ns, Name: name, Hosts: []string{host},
		CreationTime: at(created), ExportTo: exportTo, Ports: []uint32{443}}
}

func printProxy(p visibility.ProxyView) {
	fmt.Printf("Sidecar %q\n", p.Sidecar)
	for _, s := range p.Services {
		fmt.Printf("  %s from %s %s/%s %v\n", s.Host, s.Kind, s.Namespace, s.Name, s.Ports)
	}
}

// A service exported to the proxy's namespace by name beats an older public one: Istio
// considers the services exported to a namespace by name before the public ones.
func ExampleSidecarView_Proxy() {
	inv := visibility.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil, "partner": nil},
		Services: []visibility.Service{
			entry("ext", "api", "api.example.com", 1, "*"),        // public, older
			entry("partner", "api", "api.example.com", 2, "shop"), // exported to shop by name
		},
	}
	v, err := visibility.NewSidecarView(nil, nil, inv)
	if err != nil {
		panic(err)
	}
	printProxy(v.Proxy("shop", nil))
	printProxy(v.Proxy("ext", nil))
	// Output:
	// Sidecar ""
	//   api.example.com from ServiceEntry partner/api [443]
	// Sidecar ""
	//   api.example.com from ServiceEntry ext/api [443]
}

// "~/*" beside "*/*" empties the listener: an exclusion beats any import, and "~/*"
// excludes every host of every namespace. Lint says so.
func ExampleSidecarView_Proxy_excludeEverything() {
	inv := visibility.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []visibility.Service{entry("ext", "api", "api.example.com", 1)},
		Sidecars: []visibility.Sidecar{{Namespace: "shop", Name: "default",
			Egress: []visibility.SidecarEgress{{Hosts: []string{"*/*", "~/*"}}}}},
	}
	v, err := visibility.NewSidecarView(nil, nil, inv)
	if err != nil {
		panic(err)
	}
	printProxy(v.Proxy("shop", nil))
	for _, f := range v.Lint() {
		fmt.Println(f.Code, f.Path)
	}
	// Output:
	// Sidecar "shop/default"
	// ImportExcluded Sidecar shop/default egress[0].hosts[0]
}

// Discovery selectors hide the root namespace's default Sidecar too: istio-system is not
// discovered, so its Sidecar does not exist for istiod, and shop's proxies import */* of
// what is discovered.
func ExampleSidecarView_Proxy_discoverySelectors() {
	inv := visibility.Inventory{
		Namespaces: map[string]map[string]string{
			"shop": {"mesh": "yes"}, "ext": {"mesh": "yes"}, "istio-system": {}},
		Services: []visibility.Service{entry("ext", "api", "api.example.com", 1), entry("shop", "db", "db.example.com", 1)},
		Sidecars: []visibility.Sidecar{{Namespace: "istio-system", Name: "default",
			Egress: []visibility.SidecarEgress{{Hosts: []string{"./*"}}}}},
	}
	all, _ := visibility.NewSidecarView(nil, nil, inv)
	printProxy(all.Proxy("shop", nil))
	m := &visibility.MeshScope{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"mesh": "yes"}}}}
	some, err := visibility.NewSidecarView(nil, m, inv)
	if err != nil {
		panic(err)
	}
	fmt.Println("istio-system discovered:", some.Discovered("istio-system"))
	printProxy(some.Proxy("shop", nil))
	// Output:
	// Sidecar "istio-system/default"
	//   db.example.com from ServiceEntry shop/db [443]
	// istio-system discovered: false
	// Sidecar ""
	//   api.example.com from ServiceEntry ext/api [443]
	//   db.example.com from ServiceEntry shop/db [443]
}

// An exact-host import looks only at the oldest service of that host in that namespace:
// ext's older api is exported to ext alone, so shop gets nothing for "ext/api.example.com"
// though ext's younger api-v2 is public. "ext/*" would have found it.
func ExampleSidecarView_ExplainHost() {
	inv := visibility.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []visibility.Service{entry("ext", "api", "api.example.com", 1, "."), entry("ext", "api-v2", "api.example.com", 2, "*")},
		Sidecars: []visibility.Sidecar{{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"},
			Egress: []visibility.SidecarEgress{{Hosts: []string{"ext/api.example.com"}}}}},
	}
	v, err := visibility.NewSidecarView(nil, nil, inv)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.ExplainHost("shop", labels.Set{"app": "web"}, "api.example.com"))
	fmt.Println(v.ExplainHost("shop", nil, "api.example.com").Answer.Name)
	// Output:
	// api.example.com for a proxy in shop with app=web: Sidecar shop/web (the oldest Sidecar of shop whose workloadSelector matches the workload); the proxy does not get the host
	//   egress[0] (ext/api.example.com):
	//     ServiceEntry ext/api-v2: outranked: every import of the listener is an exact host of a named namespace, so it looks only at the oldest service of api.example.com in ext: ServiceEntry ext/api
	//     ServiceEntry ext/api: hidden: its exportTo ["."] does not export it to shop
	// api-v2
}

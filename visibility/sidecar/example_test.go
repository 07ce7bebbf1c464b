package sidecar_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

func at(hour int) time.Time { return time.Date(2026, 1, 1, hour, 0, 0, 0, time.UTC) }

func entry(ns, name, host string, created int, exportTo ...string) inventory.Service {
	return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: []string{host},
		CreationTime: at(created), ExportTo: exportTo, Ports: []uint32{443}}
}

func printProxy(p sidecar.Proxy) {
	fmt.Printf("Sidecar %q\n", p.Sidecar)
	for _, s := range p.Services {
		fmt.Printf("  %s from %s %s/%s %v\n", s.Host, s.Kind, s.Namespace, s.Name, s.Ports)
	}
}

// A service exported to the proxy's namespace by name beats an older public one: Istio
// considers the services exported to a namespace by name before the public ones.
func ExampleView_Proxy() {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil, "partner": nil},
		Services: []inventory.Service{
			entry("ext", "api", "api.example.com", 1, "*"),        // public, older
			entry("partner", "api", "api.example.com", 2, "shop"), // exported to shop by name
		},
	}
	v, err := sidecar.New(nil, &inv)
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
func ExampleView_Proxy_excludeEverything() {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []inventory.Service{entry("ext", "api", "api.example.com", 1)},
		Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "default",
			Egress: []inventory.Egress{{Hosts: []string{"*/*", "~/*"}}}}},
	}
	v, err := sidecar.New(nil, &inv)
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
func ExampleView_Proxy_discoverySelectors() {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{
			"shop": {"mesh": "yes"}, "ext": {"mesh": "yes"}, "istio-system": {}},
		Services: []inventory.Service{entry("ext", "api", "api.example.com", 1), entry("shop", "db", "db.example.com", 1)},
		Sidecars: []inventory.Sidecar{{Namespace: "istio-system", Name: "default",
			Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
	}
	all, _ := sidecar.New(nil, &inv)
	printProxy(all.Proxy("shop", nil))
	m := &mesh.Config{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"mesh": "yes"}}}}
	some, err := sidecar.New(m, &inv)
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
func ExampleView_ExplainHost() {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []inventory.Service{entry("ext", "api", "api.example.com", 1, "."), entry("ext", "api-v2", "api.example.com", 2, "*")},
		Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"},
			Egress: []inventory.Egress{{Hosts: []string{"ext/api.example.com"}}}}},
	}
	v, err := sidecar.New(nil, &inv)
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

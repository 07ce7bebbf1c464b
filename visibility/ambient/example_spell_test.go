package ambient_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Who gets each changed answer, spelt out: shop keeps its own entry, so every other
// namespace loses it.
func ExampleAudit_Clients() {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "web": nil},
		Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "orders-db", Hosts: []string{"db.orders.internal"},
			Resolution: inventory.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"db.orders.internal": {netip.MustParsePrefix("240.240.0.2/32")}}}},
	}
	after := &mesh.Config{Visibility: &visibility.Config{DefaultVisibility: visibility.Namespace}}
	audit, err := ambient.Diff(nil, after, inv)
	if err != nil {
		panic(err)
	}
	for _, h := range audit.Hosts {
		fmt.Printf("%s for %s: %v -> %v\n", h.Key.Query, audit.Clients(h.Key), h.Before, h.After)
	}
	// Output:
	// db.orders.internal for every namespace but shop: ServiceEntry shop/orders-db -> <nil>
}

// In 1.28 a client outside both namespaces gets one of two ServiceEntries of a host, the
// inventory does not say which: the answer says so rather than guess. From 1.29 it gets the
// older.
func ExampleAnswer_Got() {
	se := func(ns string, created int) inventory.Service {
		return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: "api", Hosts: []string{"api.example.com"},
			Addresses: []netip.Prefix{netip.MustParsePrefix(fmt.Sprintf("240.0.0.%d/32", created))}, CreationTime: time.Date(2026, 1, 1, 0, 0, created, 0, time.UTC)}
	}
	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{"a": nil, "b": nil, "c": nil}, Services: []inventory.Service{se("a", 1), se("b", 2)}}
	for _, istio := range []string{"1.28", "1.29"} {
		ix, err := ambient.New(&mesh.Config{Istio: istio}, inv)
		if err != nil {
			panic(err)
		}
		for _, c := range ix.Conflicts() {
			for _, a := range c.Answers {
				fmt.Printf("%s %s %v: %s\n", istio, c.Key, a.Clients, a.Got())
			}
		}
	}
	// Output:
	// 1.28 api.example.com [a]: ServiceEntry a/api
	// 1.28 api.example.com [b]: ServiceEntry b/api
	// 1.28 api.example.com [*]: one of [ServiceEntry a/api ServiceEntry b/api]: the order ztunnel received them in decides
	// 1.29 api.example.com [a *]: ServiceEntry a/api
	// 1.29 api.example.com [b]: ServiceEntry b/api
}

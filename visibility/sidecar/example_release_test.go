package sidecar_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// The dry run of an upgrade from 1.30 to 1.31: the same configuration, one view per release.
// shop's Sidecar excludes db.example.com with "~/…", which 1.30 reads as the literal
// namespace "~" (excluding nothing) and 1.31 as an exclusion; web's Sidecar excludes a
// namespace, which 1.30's validation refuses, so 1.30's view leaves it out and web's proxies
// import everything there.
func ExampleDiff_upgrade() {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "web": nil, "ext": nil},
		Services:   []inventory.Service{entry("ext", "db", "db.example.com", 1, "*"), entry("ext", "api", "api.example.com", 2, "*")},
		Sidecars: []inventory.Sidecar{
			{Namespace: "shop", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~/db.example.com"}}}},
			{Namespace: "web", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~ext/*"}}}},
		},
	}
	view := func(istio string) *sidecar.View {
		m := &mesh.Config{Istio: istio}
		refused := inv.ValidateFor(m.Release())
		for _, r := range refused {
			fmt.Printf("Istio %s refuses %s %s/%s: %s\n", istio, r.Kind, r.Namespace, r.Name, r.Message)
		}
		v, err := sidecar.New(m, inv.Without(refused))
		if err != nil {
			panic(err)
		}
		return v
	}
	before, after := view("1.30"), view("1.31")
	fmt.Println(before.Release(), "→", after.Release())
	for _, c := range sidecar.Diff(before, after) {
		fmt.Printf("%s: %s: %s → %s %v\n", c.Key.Namespace, c.Key.Host, answer(c.Before), answer(c.After), c.Causes)
	}
	// Output:
	// Istio 1.30 refuses Sidecar web/default: invalid namespace value "~ext" in sidecar
	// Istio 1.30 → Istio 1.31
	// shop: db.example.com: ext/db → none [SidecarExclusions]
	// web: api.example.com: ext/api → none [SidecarExclusions]
	// web: db.example.com: ext/db → none [SidecarExclusions]
}

// answer spells what a class of proxies has for a host.
func answer(a *sidecar.Answer) string {
	if a == nil {
		return "none"
	}
	return a.Namespace + "/" + a.Name
}

// A view answers as the release its mesh configuration names: up to 1.30.2 a mesh default
// exportTo naming namespaces alone hides every service without its own exportTo; from
// 1.30.3 it exports them to those namespaces.
func ExampleView_Release() {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []inventory.Service{entry("ext", "api", "api.example.com", 1)},
	}
	for _, istio := range []string{"1.30.2", "1.30.3"} {
		v, err := sidecar.New(&mesh.Config{Istio: istio, DefaultServiceExportTo: []string{"shop"}}, inv)
		if err != nil {
			panic(err)
		}
		fmt.Println(v.Release())
		printProxy(v.Proxy("shop", nil))
	}
	// Output:
	// Istio 1.30.2
	// Sidecar ""
	// Istio 1.30.3
	// Sidecar ""
	//   api.example.com from ServiceEntry ext/api [443]
}

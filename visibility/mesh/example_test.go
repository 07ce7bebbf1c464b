package mesh_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// Load reads every field meshscope uses from the file the mesh configuration is kept in;
// what the file leaves out reads as Istio's default.
func ExampleLoad() {
	m, err := mesh.Load([]byte(`apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    accessLogFile: /dev/stdout
    rootNamespace: mesh-root
    defaultDestinationRuleExportTo: ["."]
    discoverySelectors:
    - matchLabels: {istio-discovery: enabled}
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("root namespace:", m.Root())
	fmt.Println("visibility default:", m.Visibility.DefaultVisibility)
	fmt.Println("discovery selectors:", len(m.DiscoverySelectors))
	fmt.Println("rules exported to:", m.DefaultDestinationRuleExportTo)
	fmt.Println("services exported to:", m.DefaultServiceExportTo, "(nil: every namespace)")
	fmt.Println("istiod:", m.Discovery())
	// Output:
	// root namespace: mesh-root
	// visibility default: NAMESPACE
	// discovery selectors: 1
	// rules exported to: [.]
	// services exported to: [] (nil: every namespace)
	// istiod: istiod.istio-system.svc:15012
}

// A field Istio would silently ignore is an error naming where it is.
func ExampleLoad_misspelt() {
	_, err := mesh.Load([]byte("meshConfig:\n  rootNamespce: mesh-root\n"))
	fmt.Println(err)
	// Output:
	// meshConfig: unknown field "rootNamespce" (did you mean "rootNamespace"? as written, it is ignored)
}

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

// The release an install runs is read where the install writes it; every answer names it,
// and what the release ignores is a finding, not a silent difference.
func ExampleConfig_Release() {
	m, err := mesh.Load([]byte(`# helm install istiod istio/istiod -f values.yaml
global:
  tag: 1.30.3-distroless
compatibilityVersion: "1.29"
meshConfig:
  serviceEntryVisibility:
    defaultVisibility: NAMESPACE
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := m.Release()
	fmt.Println(r)
	fmt.Println("picks the best destination namespace:", r.Has(mesh.DestinationNamespace))
	fmt.Println("visibility applied:", m.AppliedVisibility() != nil)
	for _, f := range m.Findings() {
		fmt.Println(f.Level, f.Code, f.Path)
	}
	fmt.Println("an upgrade to 1.31 changes:", mesh.Differences(r, (&mesh.Config{Istio: "1.31", CompatibilityVersion: "1.29"}).Release()))
	// Output:
	// Istio 1.30.3, compatibilityVersion 1.29 (PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE=false)
	// picks the best destination namespace: false
	// visibility applied: false
	// WARNING IgnoredByRelease serviceEntryVisibility
	// an upgrade to 1.31 changes: [SidecarExclusions ServiceEntryVisibility ExactHostListeners]
}

// A release meshscope does not model is refused, naming those it models.
func ExampleLoad_release() {
	_, err := mesh.Load([]byte("kind: IstioOperator\nspec:\n  tag: 1.27.3\n"))
	fmt.Println(err)
	// Output:
	// spec.tag: Istio "1.27.3" is not a release meshscope models; it models 1.28 (1.28.1 on), 1.29, 1.30 and 1.31
}

// What an upgrade from 1.30.3 to 1.31 can change, as a dry run's header says it.
func ExampleFormatCauses() {
	from, to := (&mesh.Config{Istio: "1.30.3"}).Release(), (&mesh.Config{Istio: "1.31"}).Release()
	fmt.Printf("%s -> %s: %s\n", from, to, mesh.FormatCauses(mesh.Differences(from, to)))
	// Output:
	// Istio 1.30.3 -> Istio 1.31: SidecarExclusions (from 1.31.0), ServiceEntryVisibility (from 1.31.0), ExactHostListeners (from 1.31.0)
}

// Package mesh reads Istio's mesh configuration once — every meshConfig field meshscope
// uses — for the views built on it (packages visibility/ambient, visibility/sidecar and
// visibility/scope):
//
//	serviceEntryVisibility          visibility.Config: who sees each ServiceEntry
//	rootNamespace                   the mesh-wide default Sidecar's namespace (istio-system)
//	defaultServiceExportTo          exportTo of services that give none (["*"])
//	defaultVirtualServiceExportTo   … of VirtualServices (["*"])
//	defaultDestinationRuleExportTo  … of DestinationRules (Istio applies only ["."])
//	discoverySelectors              which namespaces istiod sees (all)
//	serviceScopeConfigs             which Kubernetes Services a cluster shares (none)
//	serviceSettings                 cluster-local hosts
//	defaultConfig.discoveryAddress  istiod's address, whose host stays cluster-local
//
// Load reads them from every file the configuration is kept in — an IstioOperator, the
// istio ConfigMap, Helm values, a meshConfig or a bare serviceEntryVisibility block — as
// strictly as visibility.LoadConfig reads the block: for example
//
//	apiVersion: install.istio.io/v1alpha1
//	kind: IstioOperator
//	spec:
//	  meshConfig:
//	    rootNamespace: mesh-root
//	    discoverySelectors:
//	    - matchLabels: {istio-discovery: enabled}
//	    serviceEntryVisibility:
//	      defaultVisibility: NAMESPACE
//
// gives a Config with RootNamespace "mesh-root", one discovery selector and the visibility
// block, every other field empty (Istio's default). A misspelt field name such as
// rootNamespce, which Istio would silently ignore, is an error naming its path, and so is a
// field set in two places. The one Config is then handed to every view:
//
//	m, err := mesh.Load(meshYAML)
//	inv, err := inventory.Load(dumpYAML, "cluster.local")
//	v, err := sidecar.New(m, inv)
//
// A Config built in Go is checked by Validate, which every view calls.
package mesh

// Package scope answers, as Istio does, which Kubernetes Services a cluster shares with the
// other clusters of a multicluster mesh: the scope meshConfig.serviceScopeConfigs gives a
// service (LOCAL or GLOBAL), and the hosts meshConfig.serviceSettings and Istio's defaults
// keep cluster-local.
//
// A Scoper is built from the mesh configuration and the cluster's objects, each read once
// by its own package:
//
//	m, err := mesh.Load(meshYAML)                     // serviceScopeConfigs, serviceSettings, defaultConfig.discoveryAddress
//	inv, err := inventory.Load(dump, "cluster.local") // namespaces with their labels, Services, the cluster domain
//	s, err := scope.New(m, inv)
//	for _, svc := range s.Services() { … }             // every Kubernetes Service with its scope
//
// # Which services are GLOBAL
//
// Istio evaluates serviceScopeConfigs only when istiod runs with
// AMBIENT_ENABLE_MULTI_NETWORK=true, which is off by default: without that flag every
// service stays in its cluster whatever the configuration says. When the mesh
// configuration's release sets the flag (mesh.Config.PilotEnv, which mesh.Load reads from
// the install's env or pilot.env), a Scoper honours it: false makes every service LOCAL
// (Explain says why). When it does not say, what a Scoper answers is what the configuration
// does once the flag is on. A service is GLOBAL when some config
// with scope GLOBAL has both selectors matching — its namespace's labels and its own — and
// LOCAL otherwise. An absent or empty selector matches everything, the order of the configs
// does not matter, and a LOCAL config never overrides a GLOBAL match (it changes nothing:
// LOCAL is the default). A service whose namespace is not known — no Namespace object in
// the inventory; nil namespace labels for Scoper.Scope — is LOCAL: Istio skips every config
// for it. ServiceEntries are not scoped. For example, with
//
//	serviceScopeConfigs:
//	- namespaceSelector: {matchLabels: {shared: "true"}}
//	  servicesSelector: {matchLabels: {export: "true"}}
//	  scope: GLOBAL
//
// the Service orders/api labelled export=true, in a namespace labelled shared=true, is
// GLOBAL; orders/db (not labelled) and billing/api (its namespace not labelled) are LOCAL.
//
// # Cluster-local hosts
//
// A GLOBAL service is shared only when its host is not cluster-local: local wins. Istio
// names a Kubernetes Service's host <name>.<namespace>.svc.<cluster domain>, and the
// cluster domain is the inventory's (inventory.Inventory.ClusterDomain). serviceSettings
// mark hosts cluster-local (clusterLocal: true) or not. For a host the exact pattern
// decides, else the longest wildcard (*.shop.svc.cluster.local, or a partial one such as
// *-canary.shop.svc.cluster.local, or "*" alone), and a pattern given twice takes the
// later setting. Patterns match exactly as written: Istio folds no case and keeps a
// trailing dot, so Web.Shop.svc.cluster.local matches no service.
//
// Istio keeps three hosts cluster-local by default: *.kube-system.svc.<domain>,
// kubernetes.default.svc.<domain>, and the host of defaultConfig.discoveryAddress —
// istiod.istio-system.svc.<domain> unless the mesh configuration names another address
// (mesh.Config.Discovery); .<domain> is appended to that host unless it already ends with
// <domain>. A clusterLocal: false setting drops a default only when one of its hosts equals
// an exact default or, for *.kube-system.svc.<domain>, ends with .kube-system.svc.<domain>:
//
//	serviceSettings:
//	- settings: {clusterLocal: false}
//	  hosts: [metrics.kube-system.svc.cluster.local]   # drops the whole *.kube-system default
//	- settings: {clusterLocal: false}
//	  hosts: [kube-system.svc.cluster.local]           # the bare parent: drops nothing
//
// With the first setting and a config making every service GLOBAL, kube-dns in kube-system
// is shared with the other clusters; with the second alone it stays LOCAL. A dropped
// default stays dropped even when a later setting marks one of its hosts cluster-local
// again; a default that remains wins over a setting of exactly its pattern.
//
// # Explaining, linting, comparing
//
// Scoper.Explain names the config that matched, and the default or setting that decided
// cluster-locality (or the setting that dropped the default that would have). Scoper.Lint
// reports what cannot do what it seems to: configs that never match, LOCAL configs, host
// patterns a later setting overrides, setting hosts that match no service as written, and
// settings that do not do to Istio's defaults what they seem to. Diff(before, after) lists
// the services whose scope differs between two Scopers — one inventory under two mesh
// configurations, or two inventories — each a Change.
//
// # Fidelity
//
// Scoper agrees with Istio's own code on every answer recorded in
// testdata/istio-scope.json, each a random mesh configuration and services scoped under it. Where meshscope differs, it refuses rather than answers:
// mesh.Load refuses what Istio would misread silently — a misspelt field such as
// match_labels (Istio drops it, leaving a selector that matches everything), an In
// requirement without values (Istio skips the config) and a scope number other than 0 and
// 1 (Istio reads it as LOCAL); a lower-case scope name is refused by both. New refuses an
// inventory whose Kubernetes Service carries a host other than the one Istio gives it,
// rather than decide the scope of a host the cluster does not have.
//
// New compiles every selector once; Scope does not allocate, and New decides the scope of
// every Service of the inventory in one pass.
package scope

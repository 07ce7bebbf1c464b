// Package visibility implements ServiceEntry visibility: a mesh administrator's rules that
// decide, from the labels of a ServiceEntry's namespace, which data planes receive the entry.
//
// In Istio a ServiceEntry declares an external (or mesh-internal) service; by default every
// namespace in the mesh can discover and reach it. With meshConfig.serviceEntryVisibility an
// administrator narrows that without touching the entries:
//
//	serviceEntryVisibility:
//	  defaultVisibility: NAMESPACE      # entries are private to their namespace...
//	  policies:
//	  - visibility: PUBLIC              # ...unless the namespace is a platform team's
//	    matchingRules:
//	    - namespaceSelector:
//	        matchLabels: {team: platform}
//	  - visibility: NONE                # sandboxes publish nothing at all
//	    matchingRules:
//	    - namespaceSelector:
//	        matchExpressions: [{key: env, operator: In, values: [sandbox]}]
//
// # Resolution
//
// The policies are tried in order and the first whose rules all select the entry's namespace
// decides (rules are ANDed; a policy without rules matches every namespace; an empty selector
// {} matches every namespace). If none matches, the default applies. With the configuration
// above, an entry in a namespace labelled team=platform is PUBLIC, one labelled env=sandbox is
// NONE and every other is NAMESPACE. The decision depends only on the labels of the entry's
// own namespace; a namespace that does not exist has no labels. Kubernetes Services are not
// subject to policies: they are always PUBLIC. Without the block (a nil Config) the feature is
// inert: everything is PUBLIC and no status is written.
//
//	PUBLIC     every client namespace sees the entry
//	NAMESPACE  only clients in the entry's namespace see it; for the rest it does not exist
//	NONE       no data plane receives it
//
// LoadConfig reads the block from real files — a bare block, a meshConfig, Helm values, an
// IstioOperator or the istio ConfigMap — strictly: an unknown field is an error naming its
// path, where Istio would drop it and turn a misspelt match_labels into a selector that
// matches every namespace. Compile validates the configuration, reporting every problem with
// its path, converts each selector once, and returns a Resolver that answers Resolve without
// allocating. Explain says which policy decided and which rule stopped each of the others;
// Lint finds policies that can never decide.
//
// # Sidecars, gateways and waypoints
//
// For sidecars and gateways a ServiceEntry's own exportTo decides who sees it. With
// applyToSidecars set, visibility narrows that list and never widens it: the effective scope
// is exportTo ∩ visibility (EffectiveExportTo, ExportedTo). For example an entry exported to
// ["*"] with visibility NAMESPACE is effectively exported to ["."]; one exported to ["infra"]
// (not its own namespace) with visibility NAMESPACE is exported to no one.
//
// A waypoint from another namespace may not serve a NAMESPACE entry, and no waypoint serves a
// NONE entry (WaypointBinding). Every ServiceEntry gets the status condition
// istio.io/VisibilityApplied naming its visibility and the deciding policy (Condition).
//
// Visibility is not authorization: a hidden entry's resource is still readable and a client
// that knows the address can still connect to it as unknown traffic. Use an authorization
// policy to decide who may connect.
//
// # The views
//
// Visibility is one of the things that decide what a proxy receives. The views built on this
// package answer the rest, each from the mesh configuration (package visibility/mesh reads
// every field meshscope uses, this block included) and the cluster's objects (package
// visibility/inventory):
//
//   - visibility/ambient: what ztunnel answers a client namespace's DNS query or connection
//     (hidden means absent), hosts and addresses claimed in several namespaces, and the audit
//     of a change of configuration;
//   - visibility/sidecar: what an Envoy sidecar or gateway receives (Sidecar egress, exportTo
//     narrowed by visibility, discovery selectors, VirtualServices and DestinationRules);
//   - visibility/scope: which Kubernetes Services a cluster shares with the others of a
//     multicluster mesh.
//
// # Input, errors and which strings are contracts
//
// LoadConfig reads YAML or JSON strictly: a key given twice, an unknown field (with a "did
// you mean" hint), a value of the wrong type or an ambiguous YAML 1.1 scalar is an error
// naming its path in the input (and the object it is in), and input that holds nothing of
// what was asked is an error saying what it does hold.
// Every error is a FieldError (or several joined, all reported at once), wrapping
// ErrNoMeshConfig or ErrDuplicate where a caller may branch.
//
// Resolver.Lint (the configuration alone) and Resolver.LintNamespaces (against a cluster's
// namespaces and entries) report in one shape, Finding: the path of what a finding is about,
// its code (Shadowed, SelectorMatchesNoNamespace, …), the level the code gives it (note:
// changes nothing; warning: very likely a mistake; error: the configuration does something
// other than what it says) and a message — the shape every lint of meshscope reports in.
//
// Contracts — strings that stay as they are: the visibility names (PUBLIC, NAMESPACE,
// NONE), the condition types and reasons (istio.io/VisibilityApplied,
// istio.io/WaypointBound, Public, Namespace, None, WaypointAccepted,
// CrossNamespaceWaypointForbidden, NotDelivered), the finding codes, and the JSON field names
// of every result. Diagnostics — the wording of errors, condition messages, findings,
// explanations and String methods — may change between versions.
package visibility

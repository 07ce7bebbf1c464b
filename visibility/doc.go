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
// # The data-plane view
//
// NewIndex takes an Inventory — namespaces with their labels, ServiceEntries and Kubernetes
// Services (LoadInventory reads `kubectl get namespaces,serviceentries,services -A -o yaml`)
// — decides every entry once per namespace, and answers what a client workload in a given
// namespace actually sees. Hidden means absent, not blocked:
//
//   - LookupHost: a DNS query for a host no visible service claims is forwarded upstream
//     (false), exactly as for a host the mesh does not know. Among the visible services
//     claiming a host, the client's own namespace's comes first, else the canonical one: a
//     Kubernetes Service, else the oldest PUBLIC entry (then namespace, then name — never
//     input order). The exact host is tried first, then *.b.c, then *.c, so a hidden exact
//     entry falls through to a visible wildcard.
//   - LookupAddress: traffic to an address no visible service claims passes through to its
//     original destination (false); exact addresses first, then CIDRs (own namespace first,
//     then the longest prefix).
//   - SidecarVisible: the sidecar and gateway view, exportTo narrowed by visibility.
//
// For example, if platform/github (PUBLIC) and shop/github-mirror (NAMESPACE) both claim
// api.github.com, clients in shop get the mirror and everyone else gets platform/github; if
// the mirror were NONE, shop would get platform/github too.
//
// ExplainHost and ExplainAddress list every candidate and why it was chosen, hidden (and by
// which policy) or outranked (by which rule); Conflicts lists the hosts and addresses claimed
// in several namespaces with the answer each client namespace gets; Diff audits a change of
// configuration over the same inventory — every entry whose visibility changes, who gains
// or loses it, and every answer that changes — without enforcing anything. Lookups do not
// allocate (a host is normalized on a copy only when it has upper case or a trailing dot),
// the host and address tables are built once, on the first lookup, and no answer depends
// on the order of the inventory.
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
package visibility

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
// Services (LoadInventory reads `kubectl get namespaces,serviceentries,services,sidecars -A
// -o yaml`, the Sidecars for the sidecar view) — decides every entry once per namespace, and answers what a client workload in a given
// namespace actually sees, as ztunnel's DNS proxy and its address lookup do. Hidden means
// absent, not blocked:
//
//   - LookupHost: a DNS query for a host no visible service claims is forwarded upstream
//     (false), exactly as for a host the mesh does not know. Among the visible services
//     claiming a host, the client's own namespace's comes first, else the canonical one: a
//     Kubernetes Service, else the oldest PUBLIC entry (then namespace, then name — never
//     input order). The exact host is tried first, then the *. wildcard at each of its
//     label boundaries, the most specific first (*.b.c, then *.c), so a hidden exact entry
//     falls through to a visible wildcard; *.b.c matches a.b.c but not b.c. That is
//     ztunnel's DNS proxy: a partial wildcard host (*x.b.c, which Istio accepts, and which
//     its sidecars and waypoints match against every host ending in x.b.c) never answers a
//     DNS query, so a query only a partial wildcard covers goes upstream; ExplainHost shows
//     its entries as not reached and says why, and Lint flags them (PartialWildcardDNS).
//   - LookupAddress: traffic to an address no visible service claims passes through to its
//     original destination (false); exact addresses first, then CIDRs (own namespace first,
//     then the longest prefix).
//   - SidecarVisible: the sidecar and gateway view, exportTo narrowed by visibility.
//
// For example, if platform/github (PUBLIC) and shop/github-mirror (NAMESPACE) both claim
// api.github.com, clients in shop get the mirror and everyone else gets platform/github; if
// the mirror were NONE, shop would get platform/github too.
//
// # What the DNS proxy answers: addresses and short names
//
// ztunnel answers only for a service with an address. An entry's addresses are its
// spec.addresses; an entry without any, whose resolution is not NONE (an absent resolution
// is NONE) and whose label networking.istio.io/enable-autoallocate-ip is not "false", uses
// the address Istio allocated for each host (status.addresses), and a wildcard host gets
// none unless the resolution is DYNAMIC_DNS. A Kubernetes Service's addresses are its
// cluster IPs; a headless Service has none and is still answered. An entry with no address
// for the queried host is dropped before visibility and ranking: if none remains, the lookup
// moves to the next wildcard level and finally forwards the query upstream.
//
// A query is tried as given, then as its short-name aliases, the first answer winning. For
// a client in namespace shop and the domain cluster.local:
//
//	db                                      db.shop.svc.cluster.local
//	db.payments                             db.payments.svc.cluster.local
//	db.payments.svc                         db.payments.svc.cluster.local
//	api.example.com.shop.svc.cluster.local  api.example.com, answered as a CNAME to it
//
// The last is what a pod's resolver sends for api.example.com through its search list. The
// search domains are <client ns>.svc.<domain>, svc.<domain> and <domain>, in that order;
// a name reached by stripping one gets its label-count aliases only, and an answer reached
// that way is a CNAME to the stripped name. A client without a namespace has no one-label
// alias. ExplainHost lists every name tried, through which alias, and at each level every
// candidate and its verdict — hidden (by which policy), outranked (by which rule) or without
// an address (verdict "no address", saying why: no spec.addresses and auto-allocation off,
// for example).
//
// ExplainAddress does the same for an address; Conflicts lists the hosts and addresses
// claimed in several namespaces with the answer each client namespace gets; Lint checks the
// configuration against the inventory (selectors that select no namespace, policies that
// decide no entry, exportTo naming an unknown namespace, entries DNS cannot answer). Diff
// audits a change of configuration over the same inventory — every entry whose visibility
// changes, the client namespaces that gain or lose it, and every answer that changes, for
// the entries' hosts and addresses and for those of the inventory that fall through to them
// (a host under a changed wildcard, an address inside a changed CIDR) — without enforcing
// anything. Diff and Conflicts answer for a host as its own name does; they do not follow
// the short-name aliases a lookup tries when the name itself has no answer. A change of an
// answer names its clients exactly: by name, or
// "*" for every namespace (of the inventory or not) but those named by the query's other
// changes and those listed in its Except, whose answer stays. For example, when shop's
// mirror of api.github.com, older than platform/github, becomes PUBLIC, the audit says that
// api.github.com changes for every namespace but platform and shop (whose own entries come
// first), in as many words whatever the cluster's size. NewIndex
// builds the host and address tables eagerly; lookups
// do not allocate (a host is normalized on a copy only when it has upper case or a trailing
// dot), and no answer depends on the order of the inventory.
//
// # Multicluster service scope
//
// meshConfig.serviceScopeConfigs decides which Kubernetes Services a cluster shares with the
// other clusters of the mesh (LoadScope, CompileScope). Istio evaluates it only when istiod
// runs with AMBIENT_ENABLE_MULTI_NETWORK=true, which is off by default: without that flag
// every service stays in its cluster whatever the configuration says, and what Scoper
// answers is what the configuration would do once the flag is on. A service is GLOBAL when
// some config with scope GLOBAL has both selectors matching — its namespace's labels and its
// own — and LOCAL otherwise; an absent or empty selector matches everything, order does not
// matter and a LOCAL config never overrides a GLOBAL match. A service whose namespace is not
// known (no Namespace object in the inventory; nil namespace labels) is LOCAL: Istio skips
// every config for it.
//
// meshConfig.serviceSettings marks hosts cluster-local: for a host the exact pattern
// decides, else the longest wildcard (*.shop.svc.cluster.local, or a partial one such as
// *-canary.shop.svc.cluster.local), and a pattern given twice takes the later setting.
// Patterns match exactly as written: Istio folds no case and keeps a trailing dot, so
// Web.Shop.svc.cluster.local matches no service. Istio keeps three hosts cluster-local by
// default: *.kube-system.svc.<domain>, kubernetes.default.svc.<domain> and the host of
// meshConfig.defaultConfig.discoveryAddress (istiod.istio-system.svc.<domain> unless it says
// otherwise; LoadScope reads it from the same mesh configuration). A clusterLocal: false
// setting drops a default only when one of its hosts equals an exact default or, for
// *.kube-system.svc.<domain>, ends with .kube-system.svc.<domain>: a.kube-system.svc.<domain>
// drops the whole wildcard, the bare kube-system.svc.<domain> drops nothing, and a dropped
// default stays dropped even if a later setting marks one of its hosts cluster-local again.
// Local wins: a service is shared only when it is GLOBAL and its host is not cluster-local.
//
//	serviceScopeConfigs:
//	- namespaceSelector: {matchLabels: {shared: "true"}}
//	  servicesSelector: {matchLabels: {export: "true"}}
//	  scope: GLOBAL
//
// With this, orders/api labelled export=true in a namespace labelled shared=true is GLOBAL,
// every other service LOCAL. Scoper.Explain names the config, and the default or setting
// that decided cluster-locality (or the setting that dropped the default that would have);
// LintScope finds configs that never match, LOCAL configs (which change nothing), host
// patterns a later setting overrides, setting hosts that match no service as written, and
// settings that do not do to Istio's defaults what they seem to; DiffScope lists the
// services whose scope a change flips. ServiceEntries are not scoped. Scoper agrees with
// Istio's own code on every one of 3,000 recorded answers (testdata/istio-scope.json).
// meshscope refuses what Istio would misread silently: a misspelt field such as match_labels
// (Istio drops it, leaving a selector that matches everything), an In requirement without
// values (Istio skips the config) and a scope number other than 0 and 1 (Istio reads it as
// LOCAL); a lower-case scope name is refused by both.
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
// # The sidecar's whole view
//
// exportTo is only part of what an Envoy sidecar receives. SidecarView (NewSidecarView, from
// a Resolver, a MeshScope — meshConfig's rootNamespace, defaultServiceExportTo and
// discoverySelectors, read by LoadMeshScope — and an inventory with its Sidecar resources)
// answers, as istiod's SidecarScope does, which Sidecar applies to a proxy and every host it
// gets, from which namespace and object, with which ports (Proxy), and why for one host
// (ExplainHost). For a proxy in namespace shop labelled app=web:
//
//	apiVersion: networking.istio.io/v1
//	kind: Sidecar
//	metadata: {name: default, namespace: shop}
//	spec:
//	  egress:
//	  - hosts: ["./*", "istio-system/*", "*/api.example.com", "~ext/*.internal.example.com"]
//
// imports every service of shop, every service of istio-system, api.example.com from any
// namespace, and nothing of ext under internal.example.com — of the services exported to shop.
// The rules, in the order istiod applies them:
//
//   - Discovery: with discoverySelectors, only the namespaces whose labels match one exist
//     for istiod — their Services, ServiceEntries and Sidecars; the root namespace is not
//     exempt, so its default Sidecar vanishes with it.
//   - The Sidecar: the oldest of shop whose workloadSelector app=web satisfies, else the
//     oldest of shop without a selector, else the root namespace's oldest without one (read
//     as if it were in shop: "." is shop), else none, which imports "*/*". A root-namespace
//     Sidecar with a selector serves only the root namespace's own proxies.
//   - Each egress listener: an exclusion ("~ext/…", "~/…" for every namespace) beats any
//     import, so "~/*" beside "*/*" empties the listener. When every import is an exact host
//     of a named namespace, the listener looks at the oldest service of each such host in that
//     namespace only, and gets nothing when that one is not exported to shop, however many
//     younger ones are.
//   - One host in several namespaces: shop's own service wins, then a Kubernetes Service,
//     then — surprisingly — a service exported to shop by name before an older public one;
//     across listeners the first choice stands unless a Kubernetes Service displaces a
//     ServiceEntry; services of one namespace merge their ports.
//
// The view holds what Sidecar egress hosts import; istiod also adds the destinations of the
// VirtualServices a listener imports, which an inventory does not hold. Hosts compare as
// Istio's sidecar code compares them, exactly as written. meshscope breaks the one tie Istio
// leaves to input order (two ServiceEntries of a namespace claiming a host at the same
// creation time) by name, and SidecarView.Lint says so; Lint also flags an import an
// exclusion covers, an exact-host import hidden by an older service, a root Sidecar with a
// selector or hidden by discovery, a Sidecar an older one always beats, and listeners Istio's
// validation refuses. DiffSidecars is the dry run of a change to Sidecars, exportTo,
// defaultServiceExportTo, discovery selectors or visibility: per namespace and per workload
// Sidecar, every host added, removed or sent to another namespace's service.
//
// # Input, errors and which strings are contracts
//
// LoadConfig, LoadScope, LoadMeshScope and LoadInventory read YAML or JSON strictly: a key
// given twice, an unknown field (with a "did you mean" hint), a value of the wrong type or an
// ambiguous YAML 1.1 scalar is an error naming its path in the input (and the object it is
// in), and input that holds nothing of what was asked is an error saying what it does hold.
// LoadInventory reads each Namespace, Service, ServiceEntry and Sidecar against its API's
// fields, status and metadata included: a field the API has is accepted whether meshscope
// uses it or not, any other is an error (`items[3] (ServiceEntry shop/github-mirror): spec:
// unknown field "host" (did you mean "hosts"?)`); objects of other kinds are not judged. It
// accepts repeats in a Service's exportTo annotation, which Istio reads as a set. LoadInventory
// decodes what it reads — addresses into netip prefixes, an IP as a /32 or /128 — and makes
// every check NewIndex makes, with the same code: one problem reads
// `items[5] (ServiceEntry shop/api): spec.hosts[0]: …` from the loader and
// `Services[3] (ServiceEntry shop/api): Hosts[0]: …` from NewIndex, each naming the field as
// its input spells it. Every error is a FieldError (or several joined, all reported at once),
// wrapping ErrNoMeshConfig, ErrNoInventory or ErrDuplicate where a caller may branch.
//
// Resolver.Lint, Index.Lint and LintScope report in one shape, Finding: the path of what a
// finding is about, its code (Shadowed, NoAddressForDNS, …), the level the code gives it
// (note: changes nothing; warning: very likely a mistake; error: the configuration does
// something other than what it says) and a message. Diff and DiffScope report in one shape,
// Change: the Key of what changes, its value Before and After, and what it Gained and Lost.
//
// Contracts — strings that stay as they are: the visibility and scope names (PUBLIC,
// NAMESPACE, NONE, LOCAL, GLOBAL), the condition types and reasons (istio.io/VisibilityApplied,
// istio.io/WaypointBound, Public, Namespace, None, WaypointAccepted,
// CrossNamespaceWaypointForbidden, NotDelivered), the finding codes, and the JSON field names
// of every result. Diagnostics — the wording of errors, condition messages, findings,
// explanations and String methods — may change between versions.
package visibility

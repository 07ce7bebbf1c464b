// Package sidecar answers what an Envoy proxy of an Istio mesh receives, as istiod's
// SidecarScope computes it: which Sidecar resource applies to a sidecar, every service host
// it gets (from which namespace and object, with which ports), how each egress listener
// routes them (its VirtualServices — the users' and those istiod makes from Gateway API
// routes —, the one that routes each host, and the route table per port), and the
// DestinationRule it gets for each host (merged from which rules, with which subsets and
// whose traffic policy) — and, for a gateway, the same view as istiod scopes a gateway.
//
// A view is built from the mesh configuration and the cluster's objects, read once each:
//
//	m, err := mesh.Load(meshYAML)                     // the Istio release, rootNamespace, default exportTo of each kind, discoverySelectors, serviceEntryVisibility
//	inv, err := inventory.Load(dump, "cluster.local") // kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml
//	v, err := sidecar.New(m, inv)
//	fmt.Println(v.Release())                          // Istio 1.30.3: the first line of every output
//	p := v.Proxy("shop", labels.Set{"app": "web"})
//	fmt.Println(v.ExplainHost("shop", labels.Set{"app": "web"}, "reviews.shop.svc.cluster.local"))
//
// The rules below are those of the newest release meshscope models (1.31); the section "The
// Istio release" says which earlier releases answer otherwise, and how.
//
// # Services
//
// For a proxy in namespace shop labelled app=web, under
//
//	apiVersion: networking.istio.io/v1
//	kind: Sidecar
//	metadata: {name: default, namespace: shop}
//	spec:
//	  egress:
//	  - hosts: ["./*", "istio-system/*", "*/api.example.com", "~ext/*.internal.example.com"]
//
// the proxy imports every service of shop, every service of istio-system, api.example.com
// from any namespace, and nothing of ext under internal.example.com — of the services
// exported to shop. The rules, in the order istiod applies them:
//
//   - Discovery: with discoverySelectors, only the namespaces whose labels match one exist
//     for istiod — their Services, ServiceEntries, Sidecars, VirtualServices and
//     DestinationRules; the root namespace is not exempt, so its default Sidecar vanishes
//     with it.
//   - The Sidecar: the oldest of shop whose workloadSelector app=web satisfies, else the
//     oldest of shop without a selector, else the root namespace's oldest without one (read
//     as if it were in shop: "." is shop), else none, which imports "*/*". A
//     root-namespace Sidecar with a selector serves only the root namespace's own proxies.
//   - Each egress listener: an exclusion ("~ext/…", "~/…" for every namespace) beats any
//     import, so "~/*" beside "*/*" empties the listener (1.31 on). When every import is an
//     exact host of a named namespace, the listener looks at the oldest service of each such
//     host in that namespace only, and gets nothing when that one is not exported to shop,
//     however many younger ones are (1.31 on). A listener with a port imports only the services that declare
//     that port, with that port alone.
//   - One host in several namespaces: shop's own service wins, then a Kubernetes Service,
//     then — surprisingly — a service exported to shop by name before an older public one;
//     across listeners the first choice stands unless a Kubernetes Service displaces a
//     ServiceEntry; services of one namespace merge their ports.
//
// # VirtualServices
//
// A listener selects, in this order, the VirtualServices private to shop, those exported to
// shop by name, and the public ones (each by creation time; exportTo defaults to the mesh's
// defaultVirtualServiceExportTo; gateways that do not name "mesh" keep one from every
// sidecar): one is selected when one of its hosts matches an import of the listener for the
// VirtualService's own namespace, or of "*/" — exactly, or with a wildcard on either side
// (*.svc.cluster.local matches an exact import, and an exact host a wildcard import). The
// VirtualService that routes a host is the one whose host matches it most specifically (an
// exact host, else the longest wildcard), the first in that order among equals.
//
// Each destination of a selected VirtualService's routes (HTTP routes and mirrors — skipped
// for shop when a match names another sourceNamespace and none names shop — and TCP and TLS
// routes; delegated routes merged as istiod merges them) adds the service of its host when
// the egress hosts did not already bring it: shop's own service of that host — even one not
// exported to shop — else the best one exported to shop (a Kubernetes Service, else the
// oldest; up to 1.29, the one of the alphabetically first namespace). It comes with the listener's port, else the destination's ports (all of them when
// a route gives none); a service that declares ports, none of them those, is not added,
// and one that declares none is added without ports.
//
// # Gateway API routes
//
// An HTTPRoute, GRPCRoute, TCPRoute or TLSRoute whose parentRef is a Service (group "") or a
// ServiceEntry (networking.istio.io) routes the mesh's sidecars: istiod converts it into
// VirtualServices of its own, which the view selects, names and lists beside the users'. For
//
//	apiVersion: gateway.networking.k8s.io/v1
//	kind: HTTPRoute
//	metadata: {name: reviews, namespace: default}
//	spec:
//	  parentRefs: [{group: "", kind: Service, name: reviews, port: 9080}]
//	  rules: [{backendRefs: [{name: reviews-v1, port: 9080, weight: 90}, {name: reviews-v2, port: 9080, weight: 10}]}]
//
// istiod makes default/default~9080~reviews.default.svc.cluster.local: every HTTPRoute and
// GRPCRoute of one namespace for one host and parentRef port merges into one VirtualService
// named <namespace>~[<port>~]<host>, created when the oldest of them was; a TCPRoute or a
// TLSRoute gives <route>~tcp~<n>~istio-autogenerated-k8s-gateway (tls for a TLSRoute) per
// parent and host. Listener.VirtualServices and Listener.Routes name them so; ExplainHost
// names the routes and rules behind one. They carry no exportTo: the mesh's
// defaultVirtualServiceExportTo decides (["."] keeps a route in its namespace, ["~"] hides
// every route). ReferenceGrants do not gate mesh parents.
//
// They are selected per listener as a user's VirtualService is, with istiod's two
// differences: in each list (private, exported by name, public) those made from routes of
// the proxy's own namespace come first — a consumer's route beats an older producer route or
// VirtualService for the consumer's proxies —, and a wildcard host of one (a ServiceEntry
// parent's *.example.com) is taken only when it lies inside an imported host. Their
// destinations add services as a VirtualService's do, with their ports.
//
// Which VirtualService routes a request is decided per port (RouteTable): the proxy's first
// listener with the port, else its one without, makes one virtual host "<host>:<port>" of
// each service it imports whose port Istio routes HTTP on (HTTP, HTTP2, GRPC, GRPC-Web, or a
// port it sniffs), built by the first VirtualService in the listener's order that has an
// HTTP route for the port and the proxy and claims the host; Istio's default route where
// none does; then the catch-all (allow_any, block_all under REGISTRY_ONLY: the Sidecar's
// outboundTrafficPolicy, else the mesh's). A VirtualService made from a route claims a host
// only for proxies of its own namespace or, a producer route, of the service's — and never
// through a wildcard host —, so Listener.Routes, the most specific VirtualService for a host,
// can name one that builds nothing for this proxy:
//
//	v.RouteTable("default", labels.Set{"app": "productpage"}, 9080)
//	// [... {reviews.default.svc.cluster.local:9080 default/default~9080~reviews.default.svc.cluster.local} ... {allow_any }]
//
// RouteStatus gives the status istiod writes on a route — per parent, Accepted and
// ResolvedRefs in its words —, DiffRouteStatus what a change does to it, and Diff the route
// tables' changes (Answer.VirtualHosts). Lint says what Istio leaves surprising: a host
// routed by both a VirtualService and a route (HostRoutedByBoth: Istio calls it undefined),
// a mesh parent that does not exist (RouteParentNotFound), every backend that does not
// resolve (RouteBackendUnresolved: istiod's status names only the last), a parentRef port the
// service lacks (RouteParentPortMissing), a consumer route, which routes only its own
// namespace (ConsumerRouteLocal), a route the mesh default exportTo hides
// (RouteHiddenByExportTo), and a Routes answer that builds no virtual host
// (RoutesAnswerBuildsNothing).
//
// Routes on waypoints (a parent whose service uses a waypoint — istiod leaves those of
// another controller alone) and routes' effect on Gateways' own listeners are not modelled:
// a Gateway parent's VirtualServices are made (and their status written) but no gateway
// answer reads them.
//
// # DestinationRules
//
// istiod merges the rules of a namespace for one host: with the workload-selected rules
// first, then by creation time, a rule with the same exportTo as an earlier one gives it its
// new subsets (and its traffic policy if the earlier one has none) instead of standing
// alone. A workload-selected rule is exported to its namespace only, so a later rule without
// a selector and with exportTo ["."] merges into it: the selected workloads get both, and
// every other workload of the namespace gets no rule at all (Lint: CatchAllRuleMerged). A
// proxy of shop looks a host's rule up in shop's own rules (for the root namespace: its
// private ones), else in the rules the service's namespace exports to shop, else in those
// the root namespace exports to shop — the most specific host in the first pool that has
// one. A rule of any other namespace never applies, whatever its exportTo (Lint:
// RuleOutOfReach). Of the rules found, the proxy gets the first workload-selected one of shop
// whose selector its labels satisfy, else the last without a selector: the youngest wins.
// defaultDestinationRuleExportTo takes effect only when it holds "." (["."]): any other value
// leaves rules without an exportTo exported to every namespace.
//
// Hosts are resolved as Istio resolves them: a host without a dot is
// name.<the resource's namespace>.svc.<cluster domain>; any other is kept as written, so
// reviews.default never matches reviews.default.svc.cluster.local (Lint:
// ShortHostNeverMatches).
//
// # Gateways
//
// Gateway answers for an ingress or egress gateway: no Sidecar ever applies to it; exportTo,
// discovery selectors and serviceEntryVisibility act as for a sidecar of its namespace; per
// host the first service exported to the namespace wins, with no preference for its own (up
// to 1.30.2 its own private services come first among the candidates); and
// VirtualService destinations add nothing. When a sidecar of the gateway's namespace without
// a Sidecar connects first, istiod hands the gateway that sidecar's scope: where that view
// differs, the answer carries a note saying so.
//
// A gateway answers every question a sidecar answers, through the method of the same name
// with Gateway in it:
//
//	v.Gateway("ingress", w)                              // as v.Proxy
//	v.ExplainGatewayHost("ingress", w, "api.example.com") // as v.ExplainHost
//	v.LintGateways()                                     // per class of gateways, as v.Lint per class of sidecars
//	v.GatewayClasses()                                   // as v.Classes: Sidecars never make a gateway class
//	sidecar.DiffGateways(before, after)                  // as sidecar.Diff
//
// LintGateways flags a service of the gateway's own namespace that the gateway does not get
// because another namespace's service of its host came first (GatewayOwnServiceOutranked),
// and the view that changes when a sidecar connects first (GatewayScopeOrderDependent); the
// findings about the configuration itself — Sidecars, rules, hosts — are Lint's.
//
// # Explanations, lint and the dry run
//
// ExplainHost says, for one host, which step kept or dropped each candidate service (not
// discovered, not exported, excluded, not imported, outranked by whom, merged), which
// VirtualService routes it and why each other lost, and which DestinationRule the proxy gets
// and why every other rule of a matching host lost. Lint flags what Istio resolves
// surprisingly, judging routes and rules per class of proxies (Classes) by what each class
// actually gets: a route to a subset the class's rule lacks, a host two VirtualServices give,
// a rule no other namespace can reach, a catch-all merged into a selected rule, a short
// host, "~/*" beside imports, an exact import hidden by an older service, root Sidecars that
// never apply, creation-time ties. Diff is the dry run of a change: per class of proxies,
// every host added, removed, sent elsewhere, routed or ruled otherwise. Answers lists what a
// class has for each host, as Diff compares it; Answer.RoutedBy names what routes a host
// (the route table's VirtualService on each HTTP port) and Answer.String spells an answer
// for a report's line.
//
// meshscope breaks the ties Istio leaves to input order — two ServiceEntries of one
// namespace claiming a host at the same creation time (Lint: CreationTimeTie), and two
// services of one host and age in two namespaces as a VirtualService destination, which
// istiod takes from a map (a note of Proxy: DestinationTie) — by name, and says so.
//
// # The Istio release
//
// A view answers as the Istio release its mesh configuration names (mesh.Config.Istio,
// CompatibilityVersion and PilotEnv, which mesh.Load reads from an IstioOperator or Helm
// values, or a caller sets; none: the newest release meshscope models), and View.Release
// names it for an output's first line. To answer as another release, set it:
//
//	m.Istio, m.CompatibilityVersion = "1.30.3", "1.29"
//	v, err := sidecar.New(m, inv) // answers as 1.30.3 with compatibilityVersion 1.29's flags
//
// Each rule that differs between releases is one mesh.Cause, applied in one place:
//
//   - ServiceEntryVisibility (1.31): before, istiod does not know serviceEntryVisibility, so
//     it narrows nothing (the view compiles mesh.Config.AppliedVisibility; mesh.Config.Findings
//     says the block is ignored), for sidecars and gateways.
//   - DefaultExportToLists (1.30.3): before, a defaultServiceExportTo or
//     defaultVirtualServiceExportTo holding "." makes the objects without their own exportTo
//     private to their namespace (even [".", "*"]), else one holding "*" public, else they are
//     not indexed at all — a default of names alone hides them from every sidecar and gateway
//     (a service still reaches a sidecar of its own namespace as a VirtualService
//     destination). From 1.30.3 the default is read as if the object declared it: "*" public,
//     else "~" hidden, else "." and each name (exportto.DefaultList). A delegate
//     VirtualService's check against its root's namespace, and defaultDestinationRuleExportTo,
//     read the same in every release.
//   - ListenerOrder (1.30.3): before, a listener's candidates are the namespace's own
//     services exported to it first (one whose exportTo names it as "." and by name twice,
//     so Listener.Services repeats it), then those of other namespaces exported to it by name,
//     then the public ones; from 1.30.3 the services exported to it, own or not, in creation
//     order, then the public ones. A sidecar gets the same services either way; a gateway,
//     which takes the first candidate of a host, gets its own namespace's private service
//     over an older one exported to it by name up to 1.30.2.
//   - SidecarExclusions (1.31): before, the validation refuses a Sidecar with an egress host
//     "~ns/…", "~*/…" or "~./…" (New refuses the inventory, in the release's words:
//     inventory.Inventory.ValidateFor), and "~/host" names the literal namespace "~": it
//     imports nothing and excludes nothing, so ["*/*", "~/*"] imports everything up to 1.30
//     and nothing from 1.31, and a VirtualService is not skipped for an excluded host.
//   - ExactHostListeners (1.31): before, every listener considers every service exported to
//     the proxy's namespace; from 1.31 a listener whose imports are all exact hosts of named
//     namespaces looks up only the service istiod indexes per (namespace, host). Sidecars only.
//   - DestinationNamespace (1.30.0, PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE, which
//     compatibilityVersion 1.25–1.29 turns off): a VirtualService destination whose host the
//     sidecar's namespace holds no service of takes a visible Kubernetes Service, else the
//     oldest visible service; before (or with the flag off), the service of the alphabetically
//     first namespace whose service is visible. Sidecars only.
//
// 1.28 and 1.29 answer alike; a release given by its minor alone answers as its recorded
// patch (1.30 as 1.30.3).
//
// # An upgrade's dry run
//
// Two views of one configuration, each answering as a release, give the dry run of an
// upgrade (or a rollback): Diff lists, per class of sidecars, every host whose answer
// changes, and each Change names the causes that change it (Change.Causes, among
// mesh.Differences of the two releases); DiffGateways does the same for gateways. An object
// one release refuses is left out of that release's view and listed as refused by it:
//
//	m.Istio = "1.30"
//	refused := inv.ValidateFor(m.Release()) // a Sidecar with "~shop/*", in 1.30's words
//	before, err := sidecar.New(m, inv.Without(refused))
//	m.Istio = "1.31"
//	after, err := sidecar.New(m, inv)
//	for _, c := range sidecar.Diff(before, after) {
//		fmt.Println(c.Key, c.Causes) // {shop  db.example.com} [SidecarExclusions]
//	}
//
// The causes are read from the record of each view (see "One record per proxy"): while it
// decides for a proxy, the builder notes, per host, each rule that differs between releases
// and took part in the decision — a candidate service or VirtualService whose exportTo
// another release reads otherwise (a mesh default, a visibility), a "~" egress host covering
// it, an exact-host listener holding another service of it, a gateway's candidates of it in
// its own and another namespace, a destination whose two ways of picking a namespace differ —
// and every host of a proxy whose Sidecar one release refuses. So a change between two
// releases of one configuration names at least one cause (the package's tests hold this on
// every recorded case and pair of releases, and on random configurations), and may name one
// that took part without changing it. A mesh configuration one release refuses (mesh.Load's error; istiod
// then runs on its defaults) makes the two configurations differ, and changes that come from
// that alone have no cause.
//
// # One record per proxy
//
// Every answer about a proxy — Proxy, Gateway, ExplainHost, Lint, Classes, Diff — reads one
// record of the decisions istiod makes for it, worked out once per question by one builder
// for a sidecar or a gateway: the Sidecar that applies, each listener's services and
// VirtualServices, the one that routes each host and those it outranks, and each host's
// DestinationRule lookup (the pools consulted, the rules found, the one chosen). An
// explanation asks the builder to keep, for its host, every loser and why it lost, and Diff
// asks it to note the release-dependent rules behind each host; Proxy does neither, and pays
// nothing for them. So an explanation never disagrees with Proxy: both read the same
// decisions.
//
// Compiled views are immutable and safe for concurrent use; building one is linear in the
// inventory, and no proxy's view is worked out until it is asked for.
package sidecar

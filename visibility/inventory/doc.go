// Package inventory reads what a cluster holds, as far as who sees and reaches what in an
// Istio mesh: namespaces and their labels, ServiceEntries and Kubernetes Services, the
// Istio resources that decide what each proxy gets — Sidecars, VirtualServices and
// DestinationRules — and the Gateway API routes istiod turns into VirtualServices of its
// own, with the ReferenceGrants and Gateways it reads beside them. The views
// (visibility/ambient, visibility/sidecar, visibility/scope) answer their questions from an
// Inventory.
//
// # Reading a cluster
//
// Load reads the output of DumpCommand,
//
//	kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml
//
// (or -o json, single objects, several documents; leave out a kind the cluster does not
// serve, for kubectl fails on it) into an Inventory:
//
//	inv, err := inventory.Load(dump, "cluster.local")
//
// A VirtualService such as
//
//	apiVersion: networking.istio.io/v1
//	kind: VirtualService
//	metadata: {name: reviews, namespace: shop}
//	spec:
//	  hosts: [reviews]
//	  http:
//	  - match: [{sourceNamespace: web}]
//	    route:
//	    - destination: {host: reviews, subset: v2}
//	      weight: 90
//	    - destination: {host: reviews, subset: v1}
//	      weight: 10
//
// becomes
//
//	inventory.VirtualService{Namespace: "shop", Name: "reviews", Hosts: []string{"reviews"},
//		HTTP: []inventory.HTTPRoute{{Match: []inventory.HTTPMatch{{SourceNamespace: "web"}},
//			Route: []inventory.Destination{{Host: "reviews", Subset: "v2", Weight: 90}, {Host: "reviews", Subset: "v1", Weight: 10}}}}}
//
// Hosts stay as written: a view resolves the short name reviews to
// reviews.shop.svc.cluster.local. Sidecars, VirtualServices and DestinationRules are read in
// networking.istio.io v1, v1beta1 and v1alpha3 (one schema under three versions); one of
// another API group is another kind of object and is skipped, as are objects of kinds
// Load does not read.
//
// # Strictness
//
// Every field the real API has is accepted, used or not (the status Istio writes too); a
// field it does not have is an error naming the field it most resembles, since a misspelt
// field silently ignored would change the answer:
//
//	items[3] (VirtualService shop/reviews): spec: unknown field "host" (did you mean "hosts"?)
//
// The field lists are held to the upstream Go types (k8s.io/api, istio.io/api) by a test
// built with the tag upstream. Every problem is reported at once, each naming the
// document, the List item, the object and the field as written; errors.As gives each as
// a FieldError. An inventory built in Go is checked by Validate with the same code, naming
// fields as the Go value spells them ("VirtualServices[2] (VirtualService shop/reviews):
// Hosts[0]: …"), and every view validates the inventory it is given.
//
// # Istio's validation
//
// What Istio's validation (its admission webhook, istioctl validate) refuses never reaches
// a cluster, so an object it refuses is refused here too, with Istio's words after the
// field they concern:
//
//	items[7] (VirtualService shop/reviews): spec.hosts[1]: duplicate hosts in virtual service: *.shop.example & api.shop.example
//	items[9] (DestinationRule shop/reviews): spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace
//	items[4] (Sidecar shop/default): spec.egress[0]: sidecar: the egress listener with empty port should be the last listener in the list
//
// Istio joins several problems of one object into one error ("2 errors occurred: …");
// here each is a line of its own, Istio's words as Istio writes them (a test holds them to
// the errors Istio's own validation gave).
//
// Load and Validate hold an inventory to the newest release's validation. An older release
// refuses more: up to 1.30 a Sidecar egress host whose namespace is "~" and a name, "*" or
// "." ("~payments/*", which excludes from 1.31 on) is refused, in that release's words
// (invalid namespace value "~payments" in sidecar); "~/host" names the literal namespace "~"
// in every release. LoadFor reads a dump for a release, refusing such an object as Load
// refuses others, naming its document, item and field. ValidateFor lists what a release
// refuses beyond Validate, in its words and in Istio's multi-error form, and Without leaves
// those objects out: a view for the release refuses such an inventory, and a caller
// comparing releases builds each release's view without them and lists them (a test holds
// ValidateFor to the objects each recorded release refused).
//
// For a VirtualService, the rules checked are:
//
//   - without hosts (a delegate): no gateways, no tls and no tcp routes; its HTTP routes
//     may not delegate further;
//   - the gateways it names, and those of its HTTP matches: namespace/name of two DNS
//     labels, or a domain without "/" (such as mesh) — after which, as in Istio, the
//     names that follow are not checked;
//   - bound to the mesh (no gateways, or mesh among them): no match on a JWT claim
//     header (@request.auth.claims…), and no host "*";
//   - each host a domain whose first label may be a wildcard label, or an IP; when all
//     are valid, no two overlapping (Istio's host matching: *.foo.com and x.foo.com
//     overlap, "*" overlaps every host) — each pair is named, up to ten, then how many
//     more pairs there are;
//   - at least one http, tcp or tls route; each tls and tcp route with destinations;
//   - a root HTTP route (one that delegates) without a route of its own; any other HTTP
//     route without both mirror and mirrors;
//   - each destination of a route, mirror or mirrors entry: a host that is a domain and
//     not "*", a subset name that is a DNS label, a port from 1 to 65535; each route's
//     weight not negative, and, with several destinations, weights that do not sum to 0;
//   - each HTTP match: header names (and the headers of withoutHeaders), a string match
//     that is one of exact, prefix and regex, no empty prefix (but for uri) and no empty
//     regex, regular expressions RE2 accepts of at most 1024 bytes, a port from 1 to
//     65535, source labels as Istio reads labels, a source namespace that is a DNS
//     label; a header match may not be null;
//   - exportTo: "." or "*" or DNS labels, no "~" (Istio allows it on ServiceEntries
//     only), no entry twice ("." being the own namespace), "*" alone.
//
// For a DestinationRule: a host that is a domain (first label may be a wildcard label);
// subsets that are not null, with names that are DNS labels, unique, and labels as Istio
// reads labels; exportTo as a VirtualService's, and, with a workloadSelector (even one
// without labels), naming no namespace but its own; the selector's labels without an empty
// key and without "*".
//
// For a Sidecar, besides its workload selector and each egress listener's port (see Load),
// in Istio's words: a listener without hosts, each host namespace/host (the namespace a
// DNS label, "." or "*", each optionally after "~"; the host "*" or a domain with a dot whose
// wildcard, if any, is a whole first label: no short names, no partial wildcards), a
// listener without a port that is not the last (so also a second one: Istio's "egress can
// have only one listener with empty port" is never reached), two listeners with one port
// number, two unix domain socket listeners (port 0) with one socket; its outbound traffic
// policy's mode is REGISTRY_ONLY or ALLOW_ANY (OutboundTrafficMode; a policy without one is
// REGISTRY_ONLY, as istiod reads it). A Sidecar's ingress listeners, connection pools, egress
// proxy and its egress ports' names, protocols, binds and capture modes are not checked. For
// a ServiceEntry, in Istio's words, its exportTo, with "~" allowed alone, and its hosts: each
// a domain whose first label may be a wildcard label (*.example.com, or partial:
// *x.example.com) and whose top level domain is not a number (db.123 is refused, db.123. is
// not), of at most 255 characters, not "*" alone; its addresses and ports as Load says, and
// each port's protocol one Istio knows ("unsupported protocol: QUIC").
//
// Each service port's protocol is read as Istio reads it (Service.Protocols): a
// ServiceEntry's protocol; a Kubernetes Service port's appProtocol, else its name up to the
// first "-" (http-web is HTTP, grpc-web-ui GRPC-Web), UDP for a UDP port, TCP for an
// unrecognised one on 25, 53, 3306 or 27017, and "" — sniffed — otherwise. A sidecar's route
// table has a virtual host for the ports Istio routes HTTP on (package visibility/sidecar).
//
// Every kind's hosts are checked by one set of rules (internal/hosts), which Istio's
// validation applies with a difference per field: a VirtualService's hosts may also be IPs,
// and "*" unless it is bound to the mesh; a route destination's may not be "*"; a
// DestinationRule's may; a Sidecar's are as above; a legacy gateway name is a domain
// without wildcards.
//
// Istio's rules for these kinds that are not checked, since they concern fields the
// inventory does not read or Istio's own annotations:
//
//   - on every kind: the annotations istio.io/dry-run (only an AuthorizationPolicy may
//     carry it), internal.istio.io/webhook-always-reject, internal.istio.io/parents and
//     internal.istio.io/parent-namespace; a VirtualService's
//     internal.istio.io/route-semantics (Istio sets it on routes it converts from the
//     Gateway API, which relaxes the destination rules; here they always apply);
//   - VirtualService hosts of the form outbound_.<port>_._.<host> on a VirtualService bound
//     to gateways only, which Istio accepts when the VirtualService has TLS SNI matches;
//   - an HTTP route's redirect, directResponse, fault, rewrite, retries, timeout,
//     corsPolicy, headers (and each route destination's headers), mirrorPercent,
//     mirrorPercentage and mirrors[].percentage: their values, and the rules that combine
//     them with a route (a root route with a redirect; route, redirect, direct response,
//     fault and rewrite that exclude one another; an HTTP route needing one of route,
//     redirect and direct response; the authority rewritten twice);
//   - TLS and TCP matches: a TLS route needing a match, each with SNI hosts that are
//     domains and within the VirtualService's hosts, and the destination subnets, port,
//     source labels and gateways of TLS and TCP matches;
//   - a DestinationRule's traffic policies and its subsets' (kept as written, as JSON):
//     at least one field, tunnel and proxyProtocol not together, and the values of the
//     connection pool, load balancer, outlier detection, TLS, port-level settings,
//     tunnel, proxy protocol and retry budget;
//   - Istio's warnings, which refuse nothing (unreachable rules, legacy gateway names,
//     a selector without labels, a ServiceEntry's partial wildcard hosts);
//   - a ServiceEntry's rules across its fields, and those of fields the inventory does not
//     read: at least one host; with resolution DYNAMIC_DNS, wildcard hosts only and no
//     addresses; with resolution DNS and no endpoints, hosts without wildcards; CIDR
//     addresses only with resolution NONE or STATIC; its endpoints, and its ports' names
//     and protocols. (The addresses each host of such an entry gets are still answered as
//     Istio's conversion gives them.)
//
// Where meshscope differs on purpose: an exportTo entry with upper-case letters, which
// Istio accepts but which names no namespace, is refused; so is the ServiceEntry host "*.",
// which Istio accepts but which, hosts comparing without a trailing dot, would cover every
// host as "*" does; two VirtualServices (or two
// DestinationRules) with one namespace and name are refused, since which one counts would
// depend on document order. And a StringMatch cannot tell `exact: ""` and a uri's
// `prefix: ""`, which Istio accepts, from a match without a type.
//
// # Gateway API routes
//
// Load reads HTTPRoutes, GRPCRoutes, TCPRoutes and TLSRoutes (into Routes, one Route type
// for the four kinds), ReferenceGrants and Gateways of gateway.networking.k8s.io from the
// same output, which DumpCommand dumps with the other kinds
//
//	kubectl get …,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml
//
// (gateways.gateway.networking.k8s.io, for Istio has a Gateway kind of its own: a Gateway
// of networking.istio.io is another kind of object, and is skipped, as is a Gateway without
// an apiVersion). Each kind is read in the versions clusters serve it in: HTTPRoute v1 and
// v1beta1; GRPCRoute v1 and v1alpha2; TCPRoute v1 and v1alpha2; TLSRoute v1, v1alpha3 and
// v1alpha2; ReferenceGrant v1, v1beta1 and v1alpha2; Gateway v1 and v1beta1 — one schema
// per kind, held to sigs.k8s.io/gateway-api v1.6.0 by the test built with the tag upstream.
// Another version is an error. A route such as
//
//	apiVersion: gateway.networking.k8s.io/v1
//	kind: HTTPRoute
//	metadata: {name: reviews, namespace: shop}
//	spec:
//	  parentRefs: [{kind: Service, group: "", name: reviews, port: 9080}]
//	  rules:
//	  - backendRefs: [{name: reviews-v1, port: 9080, weight: 90}, {name: reviews-v2, port: 9080, weight: 10}]
//
// is read with what the API server writes for what it leaves out:
//
//	inventory.Route{Kind: inventory.HTTPRouteKind, Namespace: "shop", Name: "reviews",
//		ParentRefs: []inventory.ParentRef{{Kind: "Service", Name: "reviews", Port: 9080}},
//		Rules: []inventory.RouteRule{{Matches: []inventory.RouteMatch{{Path: &inventory.PathMatch{Type: "PathPrefix", Value: "/"}}},
//			BackendRefs: []inventory.BackendRef{{Kind: "Service", Name: "reviews-v1", Port: 9080, Weight: 90}, {Kind: "Service", Name: "reviews-v2", Port: 9080, Weight: 10}}}}}
//
// The defaults: a parentRef's group gateway.networking.k8s.io and kind Gateway (so {kind:
// Service} without group "" is a Gateway API kind Service, which no controller handles — not
// a mesh parent); a backendRef's group "" and kind Service, and weight 1; an HTTPRoute's
// rules one rule, a rule's matches one match of path prefix "/", a match's path type
// PathPrefix and value "/"; header, query parameter and gRPC method match types Exact; a
// mirror fraction's denominator 100; a redirect's status 302; a listener's allowedRoutes the
// Gateway's own namespace, a listener's tls.mode Terminate, an allowed kind's group
// gateway.networking.k8s.io.
//
// What the API server's validation of the CRDs refuses is refused, in its words (checked
// again by Validate for an inventory built in Go):
//
//	items[4] (HTTPRoute shop/reviews): spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference
//	items[4] (HTTPRoute shop/reviews): spec.rules[0].matches[0].path.type: Unsupported value: "Prefix": supported values: "Exact", "PathPrefix", "RegularExpression"
//
// The rules checked are those that concern what istiod reads: the enums (match, path,
// filter, path modifier and listener allowedRoutes types, HTTP methods, a redirect's scheme
// and status code); a reference's (parentRef's, backendRef's, mirror's) name given, its
// namespace a DNS label, its port from 1 to 65535; a weight from 0 to 1000000; a Service
// backend with a port; two parentRefs to one parent differing in sectionName or port, both
// given or neither; hostnames as the schema's pattern; an Exact or PathPrefix path absolute
// and without "//", "/./", "/../", "%2f", "#" and other characters the rule forbids; a gRPC
// method match naming a service or a method (of valid characters when Exact); a filter's
// settings present for its type and for no other; a header modifier, redirect, rewrite or
// CORS filter not repeated, a redirect and a rewrite not together, a redirect not beside
// backendRefs; a mirror with percent or fraction, not both, its numerator at most its
// denominator; an HTTPRoute, TCPRoute and TLSRoute with a rule; a ReferenceGrant with a from
// (with its kind and namespace) and a to (with its kind); a Gateway with a class and
// listeners, each with a name (no two alike), a protocol, a port and a hostname as the
// pattern, and a valid namespace selector.
//
// Not checked: lengths and counts (at most 16 rules, 128 matches of a route, 16 backends,
// 32 parentRefs, …), the patterns of kinds, groups, names and section names, header names,
// regular expressions, the rules of URL rewrites and redirects with a prefix match (exactly
// one PathPrefix match), timeouts, retries, session persistence and CORS settings, a TLSRoute
// v1's one rule and required hostnames, a TCPRoute's or TLSRoute's rule without
// backendRefs (istiod routes it to nothing), and a Gateway's listener rules on TLS
// settings, hostnames of TCP listeners and unique port, protocol and hostname. Two parentRefs
// to one parent that differ only in port are accepted, as the experimental channel's CRDs
// accept them; the standard channel's refuse them. A Route keeps what istiod converts:
// the CORS, ExtensionRef and ExternalAuth filters' settings, a rule's timeouts, retry and
// session persistence, a Gateway's addresses, TLS and infrastructure are read, strictly, and
// not kept. GatewayClass objects are not read.
//
// # Previewing kubectl apply
//
// Apply gives the dump a cluster would hold after `kubectl apply -f FILE…`, for a dry run
// that compares the views of the two dumps:
//
//	after, applied, err := inventory.Apply(inventory.File{Name: "dump.yaml", Data: dump}, "", m.Release(),
//		inventory.File{Name: "route.yaml", Data: route})
//	proposed, err := inventory.Load(after, "cluster.local")
//
// An object without a namespace takes kubectl's -n ("default" when none is given); an
// object replaces the dump's object of its kind, API group, namespace and name (Istio's
// Gateway and the Gateway API's are two kinds), keeping its creation time and status, and a
// new one is created as the youngest object, one second after the youngest creation time of
// the dump. The applied objects are checked as Load checks the dump's, and as the release's
// validation checks them, each problem naming its file, document and item. Apply's
// documentation says what the cluster keeps of a replaced object and what a preview cannot
// know of a new one.
//
// # How a check names a field
//
// Each rule is checked once, by a function that takes the path of its object's spec as a
// fielderr.Path value and builds the path of a field only when it finds a problem there;
// Load runs it on the value it read from an object, with the root
// fielderr.Root(fielderr.Object).Child("spec"), so that a problem names the field as the
// object spells it (spec.http[0].route[1].destination.host), and Validate on a value built
// in Go, with fielderr.Root(fielderr.GoValue), naming it as the Go value does
// (HTTP[0].Route[1].Host). Where the two spell a field apart, the check gives both names in
// the one step (Field("destination", "")). The object itself — "items[5] (ServiceEntry
// shop/api)", "Services[3] (ServiceEntry a/x)" — is named by Load or Validate, once it has
// problems (fielderr.In). A reader of another kind of object follows the same pattern.
//
// # Using an inventory
//
// The views keep the inventory's slices and maps: do not modify an inventory after
// building a view of it. The addresses of a service (Service.AddressesFor,
// Service.AllAddresses) are those ztunnel's DNS proxy answers with. Two details follow
// Istio exactly, where a looser reading would be easy: an address Istio allocated belongs
// to the host whose spelling in spec.hosts is exactly the one status.addresses records
// (db.example.com does not get an allocation recorded for DB.example.com or
// db.example.com.; Service.NoAddressReason says so), and an IPv4 address mapped into IPv6
// (::ffff:10.0.0.1) stays an IPv6 address: it is not 10.0.0.1.
package inventory

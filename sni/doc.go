// Package sni builds, parses and validates the TLS server names (SNI) that a Consul-style
// service mesh uses to route mTLS connections through sidecars and mesh gateways.
//
// A mesh gateway does not terminate the TLS it forwards: it reads the SNI of the client hello
// and routes on it. So the SNI must say, in one DNS name, which service, subset, namespace,
// partition and datacenter (or which peer) a connection is for. The name is built from labels
// joined with ".", ending in the cluster's trust domain (TD below), with a kind label in front
// of the trust domain:
//
//	kind       default partition                          other partition
//	Service    [subset.]svc.ns.dc.internal.TD             [subset.]svc.ns.partition.dc.internal-v1.TD
//	Peered     svc.ns.partition.peer.external.TD          (the partition is always written)
//	Gateway    dc.internal.TD                             partition.dc.internal-v1.TD
//	Query      query.default.dc.query.TD                  (the second label is always "default")
//	PeeringServer  server.dc.peering.TD                   (the servers a peer dials to peer)
//
// For example, in the trust domain 1111.consul:
//
//	Service{Service: "api", Datacenter: "dc1"}                          api.default.dc1.internal.1111.consul
//	Service{Subset: "v2", Service: "api", Datacenter: "dc1"}            v2.api.default.dc1.internal.1111.consul
//	Service{Service: "api", Namespace: "ns", Partition: "p1", ...dc1}   api.ns.p1.dc1.internal-v1.1111.consul
//	Peered{Service: "web", Peer: "east"}                                web.default.default.east.external.1111.consul
//	Gateway{Partition: "p1", Datacenter: "dc1"}                         p1.dc1.internal-v1.1111.consul
//
// # One name, one value
//
// Because the router trusts the SNI, two different values must never give the same name. The
// builders do not escape, so this holds only for valid components: Validate requires every
// component to be a lowercase RFC 1123 label (a datacenter may also contain "_"), the trust
// domain to be a lowercase subdomain, the required components to be present, and the whole
// name to fit in 253 characters. A service called "web.default" is therefore rejected instead
// of forging the name of service "web" in namespace "default".
//
// Within one trust domain, distinct valid canonical values (an empty namespace or partition
// spelled "default") give distinct names, and Parse inverts String:
//
//	Parse(n, td).String() == n      for every n that Parse accepts
//	Parse(v.String(), td) == v      for every valid canonical v with TrustDomain td
//
// Across trust domains names can collide (x.y.z.internal.internal.t reads as a service in the
// trust domain internal.t and as a subset in the trust domain t), which is why Parse takes the
// trust domain as an argument.
//
// # Zero values, errors and contracts
//
// The zero value of each kind builds a name of empty labels (Service{}.String() is
// ".default..internal.", which is not a valid name): String never validates, so a zero or
// partly filled value gives a string Validate rejects. Name is sealed: only this package's
// five types implement it, so a type switch on Parse's result can be exhaustive.
//
// Every error is a FieldError naming the component (Field), the value and the sentinel
// (ErrInvalidComponent, ErrTooLong, ErrForeignTrustDomain, ErrMalformed). The names
// themselves are contracts — they are what proxies route on and never change for a value.
// The wording of error messages is a diagnostic and may change; branch on the sentinels.
//
// # Speed
//
// String builds a name with exactly one allocation and AppendTo with none when the buffer has
// room; neither validates, so call Validate once where the components come from users.
// Parse allocates only the interface value it returns, and reads a valid name in one pass
// that checks every byte and label while it finds the dots (BenchmarkParse and, beside it,
// BenchmarkParseSplit: strings.Split, which splits the name without checking anything).
package sni

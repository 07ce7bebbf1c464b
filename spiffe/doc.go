// Package spiffe builds, parses and validates the SPIFFE IDs that a service mesh puts in its
// workload certificates: the identities of Consul services, mesh gateways, client agents and
// servers, and of Istio (Kubernetes) workloads.
//
// A SPIFFE ID is a URI: the scheme spiffe, a trust domain in the authority, and a path that
// names the workload within it. A peer's proxy accepts a connection only if the certificate's
// URI SAN is one of the IDs it expects, so building the expected IDs exactly is what makes
// peering and failover work:
//
//	kind         URI
//	Service      spiffe://TD[/ap/partition]/ns/namespace/dc/datacenter/svc/service
//	MeshGateway  spiffe://TD[/ap/partition]/gateway/mesh/dc/datacenter
//	Agent        spiffe://TD[/ap/partition]/agent/client/dc/datacenter/id/agent
//	Server       spiffe://TD/agent/server/dc/datacenter
//	Workload     spiffe://TD/ns/namespace/sa/serviceaccount
//	Signing      spiffe://TD                                 (a Consul CA's signing certificates)
//
// For example, with the trust domain 1234.consul:
//
//	Service{TrustDomain: "1234.consul", Datacenter: "dc1", Service: "web"}
//	    spiffe://1234.consul/ns/default/dc/dc1/svc/web
//	Service{TrustDomain: "1234.consul", Partition: "bizdev", Datacenter: "dc1", Service: "web"}
//	    spiffe://1234.consul/ap/bizdev/ns/default/dc/dc1/svc/web
//	MeshGateway{TrustDomain: "1234.consul", Datacenter: "dc1"}
//	    spiffe://1234.consul/gateway/mesh/dc/dc1
//	Workload{TrustDomain: "cluster.local", Namespace: "shop", ServiceAccount: "cart"}
//	    spiffe://cluster.local/ns/shop/sa/cart
//
// The Consul shapes are those of Consul Enterprise, which every Consul parser accepts: the
// namespace is written as given (an empty one as "default") and /ap/<partition> is written for
// services, gateways and agents whenever the partition is not "" or "default". Values are
// written verbatim, never lower-cased. A Consul cluster's trust domain is its cluster ID in
// lower case followed by ".consul" (ConsulTrustDomain).
//
// # Strict parsing
//
// Parse follows the SPIFFE ID grammar to the letter: the scheme "spiffe" in lower case; a
// trust domain of a-z, 0-9, ".", "-" and "_" of at most 255 bytes; no user info, port, query
// or fragment; no percent-encoding; path segments that are non-empty, made of a-z, A-Z, 0-9,
// ".", "-" and "_", and never "." or ".."; no trailing slash; at most 2048 bytes in all. Where
// a lenient parser would decode ns/foo%2Fbar into the namespace "foo/bar" (and so let one
// workload claim another's identity), Parse refuses it. A path of no known shape is an error
// quoting the ID (ErrUnknownSchema), as is the non-canonical /ap/default.
//
// Validate on a value reports exactly what would keep its String from parsing: Validate
// returns nil if and only if Parse(v.String()) succeeds, and then Parse returns the canonical
// v (an empty Partition as "default", an empty Consul Namespace as "default"). Parse inverts
// String both ways, and two different canonical values never give the same ID.
//
// # Zero values, errors and contracts
//
// String never validates: the zero value of each kind builds an ID with empty components
// (Service{}.String() is "spiffe:///ns/default/dc//svc/"), which Validate rejects. Identity
// is sealed: only this package's six types implement it, so a type switch on Parse's result
// can be exhaustive.
//
// Every error is a FieldError naming the component (Field), the value and the sentinel
// (ErrInvalidComponent, ErrMalformed, ErrTooLong, ErrUnknownSchema). The IDs themselves are
// contracts: certificates carry them and they never change for a value. Error wording is a
// diagnostic and may change; branch on the sentinels.
//
// String builds an ID with one allocation; AppendTo with none when the buffer has room.
package spiffe

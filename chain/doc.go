// Package chain expands a service's resolver configuration into every target a request for
// it can land on: the resolver half of a Consul-style discovery chain.
//
// A request for a service first meets that service's service-resolver entry, which can
// redirect it elsewhere (another service, subset, namespace, partition, datacenter, or a
// cluster peer), give it a default subset, and say where it fails over when every instance is
// unhealthy. Compile follows all of that and returns a Chain: the start target, the ordered
// failover targets, and for each local target its TLS server name (package sni) and SPIFFE ID
// (package spiffe) — exactly the names a proxy must dial and the identities it must accept.
//
// Targets are named by ID: svc.ns.partition.dc, with a subset subset.svc.ns.partition.dc, and
// for a peer svc.ns.partition.external.peer. For example, requesting "main" in datacenter dc1:
//
//	no resolvers                                    start main.default.default.dc1
//	main: Redirect{Service: "other"}                start other.default.default.dc1
//	main: Failover["*"]{Datacenters: [dc2, dc4]}    failover main.default.default.dc2, main.default.default.dc4
//	backup: Redirect{Service: "actual"};
//	main: Failover["*"]{Service: "backup"}          failover actual.default.default.dc1
//	main <-> other redirects                        detected circular resolver redirect: [main… -> other… -> main…]
//
// # Resolution
//
// Resolving a target repeats until it rests: a peer target is final (local resolvers govern
// local services only); a redirect moves the target (a redirect to the same target is a
// no-op; revisiting a target is a cycle and an error); a target without a subset takes the
// resolver's default subset; a named subset must exist. The start target's failover section
// (the one for its subset, else "*") gives candidates — one per datacenter, one per target, or
// one from Service/ServiceSubset/Namespace — each resolved the same way, through its own
// redirects and default subset but not its own failover. A candidate that is the start target,
// before or after resolution, is dropped, as are repeats; loops through failover are fine.
//
// Every local service a chain touches must speak the requested service's protocol (from
// service-defaults, else proxy-defaults, else tcp); peer targets are not checked.
//
// # Explaining, and cost
//
// Each Target carries Via, the steps that reached it: the request, then which resolver's
// Redirect, DefaultSubset or Failover field moved it where, so an operator can see why an
// identity is in the set (Chain.Explain renders them). Compile is iterative and its cost is
// linear in the resolution steps: a redirect chain of any length cannot exhaust the stack.
//
// ServiceResolver decodes `consul config read -kind service-resolver` JSON strictly and
// encodes back to it; Validate reports every problem with its path, in Consul's words, in a
// deterministic order.
package chain

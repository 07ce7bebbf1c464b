// Package ambient answers what a workload of Istio's ambient data plane sees of the mesh's
// services: which service ztunnel's DNS proxy answers a query with, and which service
// receives traffic to an address, for a client in a given namespace, once ServiceEntry
// visibility (meshConfig.serviceEntryVisibility, package visibility) has decided who sees
// each entry.
//
// An Index is built from the mesh configuration and the cluster's objects, each read once:
//
//	m, err := mesh.Load(meshYAML)                     // the istio ConfigMap, an IstioOperator, …
//	inv, err := inventory.Load(dump, "cluster.local") // kubectl get namespaces,serviceentries,services -A -o yaml
//	ix, err := ambient.New(m, inv)
//	s, ok := ix.LookupHost("shop", "api.github.com")
//
// New validates both (every problem at once), decides every entry once per namespace, and
// builds the host and address tables; lookups then do not allocate, and no answer depends
// on the order of the inventory.
//
// # Hidden means absent, not blocked
//
// A service a client does not see does not exist for it:
//
//   - LookupHost: a DNS query for a host no visible service claims is forwarded upstream
//     (false), exactly as for a host the mesh does not know. Among the visible services
//     claiming a host, the client's own namespace's comes first, else the canonical one: a
//     Kubernetes Service, else the oldest PUBLIC entry (then namespace, then name — never
//     input order). The exact host is tried first, then the *. wildcard at each of its
//     label boundaries, the most specific first (*.b.c, then *.c), so a hidden exact entry
//     falls through to a visible wildcard; *.b.c matches a.b.c but not b.c. A partial
//     wildcard host (*x.b.c, which Istio accepts, and which its sidecars and waypoints
//     match against every host ending in x.b.c) never answers a DNS query, so a query only
//     a partial wildcard covers goes upstream; ExplainHost shows its entries as not reached
//     and says why, and Lint flags them (PartialWildcardDNS).
//   - LookupAddress: traffic to an address no visible service claims passes through to its
//     original destination (false); exact addresses first, then CIDRs (own namespace
//     first, then the longest prefix). The address is looked up as ztunnel looks up a
//     connection's destination, canonical (its socket's to_canonical): ::ffff:10.0.0.1 is
//     10.0.0.1. An entry's own address written IPv4-mapped stays the IPv6 address Istio
//     sends ztunnel, so no destination reaches it.
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
// the addresses Istio allocated for each host (status.addresses, under the host's exact
// spelling), and a wildcard host gets
// none unless the resolution is DYNAMIC_DNS (inventory.Service.AddressesFor). A Kubernetes
// Service's addresses are its cluster IPs; a headless Service has none and is still
// answered. An entry with no address for the queried host is dropped before visibility and
// ranking: if none remains, the lookup moves to the next wildcard level and finally
// forwards the query upstream.
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
// search domains are <client ns>.svc.<domain>, svc.<domain> and <domain>, in that order; a
// name reached by stripping one gets its label-count aliases only, and an answer reached
// that way is a CNAME to the stripped name. A client without a namespace ("") has no
// one-label alias. The domain is the inventory's (inventory.Inventory.ClusterDomain).
//
// # Explanations, conflicts, lint and the audit
//
// ExplainHost lists every name tried, through which alias, and at each level (a Step) every
// candidate and its Verdict — Chosen, Hidden (by which policy), Outranked (by which rule),
// NotReached, or NoAddress (saying why: no spec.addresses and auto-allocation off, for
// example):
//
//	api.github.com from namespace billing: answered by ServiceEntry platform/github
//	  api.github.com:
//	    ServiceEntry platform/github PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry
//	    ServiceEntry shop/github-mirror NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace shop sees it
//
// ExplainAddress does the same for an address. Conflicts lists the hosts and addresses
// claimed in several namespaces with the answer each client namespace gets. Lint checks the
// configuration against the inventory: selectors that select no namespace and policies
// that decide no entry (as visibility.Resolver.LintNamespaces finds them), exportTo naming
// an unknown namespace (ExportToUnknownNamespace), entries DNS cannot answer
// (NoAddressForDNS) and partial wildcard hosts (PartialWildcardDNS).
//
// Diff audits a change of serviceEntryVisibility over the same inventory — every entry
// whose visibility changes, the client namespaces that gain or lose it, and every answer
// that changes, for the entries' hosts and addresses and for those of the inventory that
// fall through to them (a host under a changed wildcard, an address inside a changed CIDR)
// — without enforcing anything. Diff and Conflicts answer for a host as its own name does;
// they do not follow the short-name aliases a lookup tries when the name itself has no
// answer. A change of an answer names its clients exactly: by name, or "*"
// (AllOtherNamespaces) for every namespace (of the inventory or not) but those named by the
// query's other changes and those listed in its Except, whose answer stays. For example,
// when shop's mirror of api.github.com, older than platform/github, becomes PUBLIC, the
// audit says that api.github.com changes for every namespace but platform and shop (whose
// own entries come first), in as many words whatever the cluster's size.
//
// # Releases
//
// An Index answers for the release of its mesh configuration (mesh.Config.Release; Release
// names it for an output's first line). What ztunnel is given, and how it chooses among the
// services claiming a host or an address, changed between releases (each a mesh.Cause):
//
//   - serviceEntryVisibility applies from 1.31 (ServiceEntryVisibility): before, istiod does
//     not know the field, so every entry is PUBLIC, whatever the configuration says.
//   - A host several services claim (ZtunnelCanonicalHost, 1.29): from 1.29 the client's
//     own namespace's entry, then the canonical one (a Kubernetes Service, else the oldest
//     entry). In 1.28 istiod sends ztunnel no ServiceEntry of a host a Kubernetes Service
//     has, so the Kubernetes Service answers every client; otherwise the client's own
//     namespace's entry answers, else the first in the order ztunnel received them — when
//     the host's entries span several namespaces the inventory does not determine which.
//   - An address several services claim (ZtunnelRankedAddress, 1.30): from 1.30 the client's
//     own namespace's, then the canonical one; up to 1.29 ztunnel keeps one service per
//     address, the last it received, whatever the client: not determined by the inventory.
//   - CIDRs (ZtunnelCIDRs, 1.30): up to 1.29 istiod does not send ztunnel a ServiceEntry
//     holding an address wider than one IP — none of its hosts or addresses exist there;
//     from 1.30 the prefix matches after the exact addresses (own namespace, then the
//     longest prefix, then the canonical entry); from 1.31 only visible entries count. A
//     CIDR is never a DNS answer.
//
// 1.28.0, whose DNS proxy answered a wildcard host reached through a search domain with a
// CNAME and whose istiod lacked 1.28's per-namespace de-duplication, is not modelled: New
// refuses it. Where the release leaves an answer to the order ztunnel received the services
// in, the answer is not a guess: LookupHost and LookupAddress return false, AnswerHost and
// AnswerAddress list the services one of which answers (Outcome.Undetermined), and
// ExplainHost, ExplainAddress and Conflicts say so. For example, in 1.28, with ServiceEntries
// of api.example.com in namespaces a and b and no Kubernetes Service of it, a client in c
// gets one of them, the inventory does not say which; from 1.29 it gets the older.
// Diff compares two releases only where their ztunnels answer alike (1.30 and 1.31); it
// refuses any other pair with ErrZtunnelReleases, which an upgrade's dry run tells apart from
// a problem of its configurations with errors.Is.
//
// As in every release, an entry without an address for the queried host is dropped before
// ranking (ztunnel drops it after istiod has kept, per namespace and host, only the oldest
// entry: an older entry without an address hides a younger one with an address in its
// namespace, which meshscope does not model).
//
// Visibility is not authorization: a hidden entry's resource is still readable and a
// client that knows the address can still connect to it as unknown traffic. What a sidecar
// or a gateway sees (exportTo, Sidecar resources) is package visibility/sidecar's question.
package ambient

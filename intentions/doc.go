// Package intentions answers who may call a Consul service: the service-intentions config
// entry, its precedence, the answer of Consul's intention check API, and the decision the
// destination's Envoy actually makes — each explaining itself, and saying where the two differ.
//
// # The entry
//
// A service-intentions entry is named after its destination (a service, or "*" for every
// service) and lists sources, each a service (or "*"), optionally of a cluster peer, with an
// Action or, for an HTTP destination, Permissions read in order:
//
//	Kind = "service-intentions"
//	Name = "api"
//	Sources = [
//	  { Name = "web",  Action = "allow" },
//	  { Name = "web",  Peer = "east", Permissions = [
//	      { Action = "deny",  HTTP = { PathPrefix = "/admin" } },
//	      { Action = "allow", HTTP = { Methods = ["GET"] } } ] },
//	  { Name = "*",    Action = "deny" },
//	]
//
// ConfigEntry reads what `consul config read` prints, strictly: a key Consul does not read is
// refused in Consul's own multi-error words (1 error occurred: … invalid config key
// "Sources[2].Partition"), a key given twice or a value of the wrong type in meshscope's.
// Normalize and Validate do what Consul's write endpoint does: methods upper-cased, sources
// stable-sorted by precedence, then the first problem in Consul's order and words
// ("Sources[1].Permissions[0].HTTP.PathPrefix doesn't start with '/': \"api\""). The store
// refuses an entry giving permissions to a destination whose discovery chain is not HTTP-like
// (RequiresHTTP, ProtocolError), and a later write that would make such a chain tcp, in the
// same words; that check needs the chains and lives with the store.
//
// # Precedence
//
// Each source→destination pair ranks 9 (web→api), 8 (*→api), 6 (web→*) or 5 (*→*); a peer does
// not count. Ties go by source peer, source name, then destination (Compare), so Consul's order
// is total. A destination's sidecar receives the intentions of its own entry and of the "*"
// entry, in that order (ForDestination).
//
// # Two answers to one question
//
// Consul's check API (`consul intention check web api`, Destination.Check) takes the first
// intention, in that order, whose source is the caller or "*" and whose destination matches:
// its Action — or "denied" whenever it has permissions, whatever the request —, else the
// default, which is allow when ACLs are disabled. It cannot be asked about a peer's service.
//
// What counts is the destination's Envoy (Destination.Decide). Consul's xds code turns the
// sidecar's intentions into RBAC rules: it keeps the most precedent intention of each source,
// and a peer's only when the sidecar has the peer's trust bundle; it leaves out every intention
// whose action is the default (acl.default_policy, whether or not ACLs are enabled); and it
// subtracts from each intention the earlier ones with a strictly narrower source. That last
// step is not "the most precedent matching intention decides". With
//
//	entry "api": { Name = "*",   Action = "deny" }    (*→api, precedence 8)
//	entry "*":   { Name = "web", Action = "allow" }   (web→*, precedence 6)
//
// under default deny, the check API says web may not call api (*→api comes first), but Envoy
// lets web through: *→api is the default's action and is left out, and nothing subtracts web
// from web→*. Under default allow, *→api allow with web→* deny gives the reverse. Likewise an L7 intention applies by its first permission that fits the request,
// where the check API calls it denied; when none fits it contributes nothing and does not fall
// through to the intentions it shadows. On a network filter (a tcp sidecar) an intention with
// permissions counts as a deny.
//
// # Peered callers
//
// A peer's service presents its identity in one of two ways (Arrival), by the destination's
// discovery-chain protocol (Sidecar.ChainProtocol): through an HTTP-like chain the local mesh
// gateway terminates TLS and names the caller in the first element of the
// x-forwarded-client-cert header under its own certificate; through any other it passes the
// caller's TLS through. On an HTTP filter with a peer's intention and a trust bundle, Consul
// matches every peer source on that header behind the gateway's certificate. So:
//
//   - with the header stripped — a grpc sidecar, or the mesh entry's
//     HTTP.SanitizeXForwardedClientCert — no peer intention ever matches;
//   - an http chain on a tcp sidecar shows the gateway's certificate to a network filter, and
//     a tcp chain on an http sidecar fails the header match: neither matches;
//   - a peer whose trust bundle the sidecar lacks has its intentions skipped silently;
//   - a caller in a namespace other than default matches no intention (Consul CE writes every
//     source in default).
//
// Explain gives the decision with every intention's Outcome and why, the RBAC policies
// matched, Consul's own matcher's pick with the answer "the most precedent matching intention
// decides" would give, the check API's answer, and a Note for each way Envoy differs from them
// (Reason: precedence, permissions, a peer, a missing trust bundle, a stripped header, the ACL
// default, a regular expression Envoy refuses).
//
// # Inputs a store computes
//
// Compile takes a Sidecar: the intentions (ForDestination), the sidecar's own protocol (the
// registration's proxy "protocol", else service-defaults', else proxy-defaults', else tcp),
// its chain's protocol, its trust bundles (the peers of the most exact export rule of every
// service whose chain targets it, with an active peering — not the union of rules that
// replication reads), the mesh entry's XFCC setting, and the peers' identities. It compiles
// once; Decide and Check read an index of the sources that can match a caller and allocate
// nothing; regular expressions are compiled at Compile, RE2 anchored to the whole value. A
// PathRegex or header Regex that does not compile is accepted by Consul and refused by Envoy
// where the rules hold it (Decision.EnvoyError, RegexError) — under a default policy, when
// its intention is kept on an HTTP filter and the permission or a later one of that
// intention has an action other than the default.
//
// Package store (chain/store) computes the Sidecar of every destination from a Consul
// server's config entries, its peerings and the registrations (store.Sidecars), and package
// peermeta combines it with what a peer reaches (peermeta.Calls).
//
// # What never applies
//
// Some intentions never apply, whatever the request, and Consul says nothing:
// Destination.Standings names them — a source a more precedent intention already has
// (web→* on api's sidecar when web→api exists), a peer whose trust bundle the sidecar lacks,
// and a peer's source its callers never present as Consul matches it (a stripped header, the
// gateway's certificate on a network filter, no header through a tcp chain):
//
//	for _, s := range d.Standings() {
//		if s.Outcome != 0 {
//			fmt.Println(d.Intentions()[s.Intention], s.Outcome, s.Why)
//		}
//	}
//
// # Out of scope
//
// JWT requirements (read and validated as Consul does; Compile refuses them on an HTTP filter),
// sameness-group sources (refused by Consul CE's validation, as here), and Enterprise
// namespaces and partitions on the destination side (the keys are refused as Consul CE refuses
// them; a caller's namespace is an input). Consul writes a source name into a regular
// expression unescaped; meshscope models names of letters, digits, '.', '-' and '_', where '.'
// matches any character as in Consul's rules, and refuses others (ErrNotModelled).
//
// # Errors and contracts
//
// Every error is a FieldError (or several joined) naming the path and the value, with a
// sentinel where a caller may branch: ErrUnknownField, ErrL7Protocol, ErrNotModelled,
// ErrUnknownPeer. Contracts: the JSON of ConfigEntry and Intention (Consul's), Consul's
// messages in Details, the RBAC policy names and the Arrival names. The wording of meshscope's
// own errors, of Explanation and of Why may change.
package intentions

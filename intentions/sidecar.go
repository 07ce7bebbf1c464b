package intentions

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/spiffe"
)

// Sidecar is what a destination service's sidecar proxy has to build the RBAC rules of its
// public listener: the inputs of Compile. A store computes it from its config entries and
// peerings; every field is as Consul's agent hands it to the proxy.
type Sidecar struct {
	// Service is the destination service.
	Service string
	// TrustDomain and Datacenter are the local cluster's: local callers' certificates and
	// the local mesh gateway's carry them.
	TrustDomain, Datacenter string
	// Intentions are the intentions whose destination is Service or "*" (ForDestination), in
	// Consul's order; Compile sorts a copy into that order, as Consul's xds code does.
	Intentions []Intention
	// Protocol is the sidecar's own protocol: the registration's proxy config "protocol",
	// else service-defaults', else proxy-defaults'; "" means tcp. http, http2 and grpc give an
	// HTTP RBAC filter that sees each request; any other a network RBAC filter that sees only
	// the connection.
	Protocol string
	// ChainProtocol is the protocol the destination's discovery chain compiles to. It says how
	// a peered caller arrives: through an HTTP-like chain the local mesh gateway terminates
	// TLS and forwards the caller in the x-forwarded-client-cert header under its own
	// certificate; otherwise it passes the caller's TLS through. "" means tcp.
	ChainProtocol string
	// TrustBundles are the peers whose trust bundle the sidecar has: only their intentions
	// are kept.
	TrustBundles []string
	// SanitizeXFCC is the mesh entry's HTTP.SanitizeXForwardedClientCert: the HTTP filter
	// strips the x-forwarded-client-cert header instead of forwarding it (it always strips it
	// for grpc).
	SanitizeXFCC bool
	// Peers describes every cluster peering: the identities its services present, for
	// peered callers and for the intentions of peers in TrustBundles.
	Peers map[string]Peer
}

// Peer is what the local cluster knows of a cluster peer from its peering and trust bundle.
type Peer struct {
	// TrustDomain is the peer's trust domain.
	TrustDomain string
	// Partition is the admin partition the peer exports its services from (its trust
	// bundle's ExportedPartition); "" or "default" for the default partition.
	Partition string
	// Datacenter is the peer's datacenter, which its services' certificates name.
	Datacenter string
}

// protocols are the protocols a sidecar or chain may have ("" is tcp).
var protocols = []string{"", "tcp", "http", "http2", "grpc"}

// Validate reports every problem of the sidecar's inputs, each naming its path: a missing or
// malformed name, trust domain or datacenter, an intention whose destination is another
// service, a source named twice, a precedence other than Consul's, an intention Consul's
// Validate refuses, a protocol Consul does not have, a trust bundle of an undescribed peer,
// and what meshscope does not model (ErrNotModelled): JWT requirements on an HTTP filter and
// source names beyond letters, digits, '.', '-' and '_' (Consul writes a source name into a
// regular expression unescaped; a '.' in it matches any character, as in Consul's rules).
func (s *Sidecar) Validate() error {
	var errs []error
	add := func(field string, value any, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Value: value, Detail: fmt.Sprintf(format, args...)})
	}
	if s.Service == "" || s.Service == Wildcard {
		add("Service", s.Service, "must name the destination service, got %q", s.Service)
	}
	errs = append(errs, identityProblems("", spiffe.MeshGateway{TrustDomain: s.TrustDomain, Datacenter: s.Datacenter})...)
	for _, p := range []struct{ field, value string }{{"Protocol", s.Protocol}, {"ChainProtocol", s.ChainProtocol}} {
		if !slices.Contains(protocols, p.value) {
			add(p.field, p.value, "%q is not a protocol Consul has: want tcp (or \"\"), http, http2 or grpc", p.value)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Peers)) {
		p := s.Peers[name]
		at := strict.Key("Peers", name)
		if name == "" || strings.Contains(name, Wildcard) {
			add(at, name, "a peer needs a name without '*'")
		}
		errs = append(errs, identityProblems(at, spiffe.MeshGateway{TrustDomain: p.TrustDomain, Partition: p.Partition, Datacenter: p.Datacenter})...)
	}
	for i, b := range s.TrustBundles {
		at := strict.Index("TrustBundles", i)
		if _, ok := s.Peers[b]; !ok {
			errs = append(errs, &FieldError{Field: at, Value: b, Detail: fmt.Sprintf("no peer %q is described in Peers", b), Err: ErrUnknownPeer})
		}
		if slices.Index(s.TrustBundles, b) < i {
			add(at, b, "peer %q is listed twice", b)
		}
	}
	errs = append(errs, s.intentionProblems()...)
	return errors.Join(errs...)
}

// identityProblems checks a cluster's trust domain, partition and datacenter as parts of a
// SPIFFE ID (all required but the partition), each problem named under at.
func identityProblems(at string, g spiffe.MeshGateway) []error {
	return fielderr.Split(fielderr.Under(at, g.Validate()))
}

// intentionProblems checks each intention of the sidecar.
func (s *Sidecar) intentionProblems() []error {
	var errs []error
	add := func(field string, value any, kind error, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Value: value, Detail: fmt.Sprintf(format, args...), Err: kind})
	}
	http := httpLike(s.Protocol)
	type key struct{ name, peer, dest string }
	seen := map[key]int{}
	for i, x := range s.Intentions {
		at := strict.Index("Intentions", i)
		if x.DestinationName != s.Service && x.DestinationName != Wildcard {
			add(at+".DestinationName", x.DestinationName, nil, "the sidecar of %q receives only intentions to it or to \"*\"", s.Service)
		}
		if k, dup := seen[key{x.SourceName, x.SourcePeer, x.DestinationName}]; dup {
			add(at, x.String(), nil, "the same source and destination as Intentions[%d]", k)
		} else {
			seen[key{x.SourceName, x.SourcePeer, x.DestinationName}] = i
		}
		if want := Precedence(x.SourceName, x.DestinationName); x.Precedence != 0 && x.Precedence != want {
			add(at+".Precedence", x.Precedence, nil, "Consul gives %s precedence %d", x, want)
		}
		if f := x.problem(); f != nil {
			if rest, ok := strings.CutPrefix(f.Field, "Sources[0]"); ok {
				f.Field, f.Detail = at+rest, strings.Replace(f.Detail, "Sources[0]", at, 1)
			} else {
				f.Field = strict.Child(at, f.Field)
			}
			errs = append(errs, f)
		}
		if x.SourceName != Wildcard && !plainName(x.SourceName) {
			add(at+".SourceName", x.SourceName, ErrNotModelled, "%q: meshscope models source names of letters, digits, '.', '-' and '_' (Consul writes the name into a regular expression unescaped)", x.SourceName)
		}
		if http && x.usesJWT() {
			add(at+".JWT", nil, ErrNotModelled, "JWT requirements on an HTTP filter are not modelled")
		}
	}
	return errs
}

// problem is what Consul's Validate says of the source an intention comes from.
func (x Intention) problem() *FieldError {
	e := ConfigEntry{Name: x.DestinationName, JWT: x.JWT, Sources: []SourceIntention{{
		Name: x.SourceName, Peer: x.SourcePeer, Action: x.Action, Permissions: x.Permissions, Type: SourceTypeConsul,
	}}}
	return e.problem()
}

// usesJWT reports whether the intention or one of its permissions has a JWT requirement.
func (x Intention) usesJWT() bool {
	return x.JWT != nil || slices.ContainsFunc(x.Permissions, func(p Permission) bool { return p.JWT != nil })
}

// plainName reports whether a source name is made of letters, digits, '.', '-' and '_'.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

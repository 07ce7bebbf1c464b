package intentions

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// Normalize does what Consul's write endpoint does before it validates an entry: it sets Kind,
// sets each source's Type to "consul" when empty, computes each source's Precedence, clears the
// legacy ID and times, upper-cases every permission's methods, and stable-sorts the sources by
// precedence, highest first (so that Sources[N] in a validation error counts in that order).
// It changes e in place, the permissions' method slices included.
func (e *ConfigEntry) Normalize() {
	e.Kind = Kind
	for i := range e.Sources {
		s := &e.Sources[i]
		if s.Type == "" {
			s.Type = SourceTypeConsul
		}
		s.Precedence = Precedence(s.Name, e.Name)
		s.LegacyID, s.LegacyCreateTime, s.LegacyUpdateTime = "", nil, nil
		upperMethods(s.Permissions)
	}
	slices.SortStableFunc(e.Sources, func(a, b SourceIntention) int { return cmp.Compare(b.Precedence, a.Precedence) })
}

// Normalized returns a normalized copy of e (Normalize), what Consul stores when it takes e; e
// and what it points to are unchanged.
func (e *ConfigEntry) Normalized() ConfigEntry {
	c := e.clone()
	c.Normalize()
	return c
}

// Validate returns the first problem Consul's write endpoint finds in the entry, in Consul's
// order and words, or nil. It validates a normalized copy of e (Normalize), as the endpoint
// does, so source indices count in precedence order. The error is one *FieldError whose Field
// is the path of the problem and whose Detail is Consul's message, such as
//
//	Sources[1].Permissions[0].HTTP.PathPrefix doesn't start with '/': "api"
//	Sources[2] defines peer("east") "billing" more than once
//	Sources[0].SamenessGroup: Sameness groups are a Consul Enterprise feature.
//
// (the last with Consul's trailing space). The order: the entry's Name, its wildcard form, its
// JWT and Meta, at least one source; then per source: Name, SamenessGroup, the wildcard forms
// of Name and Peer, Description, LegacyMeta, Action, Action beside Permissions, Permissions on
// a "*" destination, Type, each permission (permissionProblem), and last a source named twice.
//
// Consul accepts, and so does Validate: a peer with no peering, Name "*" with a Peer,
// lower-case methods (Normalize upper-cases them) and a PathRegex or header Regex that does not
// compile (Envoy then refuses it: see Decision.EnvoyError).
func (e *ConfigEntry) Validate() error {
	c := e.Normalized()
	if f := c.problem(); f != nil {
		return f
	}
	return nil
}

// upperMethods upper-cases the methods of permissions, in place.
func upperMethods(perms []Permission) {
	for j := range perms {
		if h := perms[j].HTTP; h != nil {
			for k, m := range h.Methods {
				h.Methods[k] = strings.ToUpper(m)
			}
		}
	}
}

// consulErr is a problem at path in Consul's words.
func consulErr(path string, value any, format string, args ...any) *FieldError {
	return &FieldError{Field: path, Value: value, Detail: fmt.Sprintf(format, args...)}
}

// problem is Validate on a normalized entry.
func (e *ConfigEntry) problem() *FieldError {
	if e.Name == "" {
		return consulErr("Name", e.Name, "Name is required")
	}
	if msg := wildcardProblem(e.Name, ""); msg != "" {
		return consulErr(strings.SplitN(msg, ":", 2)[0], e.Name, "%s", msg)
	}
	if f := jwtProblem("JWT", e.JWT); f != nil {
		return f
	}
	if f := metaProblem(e.Meta); f != nil {
		return f
	}
	if len(e.Sources) == 0 {
		return consulErr("Sources", nil, "At least one source is required")
	}
	type source struct{ name, peer string }
	seen := make(map[source]bool, len(e.Sources))
	for i := range e.Sources {
		s := &e.Sources[i]
		if f := e.sourceProblem(i, s); f != nil {
			return f
		}
		k := source{s.Name, s.Peer}
		if seen[k] {
			at := strict.Index("Sources", i)
			if s.Peer != "" {
				return consulErr(at, s.Name, "%s defines peer(%q) %q more than once", at, s.Peer, s.Name)
			}
			return consulErr(at, s.Name, "%s defines %q more than once", at, s.Name)
		}
		seen[k] = true
	}
	return nil
}

// wildcardProblem is Consul's check of a name's and a peer's wildcards ("" when fine): a "*"
// may only be the whole name, and never part of a peer.
func wildcardProblem(name, peer string) string {
	if name != Wildcard && strings.Contains(name, Wildcard) {
		return "Name: wildcard character '*' cannot be used with partial values"
	}
	if strings.Contains(peer, Wildcard) {
		return "Peer: cannot use wildcard '*' in peer"
	}
	return ""
}

// The limits Consul puts on an entry's opaque values.
const (
	metaMaxKeys     = 64
	metaMaxKey      = 128
	metaMaxValue    = 512
	descriptionSize = 512
)

// metaProblem checks an entry's Meta as Consul does, every problem in one multi-error (keys in
// sorted order; Consul's is its map order).
func metaProblem(meta map[string]string) *FieldError {
	var msgs []string
	if len(meta) > metaMaxKeys {
		msgs = append(msgs, fmt.Sprintf("Meta exceeds maximum element count %d", metaMaxKeys))
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if len(k) > metaMaxKey {
			msgs = append(msgs, fmt.Sprintf("Meta key %q exceeds maximum length %d", k, metaMaxKey))
		}
		if len(meta[k]) > metaMaxValue {
			msgs = append(msgs, fmt.Sprintf("Meta value for key %q exceeds maximum length %d", k, metaMaxValue))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return consulErr("Meta", nil, "%s", multiError(msgs))
}

// jwtProblem checks a JWT requirement as Consul does: every provider needs a name, all the
// missing ones in one multi-error.
func jwtProblem(path string, j *JWTRequirement) *FieldError {
	if j == nil {
		return nil
	}
	var msgs []string
	for _, p := range j.Providers {
		if p.Name == "" {
			msgs = append(msgs, "JWT provider name is required")
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return consulErr(path, nil, "%s", multiError(msgs))
}

func (e *ConfigEntry) sourceProblem(i int, s *SourceIntention) *FieldError {
	at := strict.Index("Sources", i)
	switch {
	case s.Name == "":
		return consulErr(at+".Name", s.Name, "%s.Name is required", at)
	case s.SamenessGroup != "":
		return consulErr(at+".SamenessGroup", s.SamenessGroup, "%s.SamenessGroup: Sameness groups are a Consul Enterprise feature. ", at)
	}
	if msg := wildcardProblem(s.Name, s.Peer); msg != "" {
		field, _, _ := strings.Cut(msg, ":")
		return consulErr(at+"."+field, s.Name, "%s.%s", at, msg)
	}
	switch {
	case len(s.Description) > descriptionSize:
		return consulErr(at+".Description", s.Description, "%s.Description exceeds maximum length %d", at, descriptionSize)
	case len(s.LegacyMeta) > 0:
		return consulErr(at+".LegacyMeta", s.LegacyMeta, "%s.LegacyMeta must be omitted", at)
	case len(s.Permissions) == 0 && s.Action != Allow && s.Action != Deny:
		return consulErr(at+".Action", s.Action, "%s.Action must be set to 'allow' or 'deny'", at)
	case len(s.Permissions) > 0 && s.Action != "":
		return consulErr(at+".Action", s.Action, "%s.Action must be omitted if Permissions are specified", at)
	case len(s.Permissions) > 0 && e.Name == Wildcard:
		return consulErr(at+".Permissions", nil, "%s.Permissions cannot be specified on intentions with wildcarded destinations", at)
	case s.Type != SourceTypeConsul:
		return consulErr(at+".Type", s.Type, "%s.Type must be set to 'consul'", at)
	}
	for j, p := range s.Permissions {
		if f := permissionProblem(strict.Index(at+".Permissions", j), p); f != nil {
			return f
		}
	}
	return nil
}

// permissionProblem returns the first problem Consul finds in one permission, in its words,
// each message starting with the permission's path (at, as "Sources[0].Permissions[1]"): the
// Action, HTTP required, PathExact and PathPrefix starting with "/", at most one path matcher,
// each header matcher (a Name and exactly one of Present, Exact, Prefix, Suffix, Regex), each
// method (one of Go's net/http methods, upper-case after Normalize, none twice), the match
// not empty, and the permission's JWT. Regular expressions are not compiled (Consul does not).
func permissionProblem(at string, p Permission) *FieldError {
	if p.Action != Allow && p.Action != Deny {
		return consulErr(at+".Action", p.Action, "%s.Action must be set to 'allow' or 'deny'", at)
	}
	h := p.HTTP
	at += ".HTTP"
	if h == nil {
		return consulErr(at, nil, "%s is required", at)
	}
	paths := 0
	for _, m := range []struct{ name, value string }{{"PathExact", h.PathExact}, {"PathPrefix", h.PathPrefix}} {
		if m.value == "" {
			continue
		}
		paths++
		if !strings.HasPrefix(m.value, "/") {
			return consulErr(at+"."+m.name, m.value, "%s.%s doesn't start with '/': %q", at, m.name, m.value)
		}
	}
	if h.PathRegex != "" {
		paths++
	}
	if paths > 1 {
		return consulErr(at, nil, "%s should only contain at most one of PathExact, PathPrefix, or PathRegex", at)
	}
	for k, hdr := range h.Header {
		hat := strict.Index(at+".Header", k)
		if hdr.Name == "" {
			return consulErr(hat, hdr, "%s missing required Name field", hat)
		}
		if hdr.parts() != 1 {
			return consulErr(hat, hdr, "%s should only contain one of Present, Exact, Prefix, Suffix, or Regex", hat)
		}
	}
	found := make(map[string]bool, len(h.Methods))
	for _, m := range h.Methods {
		if !slices.Contains(httpMethods, m) {
			return consulErr(at+".Methods", m, "%s.Methods contains an invalid method %q", at, m)
		}
		if found[m] {
			return consulErr(at+".Methods", m, "%s.Methods contains %q more than once", at, m)
		}
		found[m] = true
	}
	if paths+len(h.Header)+min(len(h.Methods), 1) == 0 {
		return consulErr(at, nil, "%s should not be empty", at)
	}
	return jwtProblem(strings.TrimSuffix(at, ".HTTP")+".JWT", p.JWT)
}

// httpMethods are the methods a permission may match: Go's net/http constants, as Consul's.
var httpMethods = []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace}

// parts counts the matchers a header match sets.
func (h HeaderMatch) parts() int {
	n := 0
	for _, set := range []bool{h.Present, h.Exact != "", h.Prefix != "", h.Suffix != "", h.Regex != ""} {
		if set {
			n++
		}
	}
	return n
}

// ProtocolError is the refusal of Consul's store when an entry giving permissions to service
// (RequiresHTTP) meets a discovery chain of a protocol that is not HTTP-like, in Consul's
// words (ErrL7Protocol):
//
//	service "api" has protocol "tcp", which is incompatible with L7 intentions permissions
//
// protocol is the protocol the service's chain compiles to. The store gives it both when the
// entry is written and when a later service-defaults, proxy-defaults, router, splitter or
// resolver write would make the chain of such a destination non-HTTP.
func ProtocolError(service, protocol string) error {
	return &FieldError{Field: "Name", Value: protocol, Err: ErrL7Protocol,
		Detail: fmt.Sprintf("service %q has protocol %q, which is incompatible with L7 intentions permissions", service, protocol)}
}

// CheckProtocol returns ProtocolError when the entry gives permissions to its destination
// (RequiresHTTP) and protocol, the destination's chain protocol, is not HTTP-like; else nil.
func (e *ConfigEntry) CheckProtocol(protocol string) error {
	if !e.RequiresHTTP() || httpLike(protocol) {
		return nil
	}
	return ProtocolError(e.Name, protocol)
}

// httpLike reports whether protocol is one of Consul's HTTP-like protocols (as
// chain.IsHTTPLike, which this package may not import).
func httpLike(protocol string) bool {
	return protocol == "http" || protocol == "http2" || protocol == "grpc"
}

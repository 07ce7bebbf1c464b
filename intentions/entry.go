package intentions

import (
	"maps"
	"slices"
	"time"

	"github.com/meshscope/meshscope/internal/names"
)

// Kind is the config entry kind of a service-intentions entry.
const Kind = "service-intentions"

// Wildcard stands for every service, as a destination (the entry's Name) or as a source.
const Wildcard = names.Wildcard

// Action is what an intention or one of its permissions does with a matching request.
type Action string

// The two actions Consul knows; they are case-sensitive.
const (
	Allow Action = "allow"
	Deny  Action = "deny"
)

// SourceTypeConsul is the only source Type Consul accepts: a service of the mesh. Normalize
// sets it on a source that names none.
const SourceTypeConsul = "consul"

// ConfigEntry is a service-intentions config entry: who may call the destination service its
// Name names ("*" for every service). Field names and JSON are Consul's, so the output of
// `consul config read -kind service-intentions -name <service>` unmarshals directly
// (UnmarshalJSON reads it strictly).
type ConfigEntry struct {
	Kind string `json:"Kind,omitempty"`
	// Name is the destination service, or "*".
	Name    string            `json:"Name"`
	Sources []SourceIntention `json:"Sources,omitempty"`
	// JWT is the entry's JSON Web Token requirement. meshscope reads and validates it as
	// Consul does, but does not model it: Compile refuses a sidecar whose HTTP rules would
	// depend on it.
	JWT  *JWTRequirement   `json:"JWT,omitempty"`
	Meta map[string]string `json:"Meta,omitempty"`
	// CreateIndex and ModifyIndex are Consul's read-only Raft indexes, kept so that an entry
	// read from Consul encodes back to the same JSON.
	CreateIndex uint64 `json:"CreateIndex,omitempty"`
	ModifyIndex uint64 `json:"ModifyIndex,omitempty"`
}

// SourceIntention is one source of an entry: a service (or "*"), in this cluster or of a
// cluster peer, and either an Action for every request or Permissions that look at each HTTP
// request.
type SourceIntention struct {
	// Name is the source service, or "*" for every service.
	Name string `json:"Name"`
	// Peer is the cluster peer the source service belongs to; "" for this cluster.
	Peer string `json:"Peer,omitempty"`
	// SamenessGroup names a sameness group of sources, a Consul Enterprise feature that
	// Validate refuses in Consul's words.
	SamenessGroup string `json:"SamenessGroup,omitempty"`
	// Action applies to every request; it must be empty when Permissions are given.
	Action Action `json:"Action,omitempty"`
	// Permissions are read in order: the first whose HTTP match fits a request decides it.
	Permissions []Permission `json:"Permissions,omitempty"`
	// Precedence is read-only: Normalize computes it (Precedence).
	Precedence int `json:"Precedence"`
	// Type is the kind of source; only "consul" exists, and Normalize sets it when empty.
	Type        string `json:"Type,omitempty"`
	Description string `json:"Description,omitempty"`
	// The legacy fields hold what an intention had before Consul moved intentions into
	// config entries. A write clears LegacyID and the two times (Normalize) and refuses a
	// non-empty LegacyMeta (Validate), as Consul does.
	LegacyID         string            `json:"LegacyID,omitempty"`
	LegacyMeta       map[string]string `json:"LegacyMeta,omitempty"`
	LegacyCreateTime *time.Time        `json:"LegacyCreateTime,omitempty"`
	LegacyUpdateTime *time.Time        `json:"LegacyUpdateTime,omitempty"`
}

// Permission is one L7 rule of a source: an Action for the requests its HTTP match fits.
type Permission struct {
	Action Action     `json:"Action"`
	HTTP   *HTTPMatch `json:"HTTP,omitempty"`
	// JWT is read and validated as Consul does but not modelled (see ConfigEntry.JWT).
	JWT *JWTRequirement `json:"JWT,omitempty"`
}

// HTTPMatch says which HTTP requests a permission fits: all of its parts must fit. At most one
// of the path matchers may be set; a match of headers or methods alone is valid.
type HTTPMatch struct {
	// PathExact and PathPrefix must start with "/"; PathRegex is an RE2 expression that must
	// match the whole path. Paths are read without their query.
	PathExact  string        `json:"PathExact,omitempty"`
	PathPrefix string        `json:"PathPrefix,omitempty"`
	PathRegex  string        `json:"PathRegex,omitempty"`
	Header     []HeaderMatch `json:"Header,omitempty"`
	// Methods are HTTP methods; Normalize upper-cases them.
	Methods []string `json:"Methods,omitempty"`
}

// HeaderMatch matches one request header by exactly one of Present, Exact, Prefix, Suffix
// and Regex (an RE2 expression that must match the whole value); Invert negates it. A header
// the request lacks matches nothing, inverted or not, except an inverted Present.
type HeaderMatch struct {
	Name    string `json:"Name"`
	Present bool   `json:"Present,omitempty"`
	Exact   string `json:"Exact,omitempty"`
	Prefix  string `json:"Prefix,omitempty"`
	Suffix  string `json:"Suffix,omitempty"`
	Regex   string `json:"Regex,omitempty"`
	Invert  bool   `json:"Invert,omitempty"`
}

// JWTRequirement lists the JSON Web Token providers a request must satisfy. Out of scope for
// meshscope's decisions; kept so that entries read and validate as Consul reads them.
type JWTRequirement struct {
	Providers []JWTProvider `json:"Providers,omitempty"`
}

// JWTProvider names a jwt-provider config entry and the claims to verify.
type JWTProvider struct {
	Name         string     `json:"Name,omitempty"`
	VerifyClaims []JWTClaim `json:"VerifyClaims,omitempty"`
}

// JWTClaim is one claim to verify: the value at a path of the token's payload.
type JWTClaim struct {
	Path  []string `json:"Path,omitempty"`
	Value string   `json:"Value,omitempty"`
}

// HasPermissions reports whether any source of the entry has Permissions (Consul's
// HasAnyPermissions).
func (e *ConfigEntry) HasPermissions() bool {
	return slices.ContainsFunc(e.Sources, func(s SourceIntention) bool { return len(s.Permissions) > 0 })
}

// RequiresHTTP reports whether the store must check the destination's protocol before it
// stores the entry: the entry gives permissions to a named destination (not "*"). Consul
// refuses such an entry when the destination's discovery chain does not compile to an
// HTTP-like protocol (ProtocolError).
func (e *ConfigEntry) RequiresHTTP() bool { return e.Name != Wildcard && e.HasPermissions() }

// clone returns a deep copy of e: no slice, map or pointer is shared with e.
func (e ConfigEntry) clone() ConfigEntry {
	e.Meta = maps.Clone(e.Meta)
	e.JWT = e.JWT.clone()
	e.Sources = slices.Clone(e.Sources)
	for i := range e.Sources {
		s := &e.Sources[i]
		s.LegacyMeta = maps.Clone(s.LegacyMeta)
		s.LegacyCreateTime = clonePtr(s.LegacyCreateTime)
		s.LegacyUpdateTime = clonePtr(s.LegacyUpdateTime)
		s.Permissions = clonePermissions(s.Permissions)
	}
	return e
}

func clonePermissions(ps []Permission) []Permission {
	ps = slices.Clone(ps)
	for i := range ps {
		p := &ps[i]
		p.JWT = p.JWT.clone()
		if p.HTTP != nil {
			h := *p.HTTP
			h.Header = slices.Clone(h.Header)
			h.Methods = slices.Clone(h.Methods)
			p.HTTP = &h
		}
	}
	return ps
}

func (j *JWTRequirement) clone() *JWTRequirement {
	if j == nil {
		return nil
	}
	c := JWTRequirement{Providers: slices.Clone(j.Providers)}
	for i := range c.Providers {
		p := &c.Providers[i]
		p.VerifyClaims = slices.Clone(p.VerifyClaims)
		for k := range p.VerifyClaims {
			p.VerifyClaims[k].Path = slices.Clone(p.VerifyClaims[k].Path)
		}
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

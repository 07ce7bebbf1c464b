package spiffe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
)

// Sentinel errors. Every error that Validate and Parse return wraps one of them.
var (
	// ErrInvalidComponent: a component of a value is empty where it is required, or holds a
	// character a SPIFFE ID cannot carry (Validate).
	ErrInvalidComponent = errors.New("invalid SPIFFE ID component")
	// ErrMalformed: the string is not a SPIFFE ID: wrong scheme, user info, port, query,
	// fragment, percent-encoding, an empty or dot segment, a disallowed character (Parse).
	ErrMalformed = errors.New("malformed SPIFFE ID")
	// ErrTooLong: the ID is longer than 2048 bytes or its trust domain longer than 255.
	ErrTooLong = errors.New("SPIFFE ID too long")
	// ErrUnknownSchema: a well-formed SPIFFE ID whose path is none of the five known shapes,
	// or a non-canonical spelling of one (an explicit /ap/default).
	ErrUnknownSchema = errors.New("SPIFFE ID of no known schema")
)

// FieldError is the one structured error type of meshscope's packages: every error Validate
// and Parse return is a *FieldError (or several joined), so errors.As gives the component
// (Field: "Service", "TrustDomain"; empty for the ID as a whole), the offending Value, a
// Detail for people, and Err, the sentinel above that errors.Is matches.
type FieldError = fielderr.Error

// component is a problem with one component: `Field: "value" reason`.
func component(field, value, reason string) *FieldError {
	return fielderr.New(field, value, strconv.Quote(value)+" "+reason, ErrInvalidComponent)
}

// problem is a problem with the whole ID, wrapping kind: "kind: detail". value is the ID
// (empty when Validate reports it: the caller has the value).
func problem(kind error, value, format string, args ...any) *FieldError {
	e := fielderr.New("", nil, kind.Error()+": "+fmt.Sprintf(format, args...), kind)
	if value != "" {
		e.Value = value
	}
	return e
}

// Limits from the SPIFFE ID specification.
const (
	MaxLength            = 2048
	MaxTrustDomainLength = 255
)

const scheme = "spiffe://"

// Identity is a SPIFFE ID of one of the six kinds: Service, MeshGateway, Agent, Server,
// Workload or Signing. The interface is sealed (only this package's types implement it), so
// a type switch on the result of Parse over the six is exhaustive.
type Identity interface {
	// String returns the canonical URI; it does not validate.
	String() string
	// Validate reports every component that would make the URI invalid.
	Validate() error
	// path seals the interface: the ID's trust domain and path segments.
	path() path
}

var (
	_ Identity = Service{}
	_ Identity = MeshGateway{}
	_ Identity = Agent{}
	_ Identity = Server{}
	_ Identity = Workload{}
	_ Identity = Signing{}
)

// Service is the identity of a Consul service:
//
//	spiffe://<trust domain>[/ap/<partition>]/ns/<namespace>/dc/<datacenter>/svc/<service>
//
// The /ap/ segment is written when Partition is neither "" nor "default"; an empty Namespace is
// written "default". TrustDomain, Datacenter and Service are required.
type Service struct {
	TrustDomain string
	Partition   string
	Namespace   string
	Datacenter  string
	Service     string
}

// MeshGateway is the identity of a Consul mesh gateway:
//
//	spiffe://<trust domain>[/ap/<partition>]/gateway/mesh/dc/<datacenter>
type MeshGateway struct {
	TrustDomain string
	Partition   string
	Datacenter  string
}

// Agent is the identity of a Consul client agent:
//
//	spiffe://<trust domain>[/ap/<partition>]/agent/client/dc/<datacenter>/id/<agent>
type Agent struct {
	TrustDomain string
	Partition   string
	Datacenter  string
	Agent       string
}

// Server is the identity of a Consul server; servers belong to no partition:
//
//	spiffe://<trust domain>/agent/server/dc/<datacenter>
type Server struct {
	TrustDomain string
	Datacenter  string
}

// Workload is the identity of an Istio (Kubernetes) workload, from its service account:
//
//	spiffe://<trust domain>/ns/<namespace>/sa/<service account>
//
// All three components are required.
type Workload struct {
	TrustDomain    string
	Namespace      string
	ServiceAccount string
}

// Signing is the identity of a Consul cluster's certificate authority, the ID its signing
// certificates carry: the trust domain alone, with no path.
//
//	spiffe://<trust domain>
type Signing struct {
	TrustDomain string
}

// ConsulTrustDomain returns the trust domain of a Consul cluster: its ID in lower case
// followed by ".consul".
func ConsulTrustDomain(clusterID string) string {
	return strings.ToLower(clusterID) + ".consul"
}

// path is an ID's trust domain and path segments, with the component name of each segment
// that carries a value ("" for the fixed words of the schema).
type path struct {
	td     string
	n      int
	seg    [8]string
	fields [8]string
}

func (p *path) word(s string)         { p.seg[p.n], p.fields[p.n] = s, ""; p.n++ }
func (p *path) value(field, s string) { p.seg[p.n], p.fields[p.n] = s, field; p.n++ }

func (p *path) partition(part string) {
	if part != "" && part != names.Default {
		p.word("ap")
		p.value("Partition", part)
	}
}

func (p *path) size() int {
	n := len(scheme) + len(p.td)
	for _, s := range p.seg[:p.n] {
		n += 1 + len(s)
	}
	return n
}

func (p *path) appendTo(b []byte) []byte {
	b = append(b, scheme...)
	b = append(b, p.td...)
	for _, s := range p.seg[:p.n] {
		b = append(b, '/')
		b = append(b, s...)
	}
	return b
}

func (p *path) string() string {
	return names.String(p.appendTo(make([]byte, 0, p.size())))
}

// validate reports every component that Parse would reject, and an ID that is too long.
func (p *path) validate() error {
	var errs []error
	if r := trustDomainProblem(p.td); r != "" {
		errs = append(errs, component("TrustDomain", p.td, r))
	}
	for i, s := range p.seg[:p.n] {
		if p.fields[i] == "" {
			continue
		}
		if r := segmentProblem(s); r != "" {
			errs = append(errs, component(p.fields[i], s, r))
		}
	}
	if n := p.size(); n > MaxLength {
		errs = append(errs, problem(ErrTooLong, "", "the ID is %d bytes long, at most %d are allowed", n, MaxLength))
	}
	return errors.Join(errs...)
}

func (s Service) path() path {
	p := path{td: s.TrustDomain}
	p.partition(s.Partition)
	ns := s.Namespace
	if ns == "" {
		ns = names.Default
	}
	p.word("ns")
	p.value("Namespace", ns)
	p.word("dc")
	p.value("Datacenter", s.Datacenter)
	p.word("svc")
	p.value("Service", s.Service)
	return p
}

func (g MeshGateway) path() path {
	p := path{td: g.TrustDomain}
	p.partition(g.Partition)
	p.word("gateway")
	p.word("mesh")
	p.word("dc")
	p.value("Datacenter", g.Datacenter)
	return p
}

func (a Agent) path() path {
	p := path{td: a.TrustDomain}
	p.partition(a.Partition)
	p.word("agent")
	p.word("client")
	p.word("dc")
	p.value("Datacenter", a.Datacenter)
	p.word("id")
	p.value("Agent", a.Agent)
	return p
}

func (s Server) path() path {
	p := path{td: s.TrustDomain}
	p.word("agent")
	p.word("server")
	p.word("dc")
	p.value("Datacenter", s.Datacenter)
	return p
}

func (w Workload) path() path {
	p := path{td: w.TrustDomain}
	p.word("ns")
	p.value("Namespace", w.Namespace)
	p.word("sa")
	p.value("ServiceAccount", w.ServiceAccount)
	return p
}

func (s Signing) path() path { return path{td: s.TrustDomain} }

// String returns the canonical URI, without validating.
func (s Service) String() string { p := s.path(); return p.string() }

// String returns the canonical URI, without validating.
func (g MeshGateway) String() string { p := g.path(); return p.string() }

// String returns the canonical URI, without validating.
func (a Agent) String() string { p := a.path(); return p.string() }

// String returns the canonical URI, without validating.
func (s Server) String() string { p := s.path(); return p.string() }

// String returns the canonical URI, without validating.
func (w Workload) String() string { p := w.path(); return p.string() }

// String returns the canonical URI, without validating.
func (s Signing) String() string { p := s.path(); return p.string() }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (s Service) AppendTo(b []byte) []byte { p := s.path(); return p.appendTo(b) }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (g MeshGateway) AppendTo(b []byte) []byte { p := g.path(); return p.appendTo(b) }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (a Agent) AppendTo(b []byte) []byte { p := a.path(); return p.appendTo(b) }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (s Server) AppendTo(b []byte) []byte { p := s.path(); return p.appendTo(b) }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (w Workload) AppendTo(b []byte) []byte { p := w.path(); return p.appendTo(b) }

// AppendTo appends the canonical URI to b and returns the extended buffer.
func (s Signing) AppendTo(b []byte) []byte { p := s.path(); return p.appendTo(b) }

// Validate reports every component that keeps the URI from parsing back.
func (s Service) Validate() error { p := s.path(); return p.validate() }

// Validate reports every component that keeps the URI from parsing back.
func (g MeshGateway) Validate() error { p := g.path(); return p.validate() }

// Validate reports every component that keeps the URI from parsing back.
func (a Agent) Validate() error { p := a.path(); return p.validate() }

// Validate reports every component that keeps the URI from parsing back.
func (s Server) Validate() error { p := s.path(); return p.validate() }

// Validate reports every component that keeps the URI from parsing back.
func (w Workload) Validate() error { p := w.path(); return p.validate() }

// Validate reports a trust domain that keeps the URI from parsing back.
func (s Signing) Validate() error { p := s.path(); return p.validate() }

// Character classes: what a trust domain and what a path segment may hold.
const (
	inTrustDomain = 1 << iota
	inSegment
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = inTrustDomain | inSegment
		t[c-'a'+'A'] = inSegment
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = inTrustDomain | inSegment
	}
	for _, c := range ".-_" {
		t[c] = inTrustDomain | inSegment
	}
	return t
}()

func trustDomainProblem(td string) string {
	if td == "" {
		return "must not be empty"
	}
	if len(td) > MaxTrustDomainLength {
		return "must be at most " + strconv.Itoa(MaxTrustDomainLength) + " bytes long, has " + strconv.Itoa(len(td))
	}
	for i := 0; i < len(td); i++ {
		if class[td[i]]&inTrustDomain == 0 {
			return "must not contain " + describe(td[i]) + " (allowed: a-z, 0-9, \".\", \"-\" and \"_\")"
		}
	}
	return ""
}

func segmentProblem(s string) string {
	switch s {
	case "":
		return "must not be empty"
	case ".", "..":
		return "must not be a dot segment"
	}
	for i := 0; i < len(s); i++ {
		if class[s[i]]&inSegment == 0 {
			return "must not contain " + describe(s[i]) + " (allowed: a-z, A-Z, 0-9, \".\", \"-\" and \"_\")"
		}
	}
	return ""
}

func describe(c byte) string {
	switch c {
	case '/':
		return `"/" (the path separator)`
	case '%':
		return `"%" (percent-encoding)`
	}
	if 'A' <= c && c <= 'Z' {
		return "upper case " + strconv.QuoteRune(rune(c))
	}
	if c < 0x20 || c >= 0x7f {
		return "byte " + fmt.Sprintf("0x%02x", c)
	}
	return strconv.QuoteRune(rune(c))
}

package sni

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
)

// Sentinel errors. Every error that Validate and Parse return wraps one of them.
var (
	// ErrInvalidComponent: a component is empty where it is required, or is not a lowercase
	// RFC 1123 label (a datacenter may also hold "_"; the trust domain must be a subdomain).
	ErrInvalidComponent = errors.New("invalid SNI component")
	// ErrTooLong: the whole name is longer than 253 characters.
	ErrTooLong = errors.New("SNI name too long")
	// ErrForeignTrustDomain: the name Parse was given does not end in the trust domain.
	ErrForeignTrustDomain = errors.New("SNI name outside the trust domain")
	// ErrMalformed: the name has no known kind, the wrong number of labels for its kind, or
	// a non-canonical spelling.
	ErrMalformed = errors.New("malformed SNI name")
)

// FieldError is the one structured error type of meshscope's packages: every error Validate
// and Parse return is a *FieldError (or several joined), so errors.As gives the component
// (Field: "Service", "TrustDomain"; empty for the name as a whole), the offending Value, a
// Detail for people, and Err, the sentinel above that errors.Is matches.
type FieldError = fielderr.Error

// component is a problem with one component: `Field: "value" reason`.
func component(field, value, reason string) *FieldError {
	return fielderr.New(field, value, strconv.Quote(value)+" "+reason, ErrInvalidComponent)
}

// problem is a problem with the whole name, wrapping kind: "kind: detail".
func problem(kind error, name, format string, args ...any) *FieldError {
	return fielderr.New("", name, kind.Error()+": "+fmt.Sprintf(format, args...), kind)
}

// MaxLength is the longest SNI name (a DNS name).
const MaxLength = names.MaxSubdomain

// kind is a kind label: the last label before the trust domain, which says what the name
// names and how many labels come before it.
type kind string

// The kind labels.
const (
	kindInternal   kind = "internal"
	kindInternalV1 kind = "internal-v1"
	kindExternal   kind = "external"
	kindQuery      kind = "query"
	kindPeering    kind = "peering"
)

// Name is an SNI name of one of the five kinds: Service, Peered, Gateway, Query or
// PeeringServer. The interface is sealed (only this package's types implement it), so a type
// switch on the result of Parse over the five is exhaustive.
type Name interface {
	// String returns the SNI name; it does not validate.
	String() string
	// Validate reports every problem with the value's components.
	Validate() error
	sealed()
}

var (
	_ Name = Service{}
	_ Name = Peered{}
	_ Name = Gateway{}
	_ Name = Query{}
	_ Name = PeeringServer{}
)

func (Service) sealed()       {}
func (Peered) sealed()        {}
func (Gateway) sealed()       {}
func (Query) sealed()         {}
func (PeeringServer) sealed() {}

// Service names a service (or one of its subsets) in a datacenter of the local cluster:
//
//	[subset.]service.namespace.datacenter.internal.<trust domain>              default partition
//	[subset.]service.namespace.partition.datacenter.internal-v1.<trust domain> other partitions
//
// An empty Namespace or Partition means "default". Service and Datacenter are required.
type Service struct {
	Subset      string
	Service     string
	Namespace   string
	Partition   string
	Datacenter  string
	TrustDomain string
}

// Peered names a service that a peer exports, as the importing side dials it:
//
//	service.namespace.partition.peer.external.<trust domain>
//
// The namespace and partition are always written (empty means "default"). Service and Peer
// are required.
type Peered struct {
	Service     string
	Namespace   string
	Partition   string
	Peer        string
	TrustDomain string
}

// Gateway names the mesh gateway of a datacenter (and partition):
//
//	datacenter.internal.<trust domain>                default partition
//	partition.datacenter.internal-v1.<trust domain>   other partitions
//
// Datacenter is required.
type Gateway struct {
	Partition   string
	Datacenter  string
	TrustDomain string
}

// Query names a prepared query:
//
//	query.default.datacenter.query.<trust domain>
//
// The second label is always "default". Query and Datacenter are required.
type Query struct {
	Query       string
	Datacenter  string
	TrustDomain string
}

// PeeringServer names the Consul servers of a datacenter as a peer dials them to establish
// and keep a peering (the peering stream and its replication):
//
//	server.datacenter.peering.<trust domain>
//
// Datacenter is required.
type PeeringServer struct {
	Datacenter  string
	TrustDomain string
}

func isDefault(s string) bool { return s == "" || s == names.Default }

// labels is a name's labels before the trust domain, in order, the kind label last.
type labels struct {
	n int
	l [7]string
}

func (ls *labels) add(s string) { ls.l[ls.n] = s; ls.n++ }

// kind adds the kind label k.
func (ls *labels) kind(k kind) { ls.add(string(k)) }

// split returns the kind label, the last, and the components before it.
func (ls *labels) split() (kind, []string) { return kind(ls.l[ls.n-1]), ls.l[:ls.n-1] }

func (ls *labels) size(td string) int {
	n := len(td)
	for _, s := range ls.l[:ls.n] {
		n += len(s) + 1
	}
	return n
}

func (ls *labels) appendTo(b []byte, td string) []byte {
	for _, s := range ls.l[:ls.n] {
		b = append(b, s...)
		b = append(b, '.')
	}
	return append(b, td...)
}

func (ls *labels) string(td string) string {
	return names.String(ls.appendTo(make([]byte, 0, ls.size(td)), td))
}

func (s Service) labels() labels {
	var ls labels
	if s.Subset != "" {
		ls.add(s.Subset)
	}
	ls.add(s.Service)
	ls.add(names.OrDefault(s.Namespace))
	if isDefault(s.Partition) {
		ls.add(s.Datacenter)
		ls.kind(kindInternal)
	} else {
		ls.add(s.Partition)
		ls.add(s.Datacenter)
		ls.kind(kindInternalV1)
	}
	return ls
}

// String returns the SNI name, without validating.
func (s Service) String() string { ls := s.labels(); return ls.string(s.TrustDomain) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (s Service) AppendTo(b []byte) []byte { ls := s.labels(); return ls.appendTo(b, s.TrustDomain) }

// Validate reports every invalid component, and a name longer than MaxLength.
func (s Service) Validate() error {
	var v validator
	s.check(&v)
	v.trustDomain(s.TrustDomain)
	ls := s.labels()
	return v.finish(&ls, s.TrustDomain)
}

// check validates the components other than the trust domain.
func (s Service) check(v *validator) {
	v.optional("Subset", s.Subset)
	v.label("Service", s.Service)
	v.optional("Namespace", s.Namespace)
	v.optional("Partition", s.Partition)
	v.datacenter("Datacenter", s.Datacenter)
}

func (p Peered) labels() labels {
	var ls labels
	ls.add(p.Service)
	ls.add(names.OrDefault(p.Namespace))
	ls.add(names.OrDefault(p.Partition))
	ls.add(p.Peer)
	ls.kind(kindExternal)
	return ls
}

// String returns the SNI name, without validating.
func (p Peered) String() string { ls := p.labels(); return ls.string(p.TrustDomain) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (p Peered) AppendTo(b []byte) []byte { ls := p.labels(); return ls.appendTo(b, p.TrustDomain) }

// Validate reports every invalid component, and a name longer than MaxLength.
func (p Peered) Validate() error {
	var v validator
	p.check(&v)
	v.trustDomain(p.TrustDomain)
	ls := p.labels()
	return v.finish(&ls, p.TrustDomain)
}

// check validates the components other than the trust domain.
func (p Peered) check(v *validator) {
	v.label("Service", p.Service)
	v.optional("Namespace", p.Namespace)
	v.optional("Partition", p.Partition)
	v.label("Peer", p.Peer)
}

func (g Gateway) labels() labels {
	var ls labels
	if isDefault(g.Partition) {
		ls.add(g.Datacenter)
		ls.kind(kindInternal)
	} else {
		ls.add(g.Partition)
		ls.add(g.Datacenter)
		ls.kind(kindInternalV1)
	}
	return ls
}

// String returns the SNI name, without validating.
func (g Gateway) String() string { ls := g.labels(); return ls.string(g.TrustDomain) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (g Gateway) AppendTo(b []byte) []byte { ls := g.labels(); return ls.appendTo(b, g.TrustDomain) }

// Validate reports every invalid component, and a name longer than MaxLength.
func (g Gateway) Validate() error {
	var v validator
	g.check(&v)
	v.trustDomain(g.TrustDomain)
	ls := g.labels()
	return v.finish(&ls, g.TrustDomain)
}

// check validates the components other than the trust domain.
func (g Gateway) check(v *validator) {
	v.optional("Partition", g.Partition)
	v.datacenter("Datacenter", g.Datacenter)
}

func (q Query) labels() labels {
	var ls labels
	ls.add(q.Query)
	ls.add(names.Default)
	ls.add(q.Datacenter)
	ls.kind(kindQuery)
	return ls
}

// String returns the SNI name, without validating.
func (q Query) String() string { ls := q.labels(); return ls.string(q.TrustDomain) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (q Query) AppendTo(b []byte) []byte { ls := q.labels(); return ls.appendTo(b, q.TrustDomain) }

// Validate reports every invalid component, and a name longer than MaxLength.
func (q Query) Validate() error {
	var v validator
	q.check(&v)
	v.trustDomain(q.TrustDomain)
	ls := q.labels()
	return v.finish(&ls, q.TrustDomain)
}

// check validates the components other than the trust domain.
func (q Query) check(v *validator) {
	v.label("Query", q.Query)
	v.datacenter("Datacenter", q.Datacenter)
}

// peeringServerLabel is the first label of a peering server name.
const peeringServerLabel = "server"

func (p PeeringServer) labels() labels {
	var ls labels
	ls.add(peeringServerLabel)
	ls.add(p.Datacenter)
	ls.kind(kindPeering)
	return ls
}

// String returns the SNI name, without validating.
func (p PeeringServer) String() string { ls := p.labels(); return ls.string(p.TrustDomain) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (p PeeringServer) AppendTo(b []byte) []byte {
	ls := p.labels()
	return ls.appendTo(b, p.TrustDomain)
}

// Validate reports every invalid component, and a name longer than MaxLength.
func (p PeeringServer) Validate() error {
	var v validator
	p.check(&v)
	v.trustDomain(p.TrustDomain)
	ls := p.labels()
	return v.finish(&ls, p.TrustDomain)
}

// check validates the components other than the trust domain.
func (p PeeringServer) check(v *validator) { v.datacenter("Datacenter", p.Datacenter) }

// validator collects the problems of one value; it allocates only when there are some.
type validator struct{ errs []error }

func (v *validator) add(field, value, reason string) {
	if reason != "" {
		v.errs = append(v.errs, component(field, value, reason))
	}
}

func (v *validator) label(field, value string) { v.add(field, value, names.Label(value)) }

func (v *validator) datacenter(field, value string) { v.add(field, value, names.Datacenter(value)) }

func (v *validator) optional(field, value string) {
	if value != "" {
		v.label(field, value)
	}
}

func (v *validator) trustDomain(td string) { v.add("TrustDomain", td, names.Subdomain(td)) }

func (v *validator) finish(ls *labels, td string) error {
	if n := ls.size(td); n > MaxLength {
		v.errs = append(v.errs, problem(ErrTooLong, ls.string(td), "%q is %d characters long, at most %d are allowed", ls.string(td), n, MaxLength))
	}
	return errors.Join(v.errs...)
}

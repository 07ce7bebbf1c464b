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
	// labels seals the interface: the name's labels, each with how Validate checks it.
	labels() labels
}

var (
	_ Name = Service{}
	_ Name = Peered{}
	_ Name = Gateway{}
	_ Name = Query{}
	_ Name = PeeringServer{}
)

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

// part is the component a label holds, or none: a word of the name's kind, which Validate
// does not check. A Datacenter is checked as a label that may also hold "_"; every other
// component as an RFC 1123 label.
type part uint8

const (
	word part = iota
	subset
	service
	namespace
	partition
	datacenter
	peer
	query
)

// fields are the parts' fields, as Validate names them.
var fields = [...]string{word: "", subset: "Subset", service: "Service", namespace: "Namespace", partition: "Partition",
	datacenter: "Datacenter", peer: "Peer", query: "Query"}

// labels is a name's labels before the trust domain, in order, the kind label last, with the
// part each holds; and the trust domain.
type labels struct {
	n    int
	l    [7]string
	part [7]part
	td   string
}

func (ls *labels) add(p part, s string) {
	ls.l[ls.n], ls.part[ls.n] = s, p
	ls.n++
}

// word adds a label of the name's kind, which Validate does not check.
func (ls *labels) word(s string) { ls.add(word, s) }

// kind adds the kind label k.
func (ls *labels) kind(k kind) { ls.word(string(k)) }

// split returns the kind label, the last, and the components before it.
func (ls *labels) split() (kind, []string) { return kind(ls.l[ls.n-1]), ls.l[:ls.n-1] }

func (ls *labels) size() int {
	n := len(ls.td)
	for _, s := range ls.l[:ls.n] {
		n += len(s) + 1
	}
	return n
}

func (ls *labels) appendTo(b []byte) []byte {
	for _, s := range ls.l[:ls.n] {
		b = append(b, s...)
		b = append(b, '.')
	}
	return append(b, ls.td...)
}

func (ls *labels) string() string {
	return names.String(ls.appendTo(make([]byte, 0, ls.size())))
}

// components reports every component that is not valid, in order; nil when all are. A
// value's optional components are labels only when set (a subset), or are written "default"
// when empty (a namespace or partition), so every label is checked as required.
func (ls *labels) components() []error {
	var errs []error
	for i, s := range ls.l[:ls.n] {
		var reason string
		switch ls.part[i] {
		case word:
		case datacenter:
			reason = names.Datacenter(s)
		default:
			reason = names.Label(s)
		}
		if reason != "" {
			errs = append(errs, component(fields[ls.part[i]], s, reason))
		}
	}
	return errs
}

// validate reports every invalid component, an invalid trust domain, and a name longer than
// MaxLength.
func (ls *labels) validate() error {
	errs := ls.components()
	if r := names.Subdomain(ls.td); r != "" {
		errs = append(errs, component("TrustDomain", ls.td, r))
	}
	if n := ls.size(); n > MaxLength {
		errs = append(errs, problem(ErrTooLong, ls.string(), "%q is %d characters long, at most %d are allowed", ls.string(), n, MaxLength))
	}
	return errors.Join(errs...)
}

func (s Service) labels() labels {
	ls := labels{td: s.TrustDomain}
	if s.Subset != "" {
		ls.add(subset, s.Subset)
	}
	ls.add(service, s.Service)
	ls.add(namespace, names.OrDefault(s.Namespace))
	ls.local(s.Partition, s.Datacenter)
	return ls
}

// local adds the labels that place a service or gateway in the local cluster: its partition
// unless it is the default one, its datacenter, and the kind label that says which
// (internal-v1 with a partition, internal without).
func (ls *labels) local(ap, dc string) {
	if isDefault(ap) {
		ls.add(datacenter, dc)
		ls.kind(kindInternal)
		return
	}
	ls.add(partition, ap)
	ls.add(datacenter, dc)
	ls.kind(kindInternalV1)
}

func (p Peered) labels() labels {
	ls := labels{td: p.TrustDomain}
	ls.add(service, p.Service)
	ls.add(namespace, names.OrDefault(p.Namespace))
	ls.add(partition, names.OrDefault(p.Partition))
	ls.add(peer, p.Peer)
	ls.kind(kindExternal)
	return ls
}

func (g Gateway) labels() labels {
	ls := labels{td: g.TrustDomain}
	ls.local(g.Partition, g.Datacenter)
	return ls
}

func (q Query) labels() labels {
	ls := labels{td: q.TrustDomain}
	ls.add(query, q.Query)
	ls.word(names.Default)
	ls.add(datacenter, q.Datacenter)
	ls.kind(kindQuery)
	return ls
}

// peeringServerLabel is the first label of a peering server name.
const peeringServerLabel = "server"

func (p PeeringServer) labels() labels {
	ls := labels{td: p.TrustDomain}
	ls.word(peeringServerLabel)
	ls.add(datacenter, p.Datacenter)
	ls.kind(kindPeering)
	return ls
}

// String returns the SNI name, without validating.
func (s Service) String() string { ls := s.labels(); return ls.string() }

// String returns the SNI name, without validating.
func (p Peered) String() string { ls := p.labels(); return ls.string() }

// String returns the SNI name, without validating.
func (g Gateway) String() string { ls := g.labels(); return ls.string() }

// String returns the SNI name, without validating.
func (q Query) String() string { ls := q.labels(); return ls.string() }

// String returns the SNI name, without validating.
func (p PeeringServer) String() string { ls := p.labels(); return ls.string() }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (s Service) AppendTo(b []byte) []byte { ls := s.labels(); return ls.appendTo(b) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (p Peered) AppendTo(b []byte) []byte { ls := p.labels(); return ls.appendTo(b) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (g Gateway) AppendTo(b []byte) []byte { ls := g.labels(); return ls.appendTo(b) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (q Query) AppendTo(b []byte) []byte { ls := q.labels(); return ls.appendTo(b) }

// AppendTo appends the SNI name to b and returns the extended buffer.
func (p PeeringServer) AppendTo(b []byte) []byte { ls := p.labels(); return ls.appendTo(b) }

// Validate reports every invalid component, and a name longer than MaxLength.
func (s Service) Validate() error { ls := s.labels(); return ls.validate() }

// Validate reports every invalid component, and a name longer than MaxLength.
func (p Peered) Validate() error { ls := p.labels(); return ls.validate() }

// Validate reports every invalid component, and a name longer than MaxLength.
func (g Gateway) Validate() error { ls := g.labels(); return ls.validate() }

// Validate reports every invalid component, and a name longer than MaxLength.
func (q Query) Validate() error { ls := q.labels(); return ls.validate() }

// Validate reports every invalid component, and a name longer than MaxLength.
func (p PeeringServer) Validate() error { ls := p.labels(); return ls.validate() }

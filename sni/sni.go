package sni

import (
	"errors"
	"fmt"
	"math/bits"
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

// The kind labels: the last label before the trust domain.
const (
	kindInternal   = "internal"
	kindInternalV1 = "internal-v1"
	kindExternal   = "external"
	kindQuery      = "query"
	kindPeering    = "peering"
)

const defaultName = names.Default

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

func orDefault(s string) string { return names.OrDefault(s) }

func isDefault(s string) bool { return s == "" || s == defaultName }

// labels is a name's labels before the trust domain, in order, the kind label last.
type labels struct {
	n int
	l [7]string
}

func (ls *labels) add(s string) { ls.l[ls.n] = s; ls.n++ }

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
	ls.add(orDefault(s.Namespace))
	if isDefault(s.Partition) {
		ls.add(s.Datacenter)
		ls.add(kindInternal)
	} else {
		ls.add(s.Partition)
		ls.add(s.Datacenter)
		ls.add(kindInternalV1)
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
	ls.add(orDefault(p.Namespace))
	ls.add(orDefault(p.Partition))
	ls.add(p.Peer)
	ls.add(kindExternal)
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
		ls.add(kindInternal)
	} else {
		ls.add(g.Partition)
		ls.add(g.Datacenter)
		ls.add(kindInternalV1)
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
	ls.add(defaultName)
	ls.add(q.Datacenter)
	ls.add(kindQuery)
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
	ls.add(kindPeering)
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

// Parse reads an SNI name of the trust domain td and returns the canonical Service, Peered,
// Gateway or Query it names: an empty namespace or partition is returned as "default".
//
// Parse is strict: the name must end in "."+td, its kind label must be one of internal,
// internal-v1, external or query with the number of labels that kind has, every component
// must be valid, and the spelling must be canonical (an internal-v1 name whose partition is
// "default" is rejected: its canonical form is the internal one). Thus
// Parse(n, td).String() == n for every name Parse accepts.
//
// A name made only of valid labels takes one pass that validates as it splits; any other
// input is parsed again, slowly, to say exactly what is wrong.
func Parse(name, td string) (Name, error) {
	if n, ok := parseValid(name, td); ok {
		return n, nil
	}
	return parseSlow(name, td)
}

// parseValid parses name in one pass when every one of its labels, the trust domain's
// included, is a valid label (a-z, 0-9 and '-', starting and ending with a letter or digit,
// at most 63 long) and it has a known shape; ok is false otherwise, and parseSlow then gives
// the error. A valid label is a valid value for every component, so no component is checked
// again.
func parseValid(name, td string) (n Name, ok bool) {
	end := len(name) - len(td) - 1 // the dot before the trust domain
	if len(name) > MaxLength || td == "" || end < 1 || name[end] != '.' || name[end+1:] != td {
		return nil, false
	}
	var ls labels
	start := 0
	i := 0
	// Eight bytes at a time while they are all label bytes or dots (dots are found from the
	// word's dot mask); the rest a byte at a time.
	for ; i+8 <= len(name); i += 8 {
		w := uint64(name[i]) | uint64(name[i+1])<<8 | uint64(name[i+2])<<16 | uint64(name[i+3])<<24 |
			uint64(name[i+4])<<32 | uint64(name[i+5])<<40 | uint64(name[i+6])<<48 | uint64(name[i+7])<<56
		dots := inRange(w, '.', '.')
		if w&high != 0 || (inRange(w, 'a', 'z')|inRange(w, '0', '9')|inRange(w, '-', '-')|dots) != high {
			return nil, false
		}
		for dots != 0 {
			d := i + bits.TrailingZeros64(dots)/8
			if !validLabel(name, start, d) {
				return nil, false
			}
			if d <= end {
				if ls.n == len(ls.l) {
					return nil, false
				}
				ls.add(name[start:d])
			}
			start = d + 1
			dots &= dots - 1
		}
	}
	for ; i < len(name); i++ {
		switch byteClass[name[i]] {
		case classEnd, classLabel:
			continue
		case classDot:
			if !validLabel(name, start, i) {
				return nil, false
			}
			if i <= end {
				if ls.n == len(ls.l) {
					return nil, false
				}
				ls.add(name[start:i])
			}
			start = i + 1
		default:
			return nil, false
		}
	}
	if !validLabel(name, start, len(name)) {
		return nil, false
	}
	kind, c := ls.l[ls.n-1], ls.l[:ls.n-1]
	n, err := nameOf(name, td, kind, c)
	if err != nil || kind == kindInternalV1 && c[len(c)-2] == defaultName {
		return nil, false
	}
	return n, true
}

// The classes of bytes in parseValid's single pass.
const (
	classOther = iota
	classEnd   // a-z, 0-9: may start and end a label
	classLabel // '-'
	classDot
)

var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case names.LabelEnd(byte(c)):
			t[c] = classEnd
		case names.LabelByte(byte(c)):
			t[c] = classLabel
		}
	}
	t['.'] = classDot
	return t
}()

// high has the high bit of each byte of a word set.
const high = 0x8080808080808080

// inRange returns, for a word of eight bytes below 0x80, the high bit of each byte that is
// in lo..hi: x >= lo sets the high bit of x+(0x80-lo), and no byte carries into the next.
func inRange(w uint64, lo, hi byte) uint64 {
	const ones = 0x0101010101010101
	ge := (w + ones*uint64(0x80-lo)) & high
	gt := (w + ones*uint64(0x80-hi-1)) & high
	return ge &^ gt
}

// validLabel reports whether name[start:end], made of label bytes, is a valid label: not
// empty, at most 63 long, starting and ending with a letter or digit.
func validLabel(name string, start, end int) bool {
	return end > start && end-start <= names.MaxLabel && end <= len(name) &&
		byteClass[name[start]] == classEnd && byteClass[name[end-1]] == classEnd
}

// parseSlow is Parse step by step, each step with its own error.
func parseSlow(name, td string) (Name, error) {
	if len(name) > MaxLength {
		return nil, problem(ErrTooLong, name, "%q is %d characters long, at most %d are allowed", name, len(name), MaxLength)
	}
	if r := names.Subdomain(td); r != "" {
		return nil, component("TrustDomain", td, r)
	}
	if len(name) < len(td)+1 || name[len(name)-len(td)-1] != '.' || name[len(name)-len(td):] != td {
		return nil, problem(ErrForeignTrustDomain, name, "%q does not end in %q", name, "."+td)
	}
	var ls labels
	if err := splitLabels(&ls, name, name[:len(name)-len(td)-1]); err != nil {
		return nil, err
	}
	kind, c := ls.l[ls.n-1], ls.l[:ls.n-1]
	n, err := nameOf(name, td, kind, c)
	if err != nil {
		return nil, err
	}
	if kind == kindInternalV1 && c[len(c)-2] == defaultName {
		return nil, problem(ErrMalformed, name, "%q names the default partition with %q; its canonical form uses %q",
			name, kindInternalV1, kindInternal)
	}
	// The trust domain and the length are checked above; only the components remain.
	if err := checkComponents(name, n); err != nil {
		return nil, err
	}
	return n, nil
}

// splitLabels splits rest, the labels of name before its trust domain, into ls.
func splitLabels(ls *labels, name, rest string) error {
	for start, i := 0, 0; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '.' {
			continue
		}
		if i == start {
			return problem(ErrMalformed, name, "%q has an empty label before the trust domain", name)
		}
		if ls.n == len(ls.l) {
			return problem(ErrMalformed, name, "%q has more labels before the trust domain than any kind of name", name)
		}
		ls.add(rest[start:i])
		start = i + 1
	}
	return nil
}

// nameOf returns the name of the kind label kind with components c, canonical.
func nameOf(name, td, kind string, c []string) (Name, error) {
	switch {
	case kind == kindInternal && len(c) == 3:
		return Service{Service: c[0], Namespace: c[1], Partition: defaultName, Datacenter: c[2], TrustDomain: td}, nil
	case kind == kindInternal && len(c) == 4:
		return Service{Subset: c[0], Service: c[1], Namespace: c[2], Partition: defaultName, Datacenter: c[3], TrustDomain: td}, nil
	case kind == kindInternal && len(c) == 1:
		return Gateway{Partition: defaultName, Datacenter: c[0], TrustDomain: td}, nil
	case kind == kindInternalV1 && len(c) == 4:
		return Service{Service: c[0], Namespace: c[1], Partition: c[2], Datacenter: c[3], TrustDomain: td}, nil
	case kind == kindInternalV1 && len(c) == 5:
		return Service{Subset: c[0], Service: c[1], Namespace: c[2], Partition: c[3], Datacenter: c[4], TrustDomain: td}, nil
	case kind == kindInternalV1 && len(c) == 2:
		return Gateway{Partition: c[0], Datacenter: c[1], TrustDomain: td}, nil
	case kind == kindExternal && len(c) == 4:
		return Peered{Service: c[0], Namespace: c[1], Partition: c[2], Peer: c[3], TrustDomain: td}, nil
	case kind == kindPeering && len(c) == 2:
		if c[0] != peeringServerLabel {
			return nil, problem(ErrMalformed, name, "%q: the first label of a peering server name must be %q, got %q", name, peeringServerLabel, c[0])
		}
		return PeeringServer{Datacenter: c[1], TrustDomain: td}, nil
	case kind == kindQuery && len(c) == 3:
		if c[1] != defaultName {
			return nil, problem(ErrMalformed, name, "%q: the second label of a query name must be %q, got %q", name, defaultName, c[1])
		}
		return Query{Query: c[0], Datacenter: c[2], TrustDomain: td}, nil
	default:
		return nil, malformed(name, kind, len(c))
	}
}

// checkComponents validates the components of a parsed name.
func checkComponents(name string, n Name) error {
	var v validator
	switch x := n.(type) { // concrete calls keep v on the stack
	case Service:
		x.check(&v)
	case Peered:
		x.check(&v)
	case Gateway:
		x.check(&v)
	case Query:
		x.check(&v)
	case PeeringServer:
		x.check(&v)
	}
	if v.errs != nil {
		return fielderr.In(fmt.Sprintf("SNI name %q", name), errors.Join(v.errs...))
	}
	return nil
}

func malformed(name, kind string, n int) error {
	var want string
	switch kind {
	case kindInternal:
		want = "3 or 4 (service) or 1 (gateway)"
	case kindInternalV1:
		want = "4 or 5 (service) or 2 (gateway)"
	case kindExternal:
		want = "4 (peered service)"
	case kindQuery:
		want = "3 (prepared query)"
	case kindPeering:
		want = "2 (peering server)"
	default:
		return problem(ErrMalformed, name, "%q: unknown kind %q before the trust domain (want internal, internal-v1, external, query or peering)",
			name, kind)
	}
	return problem(ErrMalformed, name, "%q has %s labels before %q, want %s", name, strconv.Itoa(n), kind, want)
}

// MustParse is Parse for names known to be valid, such as constants in tests; it panics if
// Parse fails.
func MustParse(name, td string) Name {
	n, err := Parse(name, td)
	if err != nil {
		panic(err)
	}
	return n
}

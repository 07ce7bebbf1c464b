package sni

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/testkit"
)

const td = "11111111-2222-3333-4444-555555555555.consul"

func TestString(t *testing.T) {
	tests := []struct {
		name string
		in   Name
		want string
	}{
		{"service default partition", Service{Service: "api", Datacenter: "foo", TrustDomain: td}, "api.default.foo.internal." + td},
		{"service explicit default", Service{Service: "api", Namespace: "default", Partition: "default", Datacenter: "foo", TrustDomain: td}, "api.default.foo.internal." + td},
		{"service subset", Service{Subset: "v2", Service: "api", Datacenter: "foo", TrustDomain: td}, "v2.api.default.foo.internal." + td},
		{"service namespace", Service{Service: "api", Namespace: "neighbor", Datacenter: "foo", TrustDomain: td}, "api.neighbor.foo.internal." + td},
		{"service partition", Service{Service: "api", Namespace: "neighbor", Partition: "part1", Datacenter: "foo", TrustDomain: td}, "api.neighbor.part1.foo.internal-v1." + td},
		{"service partition subset", Service{Subset: "v2", Service: "api", Partition: "part1", Datacenter: "foo", TrustDomain: td}, "v2.api.default.part1.foo.internal-v1." + td},
		{"peered", Peered{Service: "web", Namespace: "default", Partition: "default", Peer: "owt", TrustDomain: td}, "web.default.default.owt.external." + td},
		{"peered empty defaults", Peered{Service: "web", Peer: "owt", TrustDomain: td}, "web.default.default.owt.external." + td},
		{"peered partition", Peered{Service: "web", Namespace: "ns1", Partition: "ap1", Peer: "owt", TrustDomain: td}, "web.ns1.ap1.owt.external." + td},
		{"gateway default", Gateway{Datacenter: "dc1", TrustDomain: td}, "dc1.internal." + td},
		{"gateway partition", Gateway{Partition: "part1", Datacenter: "dc1", TrustDomain: td}, "part1.dc1.internal-v1." + td},
		{"query", Query{Query: "magicquery", Datacenter: "foo", TrustDomain: td}, "magicquery.default.foo.query." + td},
		{"peering server", PeeringServer{Datacenter: "dc1", TrustDomain: td}, "server.dc1.peering." + td},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.in.String())
			assert.Equal(t, "x"+tt.want, string(appendTo(tt.in, []byte("x"))))
			require.NoError(t, tt.in.Validate())
			got, err := Parse(tt.want, td)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.String())
			assert.Equal(t, testkit.Canonical(tt.in), got)
		})
	}
}

func appendTo(n Name, b []byte) []byte {
	return n.(interface{ AppendTo([]byte) []byte }).AppendTo(b)
}

func TestValidate(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct {
		name string
		in   Name
		errs []string // every message, in order
	}{
		{"service missing service and dc", Service{TrustDomain: td}, []string{
			`Service: "" must not be empty`,
			`Datacenter: "" must not be empty`,
		}},
		{"service separator", Service{Service: "web.default", Datacenter: "dc1", TrustDomain: td}, []string{
			`Service: "web.default" must not contain "." (the label separator)`,
		}},
		{"every component bad", Service{Subset: "V1", Service: "a_b", Namespace: "-ns", Partition: "p.q", Datacenter: "dc!", TrustDomain: "Consul"}, []string{
			`Subset: "V1" must be lower case`,
			`Service: "a_b" must not contain '_' (allowed: a-z, 0-9 and "-")`,
			`Namespace: "-ns" must start and end with a lower-case letter or a digit`,
			`Partition: "p.q" must not contain "." (the label separator)`,
			`Datacenter: "dc!" must not contain '!' (allowed: a-z, 0-9, "-" and "_")`,
			`TrustDomain: "Consul" label "Consul" must be lower case`,
		}},
		{"datacenter underscore ok", Service{Service: "a", Datacenter: "dc_1", TrustDomain: td}, nil},
		{"label too long", Service{Service: long + "a", Datacenter: "dc1", TrustDomain: td}, []string{
			`Service: "` + long + `a" must be at most 63 characters long, has 64`,
		}},
		{"name too long", Service{Subset: long, Service: long, Namespace: long, Datacenter: long, TrustDomain: td}, []string{
			fmt.Sprintf("SNI name too long: %q is 308 characters long, at most 253 are allowed",
				long+"."+long+"."+long+"."+long+".internal."+td),
		}},
		{"empty trust domain", Gateway{Datacenter: "dc1"}, []string{`TrustDomain: "" must not be empty`}},
		{"trust domain trailing dot", Gateway{Datacenter: "dc1", TrustDomain: "consul."}, []string{
			`TrustDomain: "consul." must not have an empty label (a leading, trailing or doubled ".")`,
		}},
		{"peered missing peer", Peered{Service: "web", TrustDomain: td}, []string{`Peer: "" must not be empty`}},
		{"peered bad peer", Peered{Service: "web", Peer: "East", TrustDomain: td}, []string{`Peer: "East" must be lower case`}},
		{"gateway missing dc", Gateway{Partition: "p", TrustDomain: td}, []string{`Datacenter: "" must not be empty`}},
		{"query missing", Query{TrustDomain: td}, []string{`Query: "" must not be empty`, `Datacenter: "" must not be empty`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Validate()
			testkit.ErrLines(t, err, tt.errs)
			if err != nil {
				assert.True(t, errors.Is(err, ErrInvalidComponent) || errors.Is(err, ErrTooLong))
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in, td string
		is           error
		msg          string
	}{
		{"foreign trust domain", "api.default.dc1.internal.other.consul", td, ErrForeignTrustDomain, ""},
		{"suffix without dot", "api.default.dc1.internal" + td, td, ErrForeignTrustDomain, ""},
		{"only the trust domain", td, td, ErrForeignTrustDomain, ""},
		{"trust domain is a suffix of a label", "api.default.dc1.internal.x" + td, td, ErrForeignTrustDomain, ""},
		{"dot and trust domain", "." + td, td, ErrMalformed, ""},
		{"unknown kind", "api.default.dc1.interna1." + td, td, ErrMalformed,
			`malformed SNI name: "api.default.dc1.interna1.` + td + `": unknown kind "interna1" before the trust domain (want internal, internal-v1, external, query or peering)`},
		{"internal with 2", "api.dc1.internal." + td, td, ErrMalformed,
			`malformed SNI name: "api.dc1.internal.` + td + `" has 2 labels before "internal", want 3 or 4 (service) or 1 (gateway)`},
		{"internal with 5", "a.b.c.d.e.internal." + td, td, ErrMalformed, ""},
		{"internal-v1 with 3", "a.b.c.internal-v1." + td, td, ErrMalformed, ""},
		{"internal-v1 default partition", "api.default.default.dc1.internal-v1." + td, td, ErrMalformed,
			`malformed SNI name: "api.default.default.dc1.internal-v1.` + td + `" names the default partition with "internal-v1"; its canonical form uses "internal"`},
		{"gateway internal-v1 default", "default.dc1.internal-v1." + td, td, ErrMalformed, ""},
		{"external with 3", "web.default.peer.external." + td, td, ErrMalformed, ""},
		{"query second label", "q.other.dc1.query." + td, td, ErrMalformed,
			`malformed SNI name: "q.other.dc1.query.` + td + `": the second label of a query name must be "default", got "other"`},
		{"too many labels", "a.b.c.d.e.f.g.internal-v1." + td, td, ErrMalformed, ""},
		{"upper case", "API.default.dc1.internal." + td, td, ErrInvalidComponent,
			`SNI name "API.default.dc1.internal.` + td + `": Service: "API" must be lower case`},
		{"empty label", "api..dc1.internal." + td, td, ErrMalformed,
			`malformed SNI name: "api..dc1.internal.` + td + `" has an empty label before the trust domain`},
		{"leading dot", ".api.default.dc1.internal." + td, td, ErrMalformed, ""},
		{"too long", strings.Repeat("a.", 120) + "internal." + td, td, ErrTooLong, ""},
		{"invalid trust domain", "api.default.dc1.internal.Consul", "Consul", ErrInvalidComponent, `TrustDomain: "Consul" label "Consul" must be lower case`},
		{"empty trust domain", "api.default.dc1.internal.", "", ErrInvalidComponent, ""},
		{"empty name", "", td, ErrForeignTrustDomain, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in, tt.td)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, tt.is)
			if tt.msg != "" {
				assert.EqualError(t, err, tt.msg)
			}
			assert.Panics(t, func() { MustParse(tt.in, tt.td) })
		})
	}
}

func TestMustParse(t *testing.T) {
	assert.Equal(t, Gateway{Partition: "default", Datacenter: "dc1", TrustDomain: td}, MustParse("dc1.internal."+td, td))
}

// The components the random tests draw from: valid labels that collide with kind labels and
// "default", and invalid ones holding every separator.
var pool = []string{"", "", "default", "a", "b", "a-b", "internal", "internal-v1", "external", "query", "peering", "server",
	"dc_1", "x.y", "A", "a/b", "-a", strings.Repeat("z", 64)}

func randomName(r *rand.Rand, tds []string) Name {
	p := func() string { return pool[r.IntN(len(pool))] }
	t := tds[r.IntN(len(tds))]
	switch r.IntN(5) {
	case 4:
		return PeeringServer{Datacenter: p(), TrustDomain: t}
	case 0:
		return Service{Subset: p(), Service: p(), Namespace: p(), Partition: p(), Datacenter: p(), TrustDomain: t}
	case 1:
		return Peered{Service: p(), Namespace: p(), Partition: p(), Peer: p(), TrustDomain: t}
	case 2:
		return Gateway{Partition: p(), Datacenter: p(), TrustDomain: t}
	default:
		return Query{Query: p(), Datacenter: p(), TrustDomain: t}
	}
}

// refString is a literal rendering of the name table in the package documentation with
// fmt.Sprintf.
func refString(n Name) string {
	d := func(s string) string {
		if s == "" {
			return "default"
		}
		return s
	}
	switch v := n.(type) {
	case Service:
		prefix := ""
		if v.Subset != "" {
			prefix = v.Subset + "."
		}
		if d(v.Partition) == "default" {
			return fmt.Sprintf("%s%s.%s.%s.internal.%s", prefix, v.Service, d(v.Namespace), v.Datacenter, v.TrustDomain)
		}
		return fmt.Sprintf("%s%s.%s.%s.%s.internal-v1.%s", prefix, v.Service, d(v.Namespace), v.Partition, v.Datacenter, v.TrustDomain)
	case Peered:
		return fmt.Sprintf("%s.%s.%s.%s.external.%s", v.Service, d(v.Namespace), d(v.Partition), v.Peer, v.TrustDomain)
	case Gateway:
		if d(v.Partition) == "default" {
			return fmt.Sprintf("%s.internal.%s", v.Datacenter, v.TrustDomain)
		}
		return fmt.Sprintf("%s.%s.internal-v1.%s", v.Partition, v.Datacenter, v.TrustDomain)
	case Query:
		return fmt.Sprintf("%s.default.%s.query.%s", v.Query, v.Datacenter, v.TrustDomain)
	case PeeringServer:
		return fmt.Sprintf("server.%s.peering.%s", v.Datacenter, v.TrustDomain)
	}
	panic("unknown kind")
}

var (
	refLabel = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
	refDC    = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$`)
)

// refValid is a literal reading of the validation rules with regular expressions.
func refValid(n Name) bool {
	lab := refLabel.MatchString
	opt := func(s string) bool { return s == "" || lab(s) }
	tdOK := func(t string) bool {
		for _, l := range strings.Split(t, ".") {
			if !lab(l) {
				return false
			}
		}
		return len(t) <= 253
	}
	var ok bool
	switch v := n.(type) {
	case Service:
		ok = opt(v.Subset) && lab(v.Service) && opt(v.Namespace) && opt(v.Partition) && refDC.MatchString(v.Datacenter) && tdOK(v.TrustDomain)
	case Peered:
		ok = lab(v.Service) && opt(v.Namespace) && opt(v.Partition) && lab(v.Peer) && tdOK(v.TrustDomain)
	case Gateway:
		ok = opt(v.Partition) && refDC.MatchString(v.Datacenter) && tdOK(v.TrustDomain)
	case Query:
		ok = lab(v.Query) && refDC.MatchString(v.Datacenter) && tdOK(v.TrustDomain)
	case PeeringServer:
		ok = refDC.MatchString(v.Datacenter) && tdOK(v.TrustDomain)
	}
	return ok && len(refString(n)) <= 253
}

// TestAgainstReference checks String and Validate against the literal reference, and the
// round trip and injectivity properties, on random values.
func TestAgainstReference(t *testing.T) {
	tds := []string{td, "internal.t", "t", "query.consul"}
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[string]Name{} // trust domain + "|" + name -> the canonical value that gave it
	for range longtest.N(10000, 100000) {
		n := randomName(r, tds)
		s := n.String()
		require.Equal(t, refString(n), s, "%#v", n)
		valid := n.Validate() == nil
		require.Equal(t, refValid(n), valid, "%#v", n)
		if !valid {
			continue
		}
		c := testkit.Canonical(n)
		tdOf := reflectTD(n)
		got, err := Parse(s, tdOf)
		require.NoError(t, err, "%#v", n)
		require.Equal(t, c, got, "Parse(%q)", s)
		key := tdOf + "|" + s
		if prev, ok := seen[key]; ok {
			require.Equal(t, prev, c, "two values give %q", s)
		}
		seen[key] = c
	}
	require.Greater(t, len(seen), 1000, "the generator must produce many valid names")
}

func reflectTD(n Name) string {
	switch v := n.(type) {
	case Service:
		return v.TrustDomain
	case Peered:
		return v.TrustDomain
	case Gateway:
		return v.TrustDomain
	case Query:
		return v.TrustDomain
	case PeeringServer:
		return v.TrustDomain
	}
	return ""
}

// TestCrossTrustDomainCollision documents why Parse needs the trust domain.
func TestCrossTrustDomainCollision(t *testing.T) {
	a := Service{Service: "x", Namespace: "y", Datacenter: "z", TrustDomain: "internal.t"}
	b := Service{Subset: "x", Service: "y", Namespace: "z", Datacenter: "internal", TrustDomain: "t"}
	require.Equal(t, a.String(), b.String())
	assert.Equal(t, testkit.Canonical(a), MustParse(a.String(), "internal.t"))
	assert.Equal(t, testkit.Canonical(b), MustParse(b.String(), "t"))
}

func TestAllocations(t *testing.T) {
	s := Service{Subset: "v2", Service: "api", Namespace: "ns", Partition: "p1", Datacenter: "dc1", TrustDomain: td}
	name := s.String()
	testkit.NameAllocations(t, s, func() { _, _ = Parse(name, td) })
}

// dnsLabel matches a DNS label: what parseValid's single pass accepts in every label.
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"api.default.foo.internal." + td, "v2.api.default.foo.internal." + td,
		"api.neighbor.part1.foo.internal-v1." + td, "web.default.default.owt.external." + td,
		"part1.dc1.internal-v1." + td, "dc1.internal." + td, "magicquery.default.foo.query." + td,
		"a..internal." + td, "x.y.z.internal.internal.t",
	} {
		f.Add(s, td)
	}
	f.Add("x.y.z.internal.internal.t", "internal.t")
	f.Fuzz(func(t *testing.T, name, trustDomain string) {
		// The one-pass parser accepts a subset of what the step-by-step one does, with the
		// same answer, and it refuses a valid name only when a label is not a DNS label (a
		// trust domain's label may be longer than 63 bytes; some components allow '_').
		fast, ok := parseValid(name, trustDomain)
		slow, err := parseSlow(name, trustDomain)
		if ok && (err != nil || slow != fast) {
			t.Fatalf("parseValid(%q) = %v; parseSlow = %v, %v", name, fast, slow, err)
		}
		if !ok && err == nil && !slices.ContainsFunc(strings.Split(name, "."), func(l string) bool { return !dnsLabel.MatchString(l) }) {
			t.Fatalf("parseValid(%q) refused a valid name", name)
		}
		n, err := Parse(name, trustDomain)
		if err != nil {
			return
		}
		if got := n.String(); got != name {
			t.Fatalf("Parse(%q).String() = %q", name, got)
		}
		if err := n.Validate(); err != nil {
			t.Fatalf("Parse(%q) returned an invalid value: %v", name, err)
		}
		if n2, err := Parse(n.String(), trustDomain); err != nil || n2 != n {
			t.Fatalf("second parse of %q: %v, %v", name, n2, err)
		}
	})
}

func TestFieldErrors(t *testing.T) {
	err := Service{Service: "Web", Datacenter: "dc1", TrustDomain: "td"}.Validate()
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "Service", fe.Field)
	assert.Equal(t, "Web", fe.Value)
	assert.ErrorIs(t, err, ErrInvalidComponent)

	_, err = Parse("a.b.external.td", "td")
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "a.b.external.td", fe.Value)
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestPeeringServer(t *testing.T) {
	n := PeeringServer{Datacenter: "dc1", TrustDomain: td}
	require.NoError(t, n.Validate())
	assert.Equal(t, n, MustParse("server.dc1.peering."+td, td))
	_, err := Parse("client.dc1.peering."+td, td)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.EqualError(t, err, `malformed SNI name: "client.dc1.peering.`+td+`": the first label of a peering server name must be "server", got "client"`)
	assert.EqualError(t, PeeringServer{TrustDomain: td}.Validate(), `Datacenter: "" must not be empty`)
}

func TestZeroValues(t *testing.T) {
	assert.Equal(t, ".default..internal.", Service{}.String(), "as the package documentation says")
	assert.Error(t, Service{}.Validate())
}

// FuzzValidate checks, for values of every kind built from arbitrary components, that
// Validate accepts exactly the values whose name parses back to them: a valid value's name
// parses back to it (spelt canonically), and an invalid one's does not.
func FuzzValidate(f *testing.F) {
	f.Add(uint8(0), td, "v2", "web", "default", "ap1", "dc1")
	f.Add(uint8(1), td, "", "web", "", "", "east")
	f.Add(uint8(2), td, "", "", "", "ap1", "dc1")
	f.Add(uint8(3), td, "", "nearest", "", "", "dc1")
	f.Add(uint8(4), td, "", "", "", "", "dc1")
	f.Add(uint8(0), td, "", "web.default", "", "", "dc1")
	f.Add(uint8(0), "Bad_TD", "", "web", "", "", "dc1")
	f.Fuzz(func(t *testing.T, kind uint8, trustDomain, a, b, c, d, e string) {
		var n Name
		switch kind % 5 {
		case 0:
			n = Service{Subset: a, Service: b, Namespace: c, Partition: d, Datacenter: e, TrustDomain: trustDomain}
		case 1:
			n = Peered{Service: b, Namespace: c, Partition: d, Peer: e, TrustDomain: trustDomain}
		case 2:
			n = Gateway{Partition: d, Datacenter: e, TrustDomain: trustDomain}
		case 3:
			n = Query{Query: b, Datacenter: e, TrustDomain: trustDomain}
		default:
			n = PeeringServer{Datacenter: e, TrustDomain: trustDomain}
		}
		verr := n.Validate()
		got, perr := Parse(n.String(), trustDomain)
		back := perr == nil && got == testkit.Canonical(n)
		if (verr == nil) != back {
			t.Fatalf("%#v: Validate: %v; Parse(%q): %#v, %v", n, verr, n.String(), got, perr)
		}
	})
}

package spiffe

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/testkit"
)

const td = "1234.consul"

func TestString(t *testing.T) {
	tests := []struct {
		name string
		in   Identity
		want string
	}{
		{"service", Service{TrustDomain: td, Datacenter: "dc1", Service: "web"}, "spiffe://1234.consul/ns/default/dc/dc1/svc/web"},
		{"service default partition", Service{TrustDomain: td, Partition: "default", Namespace: "default", Datacenter: "dc1", Service: "web"}, "spiffe://1234.consul/ns/default/dc/dc1/svc/web"},
		{"service partition", Service{TrustDomain: td, Partition: "bizdev", Datacenter: "dc1", Service: "web"}, "spiffe://1234.consul/ap/bizdev/ns/default/dc/dc1/svc/web"},
		{"service namespace verbatim", Service{TrustDomain: td, Namespace: "Team_A", Datacenter: "dc1", Service: "Web"}, "spiffe://1234.consul/ns/Team_A/dc/dc1/svc/Web"},
		{"mesh gateway", MeshGateway{TrustDomain: td, Datacenter: "dc1"}, "spiffe://1234.consul/gateway/mesh/dc/dc1"},
		{"mesh gateway partition", MeshGateway{TrustDomain: td, Partition: "bizdev", Datacenter: "dc1"}, "spiffe://1234.consul/ap/bizdev/gateway/mesh/dc/dc1"},
		{"agent", Agent{TrustDomain: td, Datacenter: "dc1", Agent: "node-1"}, "spiffe://1234.consul/agent/client/dc/dc1/id/node-1"},
		{"agent partition", Agent{TrustDomain: td, Partition: "p", Datacenter: "dc1", Agent: "node-1"}, "spiffe://1234.consul/ap/p/agent/client/dc/dc1/id/node-1"},
		{"server", Server{TrustDomain: td, Datacenter: "dc1"}, "spiffe://1234.consul/agent/server/dc/dc1"},
		{"workload", Workload{TrustDomain: "cluster.local", Namespace: "shop", ServiceAccount: "cart"}, "spiffe://cluster.local/ns/shop/sa/cart"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.in.String())
			assert.Equal(t, "x"+tt.want, string(tt.in.(interface{ AppendTo([]byte) []byte }).AppendTo([]byte("x"))))
			require.NoError(t, tt.in.Validate())
			got, err := Parse(tt.want)
			require.NoError(t, err)
			assert.Equal(t, testkit.Canonical(tt.in), got)
			assert.Equal(t, tt.want, got.String())
		})
	}
}

func TestConsulTrustDomain(t *testing.T) {
	assert.Equal(t, "11111111-2222-3333-4444-555555555555.consul", ConsulTrustDomain("11111111-2222-3333-4444-555555555555"))
	assert.Equal(t, "abcd.consul", ConsulTrustDomain("ABCD"))
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		in   Identity
		errs []string
	}{
		{"missing everything", Service{}, []string{
			`TrustDomain: "" must not be empty`,
			`Datacenter: "" must not be empty`,
			`Service: "" must not be empty`,
		}},
		{"slash forges a segment", Service{TrustDomain: td, Namespace: "foo/bar", Datacenter: "dc1", Service: "web"}, []string{
			`Namespace: "foo/bar" must not contain "/" (the path separator) (allowed: a-z, A-Z, 0-9, ".", "-" and "_")`,
		}},
		{"percent", Service{TrustDomain: td, Datacenter: "dc1", Service: "a%2Fb"}, []string{
			`Service: "a%2Fb" must not contain "%" (percent-encoding) (allowed: a-z, A-Z, 0-9, ".", "-" and "_")`,
		}},
		{"dot segment", Agent{TrustDomain: td, Partition: "..", Datacenter: ".", Agent: "a"}, []string{
			`Partition: ".." must not be a dot segment`,
			`Datacenter: "." must not be a dot segment`,
		}},
		{"upper-case trust domain", MeshGateway{TrustDomain: "Consul", Datacenter: "dc1"}, []string{
			`TrustDomain: "Consul" must not contain upper case 'C' (allowed: a-z, 0-9, ".", "-" and "_")`,
		}},
		{"port in trust domain", Server{TrustDomain: "td:8080", Datacenter: "dc1"}, []string{
			`TrustDomain: "td:8080" must not contain ':' (allowed: a-z, 0-9, ".", "-" and "_")`,
		}},
		{"trust domain too long", Server{TrustDomain: strings.Repeat("a", 256), Datacenter: "dc1"}, []string{
			`TrustDomain: "` + strings.Repeat("a", 256) + `" must be at most 255 bytes long, has 256`,
		}},
		{"id too long", Service{TrustDomain: td, Datacenter: "dc1", Service: strings.Repeat("s", 2048)}, []string{
			"SPIFFE ID too long: the ID is 2091 bytes long, at most 2048 are allowed",
		}},
		{"workload requires namespace and account", Workload{TrustDomain: td}, []string{
			`Namespace: "" must not be empty`,
			`ServiceAccount: "" must not be empty`,
		}},
		{"control byte", Workload{TrustDomain: td, Namespace: "a\x00", ServiceAccount: "b"}, []string{
			`Namespace: "a\x00" must not contain byte 0x00 (allowed: a-z, A-Z, 0-9, ".", "-" and "_")`,
		}},
		{"explicit default partition is fine", Agent{TrustDomain: td, Partition: "default", Datacenter: "dc1", Agent: "a"}, nil},
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
		name, in string
		is       error
		msg      string
	}{
		{"empty", "", ErrMalformed, `malformed SPIFFE ID: "" must start with "spiffe://" (in lower case)`},
		{"upper-case scheme", "SPIFFE://1234.consul/ns/a/sa/b", ErrMalformed, ""},
		{"other scheme", "https://1234.consul/ns/a/sa/b", ErrMalformed, ""},
		{"missing slashes", "spiffe:1234.consul/ns/a/sa/b", ErrMalformed, ""},
		{"no trust domain", "spiffe:///ns/a/sa/b", ErrMalformed, `malformed SPIFFE ID: "spiffe:///ns/a/sa/b" has no trust domain`},
		{"user info", "spiffe://user@1234.consul/ns/a/sa/b", ErrMalformed, `malformed SPIFFE ID: "spiffe://user@1234.consul/ns/a/sa/b" must not have user info`},
		{"port", "spiffe://1234.consul:8443/ns/a/sa/b", ErrMalformed, `malformed SPIFFE ID: "spiffe://1234.consul:8443/ns/a/sa/b" must not have a port`},
		{"query", "spiffe://1234.consul/ns/a/sa/b?x=1", ErrMalformed, `malformed SPIFFE ID: "spiffe://1234.consul/ns/a/sa/b?x=1" path must not contain '?': IDs have no query`},
		{"query after trust domain", "spiffe://1234.consul?x", ErrMalformed, `malformed SPIFFE ID: "spiffe://1234.consul?x" must not have a query`},
		{"fragment", "spiffe://1234.consul/ns/a/sa/b#f", ErrMalformed, ""},
		{"percent-encoded slash", "spiffe://1234.consul/ns/foo%2Fbar/dc/dc1/svc/web", ErrMalformed,
			`malformed SPIFFE ID: "spiffe://1234.consul/ns/foo%2Fbar/dc/dc1/svc/web" path must not contain "%" (percent-encoding): IDs are never percent-encoded`},
		{"upper-case trust domain", "spiffe://Consul/ns/a/sa/b", ErrMalformed, ""},
		{"trailing slash", "spiffe://1234.consul/ns/a/sa/b/", ErrMalformed, `malformed SPIFFE ID: "spiffe://1234.consul/ns/a/sa/b/" must not end with "/"`},
		{"empty segment", "spiffe://1234.consul/ns//sa/b", ErrMalformed, ""},
		{"dot segment", "spiffe://1234.consul/ns/./sa/b", ErrMalformed, ""},
		{"dot dot segment", "spiffe://1234.consul/ns/../sa/b", ErrMalformed, ""},
		{"space", "spiffe://1234.consul/ns/a b/sa/b", ErrMalformed, ""},
		{"non-ASCII", "spiffe://1234.consul/ns/ä/sa/b", ErrMalformed, ""},
		{"unknown schema", "spiffe://1234.consul/foo/bar", ErrUnknownSchema, ""},
		{"explicit default partition", "spiffe://1234.consul/ap/default/ns/default/dc/dc1/svc/web", ErrUnknownSchema,
			`SPIFFE ID of no known schema: "spiffe://1234.consul/ap/default/ns/default/dc/dc1/svc/web": the default partition is written without /ap/default`},
		{"server with partition", "spiffe://1234.consul/ap/p/agent/server/dc/dc1", ErrUnknownSchema, ""},
		{"workload with partition", "spiffe://1234.consul/ap/p/ns/a/sa/b", ErrUnknownSchema, ""},
		{"too many segments", "spiffe://1234.consul/a/b/c/d/e/f/g/h/i", ErrUnknownSchema, ""},
		{"service missing svc word", "spiffe://1234.consul/ns/a/dc/b/sv/c", ErrUnknownSchema, ""},
		{"too long", "spiffe://1234.consul/ns/a/sa/" + strings.Repeat("b", 2030), ErrTooLong, ""},
		{"trust domain too long", "spiffe://" + strings.Repeat("a", 256) + "/ns/a/sa/b", ErrTooLong, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := Parse(tt.in)
			require.Error(t, err)
			assert.Nil(t, id)
			assert.ErrorIs(t, err, tt.is)
			if tt.msg != "" {
				assert.EqualError(t, err, tt.msg)
			}
			assert.Panics(t, func() { MustParse(tt.in) })
		})
	}
}

func TestParseLimits(t *testing.T) {
	tdMax := strings.Repeat("a", 255)
	_, err := Parse("spiffe://" + tdMax + "/agent/server/dc/dc1")
	require.NoError(t, err)
	prefix := "spiffe://1234.consul/ns/a/sa/"
	exact := prefix + strings.Repeat("b", 2048-len(prefix))
	_, err = Parse(exact)
	require.NoError(t, err)
}

var pool = []string{"", "", "default", "a", "B", "ap", "ns", "dc", "svc", "sa", "agent", "server", "client",
	"mesh", "gateway", "id", "a.b", "a_b", "-", ".", "..", "a/b", "a%2Fb", "a:b", "ä"}

var tdPool = []string{td, "cluster.local", "", "A.consul", "t_d", "x:1"}

func randomIdentity(r *rand.Rand) Identity {
	p := func() string { return pool[r.IntN(len(pool))] }
	t := tdPool[r.IntN(len(tdPool))]
	switch r.IntN(6) {
	case 5:
		return Signing{TrustDomain: t}
	case 0:
		return Service{TrustDomain: t, Partition: p(), Namespace: p(), Datacenter: p(), Service: p()}
	case 1:
		return MeshGateway{TrustDomain: t, Partition: p(), Datacenter: p()}
	case 2:
		return Agent{TrustDomain: t, Partition: p(), Datacenter: p(), Agent: p()}
	case 3:
		return Server{TrustDomain: t, Datacenter: p()}
	default:
		return Workload{TrustDomain: t, Namespace: p(), ServiceAccount: p()}
	}
}

var (
	refTD      = regexp.MustCompile(`^[a-z0-9._-]{1,255}$`)
	refSegment = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
)

// refParse is a literal reading of the six ID shapes in the package documentation, on top of
// net/url and strings.Split.
func refParse(s string) (Identity, bool) {
	if len(s) > 2048 || !strings.HasPrefix(s, "spiffe://") || strings.ContainsAny(s, "%?#@") {
		return nil, false
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "spiffe" || u.Port() != "" || u.User != nil || !refTD.MatchString(u.Host) || u.Host != u.Hostname() {
		return nil, false
	}
	if u.Path == "" && u.Host != "" && !strings.HasSuffix(s, "/") {
		return Signing{TrustDomain: u.Host}, true
	}
	if u.Path == "" || strings.HasSuffix(u.Path, "/") {
		return nil, false
	}
	segs := strings.Split(u.Path[1:], "/")
	for _, seg := range segs {
		if !refSegment.MatchString(seg) || seg == "." || seg == ".." {
			return nil, false
		}
	}
	part := "default"
	if len(segs) > 2 && segs[0] == "ap" {
		if segs[1] == "default" {
			return nil, false
		}
		part, segs = segs[1], segs[2:]
	}
	k := strings.Join(segs, "/")
	switch {
	case regexp.MustCompile(`^ns/[^/]+/dc/[^/]+/svc/[^/]+$`).MatchString(k):
		return Service{TrustDomain: u.Host, Partition: part, Namespace: segs[1], Datacenter: segs[3], Service: segs[5]}, true
	case regexp.MustCompile(`^gateway/mesh/dc/[^/]+$`).MatchString(k):
		return MeshGateway{TrustDomain: u.Host, Partition: part, Datacenter: segs[3]}, true
	case regexp.MustCompile(`^agent/client/dc/[^/]+/id/[^/]+$`).MatchString(k):
		return Agent{TrustDomain: u.Host, Partition: part, Datacenter: segs[3], Agent: segs[5]}, true
	case part == "default" && len(segs) == 4 && segs[0] == "agent" && segs[1] == "server" && segs[2] == "dc":
		return Server{TrustDomain: u.Host, Datacenter: segs[3]}, true
	case part == "default" && len(segs) == 4 && segs[0] == "ns" && segs[2] == "sa":
		return Workload{TrustDomain: u.Host, Namespace: segs[1], ServiceAccount: segs[3]}, true
	}
	return nil, false
}

// TestAgainstReference holds Parse and Validate to the reference on random values, and checks
// round trip and injectivity.
func TestAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	seen := map[string]Identity{}
	valid, n := 0, longtest.N(10000, 100000)
	for range n {
		id := randomIdentity(r)
		s := id.String()
		got, err := Parse(s)
		want, ok := refParse(s)
		require.Equal(t, ok, err == nil, "%q: %v", s, err)
		require.Equal(t, want, got, s)
		require.Equal(t, err == nil, id.Validate() == nil, "Validate of %#v disagrees with Parse: %v", id, err)
		if err != nil {
			continue
		}
		valid++
		require.Equal(t, testkit.Canonical(id), got)
		require.Equal(t, s, got.String())
		if prev, ok := seen[s]; ok {
			require.Equal(t, prev, got, "two values give %q", s)
		}
		seen[s] = got
	}
	require.Greater(t, valid, n/20, "the generator must produce many valid IDs")
}

// TestMutations checks Parse against the reference on strings one edit away from valid IDs.
func TestMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "/.%:@?#-_aZ0 "
	for range longtest.N(10000, 100000) {
		id := randomIdentity(r)
		b := []byte(id.String())
		for range 1 + r.IntN(2) {
			i := r.IntN(len(b) + 1)
			switch r.IntN(3) {
			case 0:
				b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
			case 1:
				if i < len(b) {
					b = append(b[:i], b[i+1:]...)
				}
			default:
				if i < len(b) {
					b[i] = alphabet[r.IntN(len(alphabet))]
				}
			}
		}
		s := string(b)
		got, err := Parse(s)
		want, ok := refParse(s)
		require.Equal(t, ok, err == nil, "%q: %v", s, err)
		require.Equal(t, want, got, s)
	}
}

func TestAllocations(t *testing.T) {
	s := Service{TrustDomain: td, Partition: "p", Namespace: "ns", Datacenter: "dc1", Service: "web"}
	uri := s.String()
	testkit.NameAllocations(t, s, func() { _, _ = Parse(uri) })
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"spiffe://1234.consul/ns/default/dc/dc1/svc/web",
		"spiffe://1234.consul/ap/bizdev/ns/default/dc/dc1/svc/web",
		"spiffe://1234.consul/gateway/mesh/dc/dc1",
		"spiffe://1234.consul/agent/client/dc/dc1/id/a",
		"spiffe://1234.consul/agent/server/dc/dc1",
		"spiffe://cluster.local/ns/a/sa/b",
		"spiffe://1234.consul/ns/foo%2Fbar/dc/dc1/svc/web",
		"spiffe://u@h:1/ns/a/sa/b?q#f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(s)
		want, ok := refParse(s)
		if ok != (err == nil) {
			t.Fatalf("Parse(%q) error %v, reference accepts: %v", s, err, ok)
		}
		if err != nil {
			return
		}
		if id != want {
			t.Fatalf("Parse(%q) = %#v, reference %#v", s, id, want)
		}
		if id.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, id.String())
		}
		if err := id.Validate(); err != nil {
			t.Fatalf("Parse(%q) returned an invalid value: %v", s, err)
		}
	})
}

// FuzzValidate checks, for values built from arbitrary components, that Validate accepts
// exactly what Parse(String()) accepts, and that Parse then returns the canonical value.
func FuzzValidate(f *testing.F) {
	f.Add(uint8(0), td, "p", "ns", "dc1", "web")
	f.Add(uint8(4), "cluster.local", "", "ns", "", "sa")
	f.Add(uint8(2), td, "default", "", "dc/1", "a")
	f.Add(uint8(5), td, "", "", "", "")
	f.Fuzz(func(t *testing.T, kind uint8, trustDomain, a, b, c, d string) {
		var id Identity
		switch kind % 6 {
		case 5:
			id = Signing{TrustDomain: trustDomain}
		case 0:
			id = Service{TrustDomain: trustDomain, Partition: a, Namespace: b, Datacenter: c, Service: d}
		case 1:
			id = MeshGateway{TrustDomain: trustDomain, Partition: a, Datacenter: c}
		case 2:
			id = Agent{TrustDomain: trustDomain, Partition: a, Datacenter: c, Agent: d}
		case 3:
			id = Server{TrustDomain: trustDomain, Datacenter: c}
		default:
			id = Workload{TrustDomain: trustDomain, Namespace: b, ServiceAccount: d}
		}
		verr := id.Validate()
		got, perr := Parse(id.String())
		if (verr == nil) != (perr == nil) {
			t.Fatalf("%#v: Validate %v, Parse %v", id, verr, perr)
		}
		if perr == nil && got != testkit.Canonical(id) {
			t.Fatalf("%#v parsed back as %#v", id, got)
		}
	})
}

func TestFieldErrors(t *testing.T) {
	err := Service{TrustDomain: "td", Datacenter: "dc1", Service: "a/b"}.Validate()
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "Service", fe.Field)
	assert.Equal(t, "a/b", fe.Value)
	assert.ErrorIs(t, err, ErrInvalidComponent)

	_, err = Parse("spiffe://td/nope")
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "spiffe://td/nope", fe.Value)
	assert.ErrorIs(t, err, ErrUnknownSchema)
}

func TestSigning(t *testing.T) {
	id := Signing{TrustDomain: "1234.consul"}
	assert.Equal(t, "spiffe://1234.consul", id.String())
	require.NoError(t, id.Validate())
	assert.Equal(t, id, MustParse("spiffe://1234.consul"))
	_, err := Parse("spiffe://1234.consul/")
	assert.ErrorIs(t, err, ErrMalformed, "no trailing slash")
	assert.Error(t, Signing{}.Validate())
}

func TestZeroValues(t *testing.T) {
	assert.Equal(t, "spiffe:///ns/default/dc//svc/", Service{}.String(), "as the package documentation says")
	assert.Error(t, Service{}.Validate())
}

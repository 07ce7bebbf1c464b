package hosts

import (
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

// longAlphabets make long names of long labels, of short ones, of normal ones, and of empty
// ones.
var longAlphabets = [...]string{"abcXYZ0-.", "abcXYZ0", "abcxyz0.", "ab.."}

// TestQuickHost holds the one-pass host check to the detailed one on random strings.
func TestQuickHost(t *testing.T) {
	r := newRand(71, 72)
	const alphabet = "aZ9-.*_ \xc3"
	for k := range longtest.N(20_000, 200_000) {
		// Short strings of every byte class, and long ones of mostly letters (labels near
		// 63 bytes, names near 253, words of eight bytes and the tails after them).
		b := make([]byte, r.IntN(10))
		if k%2 == 1 {
			b = make([]byte, r.IntN(140))
		}
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if k%2 == 1 && r.IntN(40) != 0 {
				long := longAlphabets[k%8/2]
				b[i] = long[r.IntN(len(long))]
			}
		}
		h := string(b)
		slow := hostSlowOK(Normalize(h))
		ok, normal := Quick(h)
		require.Equal(t, slow, ok, "%q", h)
		if ok {
			require.Equal(t, Normalize(h) == h, normal, "%q is normal", h)
		}
		require.Equal(t, slow, Problem(h) == "", "%q", h)
	}
}

// hostSlowOK is the host rule read literally from Istio's validation of a ServiceEntry
// host, for a normalized host n: the first label may be a wildcard label (*, or * then an
// optional - and a label), the others are labels, and n is not "*" alone.
func hostSlowOK(n string) bool {
	labels := strings.Split(n, ".")
	if wildcardLabelRE.MatchString(labels[0]) && len(labels[0]) <= 63 {
		if len(labels) == 1 {
			return labels[0] != "*"
		}
		labels = labels[1:]
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return len(strings.Join(labels, ".")) <= 253
}

var wildcardLabelRE = regexp.MustCompile(`^(\*|\*-?[a-z0-9]([-a-z0-9]*[a-z0-9])?)$`)

// TestHostRules has a row per rule of which ServiceEntry hosts are accepted.
func TestHostRules(t *testing.T) {
	for _, tt := range []struct {
		name, host, problem string
	}{
		{"an exact host", "api.example.com", ""},
		{"any case, a trailing dot", "API.Example.com.", ""},
		{"a wildcard of one or more labels", "*.example.com", ""},
		{"a partial wildcard", "*x.example.com", ""},
		{"a partial wildcard with a dash", "*-foo.example.com", ""},
		{"a partial wildcard of one label", "*x", ""},
		{"a partial wildcard in upper case", "*X.Example.com", ""},
		{"* alone is refused for a ServiceEntry", "*", "is a wildcard without a domain"},
		{"a wildcard without a domain", "*.", "is a wildcard without a domain"},
		{"* inside the first label", "a*.example.com", `is not a DNS name: label "a*" must not contain '*' (allowed: a-z, 0-9 and "-")`},
		{"* in a later label", "api.*.example.com", `is not a DNS name: label "*" must not contain '*' (allowed: a-z, 0-9 and "-")`},
		{"a wildcard label ending in a dash", "*x-.example.com", `is not a DNS name: wildcard label "*x-" must be "*", or "*" then a label's letters, digits and inner "-" (such as *x or *-x)`},
		{"two dashes after the *", "*--x.example.com", `is not a DNS name: wildcard label "*--x" must be "*", or "*" then a label's letters, digits and inner "-" (such as *x or *-x)`},
		{"two stars", "**.example.com", `is not a DNS name: wildcard label "**" must be "*", or "*" then a label's letters, digits and inner "-" (such as *x or *-x)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.problem, Problem(tt.host))
		})
	}
	require.Empty(t, PatternProblem("*"), "a serviceSettings host may be * alone")
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// realisticAddresses are addresses as a kubectl dump holds them: mostly IPv4 IPs (cluster
// IPs, a ServiceEntry's spec.addresses, the addresses Istio allocates), some CIDRs, some
// IPv6; and the IPv4 IPs alone.
var realisticAddresses = map[string][]string{
	"mix": {"10.96.0.1", "10.96.12.34", "10.100.201.7", "240.240.0.7", "240.240.17.203", "192.168.1.1",
		"203.0.113.0/24", "fd00::10"},
	"ipv4": {"10.96.0.1", "10.96.12.34", "10.100.201.7", "240.240.0.7", "240.240.17.203", "192.168.1.1"},
}

var prefixSink netip.Prefix

// BenchmarkParseAddress reads realistic addresses with ParseAddress.
func BenchmarkParseAddress(b *testing.B) {
	for _, set := range []string{"mix", "ipv4"} {
		b.Run(set, func(b *testing.B) {
			addrs := realisticAddresses[set]
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				prefixSink, _ = ParseAddress(addrs[i%len(addrs)])
				i++
			}
		})
	}
}

// FuzzParseAddress holds ParseAddress to its rule read literally: a string with a "/" is
// read by netip.ParsePrefix, anything else by netip.ParseAddr and refused with a zone; what
// it accepts is canonical (masked), and an IP is a /32 or /128 of that IP, IPv4 mapped into
// IPv6 kept as IPv6.
func FuzzParseAddress(f *testing.F) {
	for _, set := range realisticAddresses {
		for _, a := range set {
			f.Add(a)
		}
	}
	for _, a := range []string{"", "10.0.0.0/33", "::ffff:10.0.0.1", "::ffff:10.2.0.0/112", "10.1.2.3/8", "fe80::1%eth0", "fe80::1%eth0/64", "010.0.0.1", "1.2.3", "nope"} {
		f.Add(a)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAddress(s)
		prefix, perr := netip.ParsePrefix(s)
		addr, aerr := netip.ParseAddr(s)
		switch {
		case strings.Contains(s, "/"):
			if (err == nil) != (perr == nil) {
				t.Fatalf("%q: ParseAddress err %v, netip.ParsePrefix err %v", s, err, perr)
			}
			if err == nil && got != Canonical(prefix) {
				t.Fatalf("%q: %v, want %v", s, got, Canonical(prefix))
			}
		case aerr != nil || addr.Zone() != "":
			if err == nil {
				t.Fatalf("%q: accepted as %v; netip.ParseAddr gives %v, %v", s, got, addr, aerr)
			}
		default:
			if err != nil || got != netip.PrefixFrom(addr, addr.BitLen()) {
				t.Fatalf("%q: %v, %v; want %v", s, got, err, netip.PrefixFrom(addr, addr.BitLen()))
			}
		}
		if err == nil && got != Canonical(got) {
			t.Fatalf("%q: %v is not canonical", s, got)
		}
	})
}

// TestParseAddress: an IP is a /32 or /128 of itself, IPv4 mapped into IPv6 kept as IPv6 (as
// Istio keeps it), a CIDR's host bits cleared; a zone or a malformed address is refused.
func TestParseAddress(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"10.0.0.1", "10.0.0.1/32"},
		{"::ffff:10.0.0.1", "::ffff:10.0.0.1/128"},
		{"::ffff:10.2.0.0/112", "::ffff:10.2.0.0/112"},
		{"::ffff:10.2.3.4/104", "::ffff:10.0.0.0/104"},
		{"10.1.2.3/8", "10.0.0.0/8"},
		{"10.1.2.3/32", "10.1.2.3/32"},
		{"2001:db8::1", "2001:db8::1/128"},
		{"fe80::1%eth0", ""},
		{"010.0.0.1", ""},
		{"10.0.0.0/33", ""},
	} {
		got, err := ParseAddress(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.in, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("%q: %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

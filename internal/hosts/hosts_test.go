package hosts

import (
	"errors"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strconv"
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

// TestParseIPv4 holds the dotted-quad reader to netip.ParseAddr on random strings.
func TestParseIPv4(t *testing.T) {
	r := newRand(73, 74)
	const alphabet = "0123456789.....2551x:"
	for k := range longtest.N(20_000, 200_000) {
		b := make([]byte, r.IntN(18))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		if k%2 == 1 { // four fields of one to four digits: most are addresses, some not
			var f [4]string
			for j := range f {
				f[j] = strconv.Itoa(r.IntN(300))
				if r.IntN(8) == 0 {
					f[j] = "0" + f[j]
				}
			}
			s = strings.Join(f[:], ".")
		}
		got, ok := parseIPv4(s)
		want, err := netip.ParseAddr(s)
		if ok {
			require.NoError(t, err, "%q", s)
			require.Equal(t, want, got, "%q", s)
		} else if err == nil {
			require.False(t, want.Is4(), "%q is an IPv4 address netip reads and parseIPv4 does not", s)
		}
	}
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

func benchmarkParse(b *testing.B, parse func(string) (netip.Prefix, error)) {
	for _, set := range []string{"mix", "ipv4"} {
		b.Run(set, func(b *testing.B) {
			addrs := realisticAddresses[set]
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				prefixSink, _ = parse(addrs[i%len(addrs)])
				i++
			}
		})
	}
}

// BenchmarkParseAddress reads realistic addresses with ParseAddress.
func BenchmarkParseAddress(b *testing.B) { benchmarkParse(b, ParseAddress) }

// BenchmarkParseAddressNetip is the baseline: the same addresses read by net/netip alone,
// the literal reading of ParseAddress's rule (parseAddressNetip).
func BenchmarkParseAddressNetip(b *testing.B) { benchmarkParse(b, parseAddressNetip) }

// parseAddressNetip is ParseAddress read literally, with net/netip alone: a CIDR is a
// prefix, masked and unmapped; anything else an IP without a zone, unmapped, as a /32 or
// /128.
func parseAddressNetip(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return Canonical(p), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	if a.Zone() != "" {
		return netip.Prefix{}, errors.New("an IP with a zone")
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

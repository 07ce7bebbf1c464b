package hosts

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

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

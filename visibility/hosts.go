package visibility

import (
	"errors"
	"net/netip"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
)

// hostProblem says why h is not a host: a DNS name, optionally starting with "*.", in any
// case and with an optional trailing dot. Valid hosts are checked in one pass; the reason
// for an invalid one is worked out only then.
func hostProblem(h string) string {
	if ok, _ := quickHost(h); ok {
		return ""
	}
	n := normalizeHost(h)
	if n == names.Wildcard {
		return "is a wildcard without a domain"
	}
	n = strings.TrimPrefix(n, "*.")
	if n == "" {
		return "is empty"
	}
	if r := names.Subdomain(n); r != "" {
		return "is not a DNS name: " + r
	}
	return ""
}

// quickHost reports whether h is certainly a valid host: labels of letters (any case),
// digits and inner '-', each 1 to 63 long, an optional leading "*." and trailing dot, at
// most 253 characters without them; and, if so, whether it is already normal (see
// normalizeHost): no upper-case letter, no trailing dot.
func quickHost(h string) (ok, normal bool) {
	t := strings.TrimSuffix(h, ".")
	normal = len(t) == len(h)
	h = strings.TrimPrefix(t, "*.")
	if h == "" || len(h) > names.MaxSubdomain {
		return false, false
	}
	start := 0
	for i := 0; i <= len(h); i++ {
		if i < len(h) && h[i] != '.' {
			c := h[i] | 0x20 // lower-case letters; digits and '-' are unchanged
			if !('a' <= c && c <= 'z' || '0' <= h[i] && h[i] <= '9' || h[i] == '-') {
				return false, false
			}
			normal = normal && c == h[i] // only an upper-case letter changes
			continue
		}
		if n := i - start; n == 0 || n > names.MaxLabel || h[start] == '-' || h[i-1] == '-' {
			return false, false
		}
		start = i + 1
	}
	return true, normal
}

// normalizeHost lower-cases h and drops a trailing dot; it allocates only when it changes h.
func normalizeHost(h string) string {
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if 'A' <= h[i] && h[i] <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

// parseAddress reads an IP (returned as addr) or a CIDR (returned as its masked prefix); a
// /32 or /128 CIDR is an IP. IPv4 mapped into IPv6 is unmapped.
func parseAddress(s string) (netip.Addr, netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, netip.Prefix{}, errors.New("an IP with a zone")
		}
		return a.Unmap(), netip.Prefix{}, nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Addr{}, netip.Prefix{}, err
	}
	a, bits := p.Addr(), p.Bits()
	if a.Is4In6() && bits >= 96 {
		a, bits = a.Unmap(), bits-96
	}
	if bits == a.BitLen() {
		return a, netip.Prefix{}, nil
	}
	return netip.Addr{}, netip.PrefixFrom(a, bits).Masked(), nil
}

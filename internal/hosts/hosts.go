// Package hosts holds the rules for host names and addresses that meshscope's Istio packages
// share: which strings are ServiceEntry hosts (DNS labels whose first label may be a wildcard
// label, as Istio's validation reads them), how hosts compare (without case or a trailing
// dot), which host patterns cover which hosts and which of them is the more specific (as
// Istio matches hosts, written as they are), and how an address or CIDR is read into its
// Canonical netip.Prefix.
package hosts

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
)

// Problem says why h is not a ServiceEntry host, as Istio's validation reads one: DNS
// labels, in any case, with an optional trailing dot, where the first label may be a
// wildcard label — "*" alone, or "*" then a label's characters, such as *x or *-foo — but
// the host may not be "*" alone. Valid hosts are checked in one pass; the reason for an
// invalid one is worked out only then.
func Problem(h string) string {
	if ok, _ := Quick(h); ok {
		return ""
	}
	n := Normalize(h)
	if n == names.Wildcard {
		return "is a wildcard without a domain"
	}
	if strings.HasPrefix(n, "*") {
		first, rest, dotted := strings.Cut(n, ".")
		if !wildcardLabel(first) {
			return "is not a DNS name: wildcard label " + strconv.Quote(first) + " must be \"*\", or \"*\" then a label's letters, digits and inner \"-\" (such as *x or *-x)"
		}
		if !dotted {
			return ""
		}
		if rest == "" {
			return "is a wildcard without a domain"
		}
		n = rest
	}
	if n == "" {
		return "is empty"
	}
	if r := names.Subdomain(n); r != "" {
		return "is not a DNS name: " + r
	}
	return ""
}

// PatternProblem is Problem for a serviceSettings host, which may also be "*" alone:
// every host.
func PatternProblem(h string) string {
	if h == names.Wildcard {
		return ""
	}
	return Problem(h)
}

// DomainProblem says why d is not a cluster domain: a DNS name without a wildcard.
func DomainProblem(d string) string {
	if strings.HasPrefix(d, "*") || Problem(d) != "" {
		return "is not a DNS name"
	}
	return ""
}

// wildcardLabel reports whether l, lower case, is a wildcard label: "*", or "*" then an
// optional "-" and a label (letters and digits, with "-" inside), 63 characters at most.
func wildcardLabel(l string) bool {
	if len(l) == 0 || l[0] != '*' || len(l) > names.MaxLabel {
		return false
	}
	r := strings.TrimPrefix(l[1:], "-")
	if len(r) == len(l)-1 && r == "" {
		return true // "*" alone
	}
	return r != "" && names.Label(r) == ""
}

// Quick reports whether h is certainly a valid host (see Problem): labels of letters
// (any case), digits and inner '-', each 1 to 63 long, the first of which may be a wildcard
// label, an optional trailing dot, at most 253 characters without the wildcard label and
// the dot; and, if so, whether it is already normal (see Normalize): no upper-case
// letter, no trailing dot.
func Quick(h string) (ok, normal bool) {
	t := strings.TrimSuffix(h, ".")
	normal = len(t) == len(h)
	if strings.HasPrefix(t, "*") {
		first, rest, dotted := strings.Cut(t, ".")
		if !wildcardLabel(strings.ToLower(first)) || !dotted && len(first) == 1 {
			return false, false
		}
		normal = normal && strings.ToLower(first) == first
		if !dotted {
			return true, normal
		}
		t = rest
	}
	h = t
	if h == "" || len(h) > names.MaxSubdomain || h[len(h)-1] == '-' {
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

// Normalize lower-cases h and drops a trailing dot; it allocates only when it changes h.
func Normalize(h string) string {
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if 'A' <= h[i] && h[i] <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

// ParseAddress reads an IP or a CIDR as a ServiceEntry's spec.addresses and a Service's
// clusterIPs hold them, into its Canonical prefix (see Canonical): an IP is a /32 or /128.
// An IP with a zone is refused (a prefix cannot hold one). IPv4 mapped into IPv6 stays IPv6,
// as Istio keeps it: ::ffff:10.0.0.1 is a /128, not 10.0.0.1.
func ParseAddress(s string) (netip.Prefix, error) {
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
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// Canonical returns the form of a prefix the index keys on: host bits cleared. IPv4 mapped
// into IPv6 stays IPv6 (::ffff:10.0.0.0/104 is not 10.0.0.0/8), as it does for Istio. An
// invalid prefix stays invalid.
func Canonical(p netip.Prefix) netip.Prefix {
	if p.IsSingleIP() {
		return p
	}
	return p.Masked()
}

// ComparePrefixes orders prefixes by address, then by length.
func ComparePrefixes(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

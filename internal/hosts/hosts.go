// Package hosts holds the rules for host names and addresses that meshscope's Istio packages
// share: which strings Istio's validation accepts as the hosts of each field that holds them
// (Problems, with the Field as its parameter: a ServiceEntry's hosts, a VirtualService's,
// a DestinationRule's host, a route destination's, a Sidecar's egress hosts, …), how hosts
// compare (without case or a trailing dot), which host patterns cover which hosts and which
// of them is the more specific (as Istio matches hosts, written as they are), and how an
// address or CIDR is read into its Canonical netip.Prefix.
//
// Every host rule of Istio's validation lives here, once; the packages that read a field
// holding hosts ask Problems with that field, and report its words:
//
//	hosts.Problems("db.123", hosts.ServiceEntryHosts)
//	// [domain name "123" invalid (top level domain "123" cannot be all-numeric)]
//	hosts.Problems("*", hosts.DestinationRuleHost)        // nil: "*" is a DestinationRule's host
//	hosts.Problems("*", hosts.RouteDestinationHost)       // [invalid destination host *]
//	hosts.Problems("shop/*x.example.com", hosts.SidecarEgressHosts)
//	// [partial wildcard "*x.example.com" not allowed]
package hosts

import (
	"errors"
	"net/netip"
	"strings"
)

// DomainProblem says why d is not a cluster domain: a domain without wildcards (see
// FQDNProblem).
func DomainProblem(d string) string {
	if FQDNProblem(d) != "" {
		return "is not a DNS name"
	}
	return ""
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

package hosts

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
)

// Field is where a host is written. Istio's validation reads every host as a wildcard domain
// (ValidateWildcardDomain: a domain whose first label may be a wildcard label) or, for a few
// fields, as a domain without wildcards (ValidateFQDN); the fields differ in what they accept
// besides — an IP, "*" alone — and refuse besides, each in its own words. Problems takes the
// field as its parameter, so that each difference is written here once.
type Field uint8

const (
	// ServiceEntryHosts is a ServiceEntry's spec.hosts (and, in meshscope, the hosts of a
	// Kubernetes Service built in Go): a wildcard domain, not "*" alone ("invalid host *").
	// Partial wildcards (*x.example.com) pass: Istio warns about them and refuses nothing.
	// meshscope also refuses "*.", which Istio accepts, since hosts compare without a
	// trailing dot (see Normalize) and so it would cover every host as "*" does.
	ServiceEntryHosts Field = iota
	// MeshVirtualServiceHosts is spec.hosts of a VirtualService bound to the mesh (no
	// gateways, or mesh among them): a wildcard domain or an IP, not "*" alone.
	MeshVirtualServiceHosts
	// GatewayVirtualServiceHosts is spec.hosts of a VirtualService bound to gateways only: a
	// wildcard domain or an IP, "*" included. A host starting "outbound_" is not checked:
	// Istio reads it against its SNI form (outbound_.<port>_._.<host>) when the
	// VirtualService has TLS routes matching on SNI hosts, which meshscope does not read.
	GatewayVirtualServiceHosts
	// DestinationRuleHost is a DestinationRule's spec.host: a wildcard domain, "*" included.
	DestinationRuleHost
	// RouteDestinationHost is the host of a route's destination, a mirror included: a
	// wildcard domain, not "*" alone ("invalid destination host *").
	RouteDestinationHost
	// SidecarEgressHosts is a Sidecar egress listener's hosts[]: "namespace/host", where the
	// namespace is a DNS label, "." or "*" (each may follow "~", which excludes it), and the
	// host is "*", or a wildcard domain with a dot in it whose wildcard, if any, is a whole
	// first label ("*.example.com", not "*x.example.com").
	SidecarEgressHosts
	// ServiceSettingsHosts is a meshConfig serviceSettings[].hosts entry: a wildcard domain,
	// "*" included; as for ServiceEntryHosts, meshscope refuses "*.".
	ServiceSettingsHosts
	// FQDN is a domain without wildcards, as Istio reads a legacy gateway name (one without
	// "/") and a proxy's discovery address; a single all-numeric label is refused too.
	FQDN
)

// MaxDomain is the longest domain Istio's validation accepts (it checks 255, not DNS's 253).
const MaxDomain = 255

// Problems returns Istio's words for each reason h is not a host of field f, in the order
// Istio's validation gives them; nil when h is one. A host that passes is checked in one
// pass without allocating; the words are worked out only for one that does not.
func Problems(h string, f Field) []string {
	switch f {
	case ServiceEntryHosts, ServiceSettingsHosts:
		switch {
		case h == names.Wildcard && f == ServiceEntryHosts:
			return []string{"invalid host *"}
		case h == "*.":
			return []string{strconv.Quote(h) + " is a wildcard without a domain"}
		}
	case MeshVirtualServiceHosts, GatewayVirtualServiceHosts:
		if f == GatewayVirtualServiceHosts && strings.HasPrefix(h, "outbound_") {
			return nil
		}
		if r := WildcardDomainProblem(h); r != "" {
			if _, err := netip.ParseAddr(h); err == nil {
				return nil
			}
			return []string{r}
		}
		if f == MeshVirtualServiceHosts && h == names.Wildcard {
			return []string{"wildcard host * is not allowed for virtual services bound to the mesh gateway"}
		}
		return nil
	case RouteDestinationHost:
		if h == names.Wildcard {
			return []string{"invalid destination host *"}
		}
	case SidecarEgressHosts:
		return egressProblems(h)
	case FQDN:
		if r := FQDNProblem(h); r != "" {
			return []string{r}
		}
		return nil
	}
	if r := WildcardDomainProblem(h); r != "" {
		return []string{r}
	}
	return nil
}

// egressProblems checks a Sidecar egress host, namespace/host. Istio gives a host that is no
// wildcard domain its problem twice (once as a Sidecar's, once as no IP's); it is given once
// here.
func egressProblems(s string) []string {
	ns, h, ok := strings.Cut(s, "/")
	if ok && egressNamespace(ns) && egressHost(h) {
		return nil
	}
	if !ok {
		return []string{"host must be of form namespace/dnsName"}
	}
	var out []string
	if ns == "" || h == "" {
		out = append(out, "config namespace and dnsName in host entry cannot be empty")
	}
	if ns != "" && !egressNamespace(ns) {
		out = append(out, fmt.Sprintf("invalid namespace value %q in sidecar", ns))
	}
	if h != names.Wildcard && !strings.Contains(h, ".") {
		out = append(out, "short names (non FQDN) are not allowed")
	}
	if r := WildcardDomainProblem(h); r != "" {
		out = append(out, r)
	}
	if strings.Contains(h, "*") && len(h) != 1 && !strings.HasPrefix(h, "*.") {
		out = append(out, fmt.Sprintf("partial wildcard %q not allowed", h))
	}
	return out
}

// egressNamespace reports whether ns, not empty, is the namespace part of an egress host: a
// DNS label, "." or "*", or nothing, after an optional "~".
func egressNamespace(ns string) bool {
	n := strings.TrimPrefix(ns, "~")
	return ns != "" && (n == "" || n == names.Wildcard || n == "." || names.IstioLabel(n))
}

// egressHost reports whether h is the host part of an egress host: "*", or a wildcard
// domain with a dot in it whose wildcard, if any, is the whole first label.
func egressHost(h string) bool {
	if h == names.Wildcard {
		return true
	}
	star := strings.IndexByte(h, '*')
	return strings.Contains(h, ".") && (star < 0 || star == 0 && strings.HasPrefix(h, "*.")) && wildcardDomain(h)
}

// WildcardDomainProblem returns Istio's words for why d is not a wildcard domain
// (ValidateWildcardDomain), "" when it is one: 1 to 255 characters; a first label that is a
// DNS label (letters of either case, digits, inner '-'; at most 63) or a wildcard label — "*",
// or "*" or "*-" followed by a DNS label, at most 63 in all; then, after a dot, DNS labels,
// the last of which may be empty (a trailing dot) and, when it is not, may not be a number.
// Istio names the part after the first label in what it says of a later label.
func WildcardDomainProblem(d string) string {
	if wildcardDomain(d) {
		return ""
	}
	if r := preconditions(d); r != "" {
		return r
	}
	first, rest, dotted := strings.Cut(d, ".")
	if !wildcardLabel(first) {
		return fmt.Sprintf("domain name %q invalid (label %q invalid)", d, first)
	}
	if dotted {
		return labelsProblem(rest)
	}
	return ""
}

// FQDNProblem returns Istio's words for why d is not a domain without wildcards
// (ValidateFQDN), "" when it is one: 1 to 255 characters of DNS labels, the last of which may
// be empty (a trailing dot) and, when it is not, may not be a number.
func FQDNProblem(d string) string {
	if r := preconditions(d); r != "" {
		return r
	}
	return labelsProblem(d)
}

// preconditions checks the length of a domain, as Istio does before reading its labels.
func preconditions(d string) string {
	switch {
	case len(d) > MaxDomain:
		return fmt.Sprintf("domain name %q too long (max 255)", d)
	case d == "":
		return "empty domain name not allowed"
	}
	return ""
}

// labelsProblem checks the labels of d (ValidateDNS1123Labels): the last may be empty, and
// when it is not it may not be a number.
func labelsProblem(d string) string {
	if tld := d[strings.LastIndexByte(d, '.')+1:]; isInt(tld) {
		return fmt.Sprintf("domain name %q invalid (top level domain %q cannot be all-numeric)", d, tld)
	}
	for rest := d; ; {
		label, after, more := strings.Cut(rest, ".")
		if !more && label == "" {
			return "" // a trailing dot
		}
		if !names.IstioLabel(label) {
			return fmt.Sprintf("domain name %q invalid (label %q invalid)", d, label)
		}
		if !more {
			return ""
		}
		rest = after
	}
}

// isInt reports whether strconv.Atoi reads s: an optional sign, then decimal digits whose
// value fits an int.
func isInt(s string) bool {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	_, err := strconv.Atoi(s) // only for a number: the error allocates
	return err == nil
}

// wildcardLabel reports whether s is a DNS label, "*", or "*" or "*-" followed by a DNS
// label, 63 characters at most (Istio's IsWildcardDNS1123Label).
func wildcardLabel(s string) bool {
	if len(s) > names.MaxLabel {
		return false
	}
	switch {
	case s == names.Wildcard:
		return true
	case strings.HasPrefix(s, "*-"):
		return names.IstioLabel(s[2:])
	case strings.HasPrefix(s, "*"):
		return names.IstioLabel(s[1:])
	}
	return names.IstioLabel(s)
}

// wildcardDomain reports whether d is a wildcard domain (see WildcardDomainProblem) in one
// pass, without allocating.
func wildcardDomain(d string) bool {
	if d == "" || len(d) > MaxDomain {
		return false
	}
	first, rest, dotted := strings.Cut(d, ".")
	if !wildcardLabel(first) {
		return false
	}
	if !dotted {
		return true
	}
	start, digits := 0, true // digits: the label so far is all digits
	for i := 0; i <= len(rest); i++ {
		if i < len(rest) && rest[i] != '.' {
			c := rest[i]
			switch {
			case '0' <= c && c <= '9':
			case 'a' <= c|0x20 && c|0x20 <= 'z', c == '-':
				digits = false
			default:
				return false
			}
			continue
		}
		n := i - start
		if n == 0 {
			return i == len(rest) // only the last label may be empty: a trailing dot
		}
		if n > names.MaxLabel || rest[start] == '-' || rest[i-1] == '-' {
			return false
		}
		if i == len(rest) && digits {
			return !isInt(rest[start:]) // a number too long for an int is a label
		}
		start, digits = i+1, true
	}
	return true
}

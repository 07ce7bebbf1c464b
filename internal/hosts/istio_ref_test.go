package hosts

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// The reference: Istio's host rules (pkg/config/validation, agent/validation.go and
// validation.go at the pinned release) restated literally, one function per upstream function,
// with the regular expressions of Istio's pkg/config/labels. It is independent of the code it
// checks: it splits strings and matches regular expressions where Problems scans bytes once.

const refLabelFmt = "[a-zA-Z0-9](?:[-a-zA-Z0-9]*[a-zA-Z0-9])?"

var (
	refLabelRE    = regexp.MustCompile("^" + refLabelFmt + "$")
	refWildcardRE = regexp.MustCompile(`^(\*|(\*|\*-)?` + refLabelFmt + `)$`)
)

func refIsLabel(s string) bool         { return len(s) <= 63 && refLabelRE.MatchString(s) }
func refIsWildcardLabel(s string) bool { return len(s) <= 63 && refWildcardRE.MatchString(s) }

func refPreconditions(d string) string {
	if len(d) > 255 {
		return fmt.Sprintf("domain name %q too long (max 255)", d)
	}
	if len(d) == 0 {
		return "empty domain name not allowed"
	}
	return ""
}

func refLabels(d string) string {
	parts := strings.Split(d, ".")
	tld := parts[len(parts)-1]
	if _, err := strconv.Atoi(tld); err == nil {
		return fmt.Sprintf("domain name %q invalid (top level domain %q cannot be all-numeric)", d, tld)
	}
	for i, l := range parts {
		if i == len(parts)-1 && l == "" {
			return ""
		}
		if !refIsLabel(l) {
			return fmt.Sprintf("domain name %q invalid (label %q invalid)", d, l)
		}
	}
	return ""
}

func refFQDN(d string) string {
	if r := refPreconditions(d); r != "" {
		return r
	}
	return refLabels(d)
}

func refWildcardDomain(d string) string {
	if r := refPreconditions(d); r != "" {
		return r
	}
	parts := strings.SplitN(d, ".", 2)
	if !refIsWildcardLabel(parts[0]) {
		return fmt.Sprintf("domain name %q invalid (label %q invalid)", d, parts[0])
	}
	if len(parts) > 1 {
		return refLabels(parts[1])
	}
	return ""
}

func refIsIP(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

// refSidecarHostname is validateSidecarOrGatewayHostnamePart for a Sidecar: Istio appends
// the wildcard domain's problem twice for a host that is not an IP, which meshscope reports
// once.
func refSidecarHostname(h string) []string {
	var out []string
	if h != "*" && !strings.Contains(h, ".") {
		out = append(out, "short names (non FQDN) are not allowed")
	}
	if r := refWildcardDomain(h); r != "" {
		out = append(out, r)
	}
	if strings.Contains(h, "*") && len(h) != 1 && !strings.HasPrefix(h, "*.") {
		out = append(out, fmt.Sprintf("partial wildcard %q not allowed", h))
	}
	return out
}

// refNamespaceSlashHost is ValidateNamespaceSlashWildcardHostname for a Sidecar.
func refNamespaceSlashHost(s string) []string {
	parts := strings.SplitN(s, "/", 2)
	if len(parts) != 2 {
		return []string{"host must be of form namespace/dnsName"}
	}
	var out []string
	if len(parts[0]) == 0 || len(parts[1]) == 0 {
		out = append(out, "config namespace and dnsName in host entry cannot be empty")
	}
	ns := strings.TrimPrefix(parts[0], "~")
	if ns != "" && ns != "*" && ns != "." && !refIsLabel(ns) {
		out = append(out, fmt.Sprintf("invalid namespace value %q in sidecar", parts[0]))
	}
	return append(out, refSidecarHostname(parts[1])...)
}

// refProblems is what Istio's validation says of host h in field f (and, where meshscope
// refuses "*." on purpose, what it says).
func refProblems(h string, f Field) []string {
	one := func(r string) []string {
		if r == "" {
			return nil
		}
		return []string{r}
	}
	switch f {
	case ServiceEntryHosts: // ValidateServiceEntry
		if h == "*" {
			return []string{"invalid host *"}
		}
		if h == "*." {
			return []string{`"*." is a wildcard without a domain`}
		}
		return one(refWildcardDomain(h))
	case MeshVirtualServiceHosts, GatewayVirtualServiceHosts: // ValidateVirtualService
		if f == GatewayVirtualServiceHosts && strings.HasPrefix(h, "outbound_") {
			return nil
		}
		if r := refWildcardDomain(h); r != "" {
			if refIsIP(h) {
				return nil
			}
			return one(r)
		}
		if f == MeshVirtualServiceHosts && h == "*" {
			return one("wildcard host * is not allowed for virtual services bound to the mesh gateway")
		}
		return nil
	case DestinationRuleHost: // ValidateDestinationRule
		return one(refWildcardDomain(h))
	case RouteDestinationHost: // validateDestination
		if h == "*" {
			return one("invalid destination host *")
		}
		return one(refWildcardDomain(h))
	case SidecarEgressHosts: // ValidateSidecar
		return refNamespaceSlashHost(h)
	case ServiceSettingsHosts: // validateServiceSettings
		if h == "*." {
			return []string{`"*." is a wildcard without a domain`}
		}
		return one(refWildcardDomain(h))
	case FQDN:
		return one(refFQDN(h))
	}
	panic("unknown field")
}

// fields are every Field, with its name for a test's messages.
var fields = []struct {
	f    Field
	name string
}{
	{ServiceEntryHosts, "ServiceEntryHosts"},
	{MeshVirtualServiceHosts, "MeshVirtualServiceHosts"},
	{GatewayVirtualServiceHosts, "GatewayVirtualServiceHosts"},
	{DestinationRuleHost, "DestinationRuleHost"},
	{RouteDestinationHost, "RouteDestinationHost"},
	{SidecarEgressHosts, "SidecarEgressHosts"},
	{ServiceSettingsHosts, "ServiceSettingsHosts"},
	{FQDN, "FQDN"},
}

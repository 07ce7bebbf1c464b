package inventory

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/strict"
)

// The checks of what a Service carries, one function per field: each rule is written here
// once. Load runs them as it decodes an object, naming each field as the object
// spells it ("spec.hosts[0]"); Validate runs them on every service, naming fields as Service
// does ("Hosts[0]"). Each appends its problems, with Where left for the caller, to errs.

// portOutOfRange is what Load and Validate say of a service's or a Sidecar listener's port
// number above 65535 (or, where a number is required, 0).
const portOutOfRange = "port %d is out of range (1 to 65535)"

// checkHosts checks each host of the list at field: a DNS name whose first label may be a
// wildcard label ("*", or "*" then label characters: *.example.com, *x.example.com,
// *-foo.example.com, *x), in any case and with an optional trailing dot, but not "*" alone,
// as Istio validates a ServiceEntry's hosts.
func checkHosts(errs []*FieldError, field string, list []string) []*FieldError {
	for j, h := range list {
		if r := hosts.Problem(h); r != "" {
			errs = append(errs, fielderr.Newf("", strict.Index(field, j), h, "%q %s", h, r))
		}
	}
	return errs
}

// checkAddresses checks each address of the list at field: a valid prefix (an IP is a /32
// or /128). Load decodes only valid ones; this catches the zero netip.Prefix and a
// prefix length out of range in a Service built in Go.
func checkAddresses(errs []*FieldError, field string, addrs []netip.Prefix) []*FieldError {
	for j, p := range addrs {
		if !p.IsValid() {
			errs = append(errs, fielderr.Newf("", strict.Index(field, j), p, "not an IP or CIDR (the zero netip.Prefix, or a prefix length out of range)"))
		}
	}
	return errs
}

// checkResolution checks a ServiceEntry's resolution at field.
func checkResolution(errs []*FieldError, field string, r Resolution) []*FieldError {
	switch r {
	case "", ResolutionNone, ResolutionStatic, ResolutionDNS, ResolutionDNSRoundRobin, ResolutionDynamicDNS:
		return errs
	}
	return append(errs, fielderr.Newf("", field, r, "%q is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS", r))
}

// hostSet is a service's hosts as hosts compare (without case or a trailing dot): the hosts
// an allocated address may be for.
type hostSet map[string]bool

func newHostSet(list []string) hostSet {
	hs := make(hostSet, len(list))
	for _, h := range list {
		hs[hosts.Normalize(h)] = true
	}
	return hs
}

// checkAutoHost checks that host, at field, is one of the service's hosts.
func (hs hostSet) checkAutoHost(errs []*FieldError, field, host string) []*FieldError {
	if hs[hosts.Normalize(host)] {
		return errs
	}
	return append(errs, fielderr.Newf("", field, host, "%q is none of the service's hosts", host))
}

// checkAutoAddresses checks the addresses Istio allocated (Service.AutoAddresses, field):
// each for one of the service's hosts, each an IP.
func checkAutoAddresses(errs []*FieldError, field string, s *Service) []*FieldError {
	if len(s.AutoAddresses) == 0 {
		return errs
	}
	hs := newHostSet(s.Hosts)
	for _, h := range slices.Sorted(maps.Keys(s.AutoAddresses)) {
		at := strict.Key(field, h)
		errs = hs.checkAutoHost(errs, at, h)
		for j, p := range s.AutoAddresses[h] {
			if !p.IsSingleIP() {
				errs = append(errs, fielderr.Newf("", strict.Index(at, j), p, "%s is not an IP", p))
			}
		}
	}
	return errs
}

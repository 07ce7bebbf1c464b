package visibility

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// The checks of what a Service carries, one function per field: each rule is written here
// once. LoadInventory runs them as it decodes an object, naming each field as the object
// spells it ("spec.hosts[0]"); NewIndex runs them on every service, naming fields as Service
// does ("Hosts[0]"). Each appends its problems, with Where left for the caller, to errs.

// checkHosts checks each host of the list at field: a DNS name whose first label may be a
// wildcard label ("*", or "*" then label characters: *.example.com, *x.example.com,
// *-foo.example.com, *x), in any case and with an optional trailing dot, but not "*" alone,
// as Istio validates a ServiceEntry's hosts. Each valid host, normalized, is given to visit
// (nil: check only).
func checkHosts(errs []*FieldError, field string, hosts []string, visit func(h string)) []*FieldError {
	for j, h := range hosts {
		ok, normal := quickHost(h)
		if !ok {
			if r := hostProblem(h); r != "" {
				errs = append(errs, problem("", strict.Index(field, j), h, "%q %s", h, r))
				continue
			}
		}
		if visit != nil {
			if !normal {
				h = normalizeHost(h)
			}
			visit(h)
		}
	}
	return errs
}

// checkAddresses checks each address of the list at field: a valid prefix (an IP is a /32
// or /128). LoadInventory decodes only valid ones; this catches the zero netip.Prefix and a
// prefix length out of range in a Service built in Go.
func checkAddresses(errs []*FieldError, field string, addrs []netip.Prefix) []*FieldError {
	for j, p := range addrs {
		if !p.IsValid() {
			errs = append(errs, problem("", strict.Index(field, j), p, "not an IP or CIDR (the zero netip.Prefix, or a prefix length out of range)"))
		}
	}
	return errs
}

// exportToList says whose exportTo list checkExportTo checks.
type exportToList int

const (
	// entryList: a ServiceEntry's spec.exportTo, where "." counts as the entry's namespace
	// when looking for repeats.
	entryList exportToList = iota
	// annotationList: a Kubernetes Service's networking.istio.io/exportTo annotation, whose
	// repeats are accepted: Istio does not validate the annotation and reads it as a set.
	annotationList
	// meshList: the mesh default, where "." repeats only itself.
	meshList
)

// exportToListOf is the kind of exportTo list a service of kind k carries.
func exportToListOf(k Kind) exportToList {
	if k == KubernetesService {
		return annotationList
	}
	return entryList
}

// checkExportTo checks the exportTo list at field. Valid lists are: empty (the mesh default
// applies), "*" alone, "~" alone, or "." and namespace names (lowercase RFC 1123 labels)
// without repeats (see exportToList for what a repeat is, and where repeats are accepted).
func checkExportTo(errs []*FieldError, field, namespace string, list []string, kind exportToList) []*FieldError {
	var seen map[string]int // for long lists; short ones are scanned
	if len(list) > 16 {
		seen = make(map[string]int, len(list))
	}
	key := func(v string) string {
		if v == exportToOwn && kind == entryList {
			return namespace
		}
		return v
	}
	for i, v := range list {
		at := strict.Index(field, i)
		switch v {
		case exportToAll, exportToNone:
			if len(list) > 1 {
				errs = append(errs, problem("", at, v, "%q must be the only value", v))
			}
			continue
		case exportToOwn:
		default:
			if r := names.Label(v); r != "" {
				errs = append(errs, problem("", at, v, "%q is not \"*\", \".\", \"~\" or a namespace name: %s", v, r))
				continue
			}
		}
		if kind == annotationList {
			continue
		}
		k := key(v)
		j := -1
		if seen != nil {
			if first, dup := seen[k]; dup {
				j = first
			} else {
				seen[k] = i
			}
		} else {
			j = slices.IndexFunc(list[:i], func(w string) bool { return w != exportToAll && w != exportToNone && key(w) == k })
		}
		if j >= 0 {
			errs = append(errs, problem("", at, v, "%q repeats %s (%q)", v, strict.Index(field, j), list[j]))
		}
	}
	return errs
}

// checkResolution checks a ServiceEntry's resolution at field.
func checkResolution(errs []*FieldError, field, r string) []*FieldError {
	switch r {
	case "", ResolutionNone, ResolutionStatic, ResolutionDNS, ResolutionDNSRoundRobin, ResolutionDynamicDNS:
		return errs
	}
	return append(errs, problem("", field, r, "%q is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS", r))
}

// hostSet is a service's hosts as hosts compare (without case or a trailing dot): the hosts
// an allocated address may be for.
type hostSet map[string]bool

func newHostSet(hosts []string) hostSet {
	hs := make(hostSet, len(hosts))
	for _, h := range hosts {
		hs[normalizeHost(h)] = true
	}
	return hs
}

// checkAutoHost checks that host, at field, is one of the service's hosts.
func (hs hostSet) checkAutoHost(errs []*FieldError, field, host string) []*FieldError {
	if hs[normalizeHost(host)] {
		return errs
	}
	return append(errs, problem("", field, host, "%q is none of the service's hosts", host))
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
				errs = append(errs, problem("", strict.Index(at, j), p, "%s is not an IP", p))
			}
		}
	}
	return errs
}

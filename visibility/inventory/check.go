package inventory

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/kube"
)

// The checks of what a Service carries, one function per field: each rule is written here
// once. Each takes the path of the service's spec — fielderr.Root(fielderr.Object).Child("spec")
// when Load runs it on an object it reads, naming fields as the object spells them
// ("spec.hosts[0]"), fielderr.Root(fielderr.GoValue) when Validate runs it on a Service,
// naming fields as the Go value does ("Hosts[0]") — and builds a field's path only for a
// problem there. Each appends its problems, with Where left for the caller, to errs.

// Roots of the two spellings: the spec of an object read, and a value built in Go.
var (
	objectSpec = fielderr.Root(fielderr.Object).Child("spec")
	goValue    = fielderr.Root(fielderr.GoValue)
)

// portOutOfRange is what Load and Validate say of a service's or a Sidecar listener's port
// number above 65535 (or, where a number is required, 0).
const portOutOfRange = "port %d is out of range (1 to 65535)"

// checkHosts checks a service's hosts, as Istio validates a ServiceEntry's (see
// hosts.ServiceEntryHosts): each a domain whose first label may be a wildcard label, not "*"
// alone. (Istio also refuses a ServiceEntry without hosts, and, with resolution DYNAMIC_DNS,
// one with a host that is not a wildcard; meshscope reads both: the package documentation
// says why.)
func checkHosts(errs []*FieldError, spec fielderr.Path, list []string) []*FieldError {
	for j, h := range list {
		for _, r := range hosts.Problems(h, hosts.ServiceEntryHosts) {
			errs = append(errs, spec.Child("hosts").Index(j).Problem(h, r))
		}
	}
	return errs
}

// checkAddresses checks each of a service's addresses: a valid prefix (an IP is a /32 or
// /128). Load decodes only valid ones; this catches the zero netip.Prefix and a prefix length
// out of range in a Service built in Go.
func checkAddresses(errs []*FieldError, spec fielderr.Path, addrs []netip.Prefix) []*FieldError {
	for j, p := range addrs {
		if !p.IsValid() {
			errs = append(errs, spec.Child("addresses").Index(j).Problem(p, "not an IP or CIDR (the zero netip.Prefix, or a prefix length out of range)"))
		}
	}
	return errs
}

// checkResolution checks a ServiceEntry's resolution.
func checkResolution(errs []*FieldError, spec fielderr.Path, r Resolution) []*FieldError {
	switch r {
	case "", ResolutionNone, ResolutionStatic, ResolutionDNS, ResolutionDNSRoundRobin, ResolutionDynamicDNS:
		return errs
	}
	return append(errs, spec.Child("resolution").Problemf(r, "%q is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS", r))
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

// has reports whether host is one of the service's.
func (hs hostSet) has(host string) bool { return hs[hosts.Normalize(host)] }

// notAHost is the problem of an allocated address, at at, for host, none of the service's.
func notAHost(at fielderr.Path, host string) *FieldError {
	return at.Problemf(host, "%q is none of the service's hosts", host)
}

// checkAutoAddresses checks the addresses Istio allocated (Service.AutoAddresses, of a value
// built in Go; Load reads status.addresses, see statusAddresses): each for one of the
// service's hosts, each an IP. The hosts are walked in order only when one has a problem.
func checkAutoAddresses(errs []*FieldError, root fielderr.Path, s *Service) []*FieldError {
	if len(s.AutoAddresses) == 0 {
		return errs
	}
	hs := newHostSet(s.Hosts)
	ok := func(h string) bool {
		return hs.has(h) && !slices.ContainsFunc(s.AutoAddresses[h], func(p netip.Prefix) bool { return !p.IsSingleIP() })
	}
	bad := false
	for h := range s.AutoAddresses {
		bad = bad || !ok(h)
	}
	if !bad {
		return errs
	}
	for _, h := range slices.Sorted(maps.Keys(s.AutoAddresses)) {
		at := root.Field("", "AutoAddresses").Key(h)
		if !hs.has(h) {
			errs = append(errs, notAHost(at, h))
		}
		for j, p := range s.AutoAddresses[h] {
			if !p.IsSingleIP() {
				errs = append(errs, at.Index(j).Problemf(p, "%s is not an IP", p))
			}
		}
	}
	return errs
}

// checkWorkloadLabels checks the label keys and values of a workload selector, at the path
// at gives (built only for a problem).
func checkWorkloadLabels(errs []*FieldError, at func() fielderr.Path, ls map[string]string) []*FieldError {
	if len(ls) == 0 {
		return errs
	}
	return append(errs, kube.LabelProblems(at, ls)...)
}

// selectorPath is the path of a service's selector: a ServiceEntry's
// spec.workloadSelector.labels, a Kubernetes Service's spec.selector; Selector in Go.
func selectorPath(spec fielderr.Path, k Kind) fielderr.Path {
	if k == KubernetesService {
		return spec.Field("selector", "Selector")
	}
	return spec.Field("workloadSelector", "Selector").Field("labels", "")
}

// checkPorts checks a service's declared ports (each number at spec.ports[i].<sub>: number
// for a ServiceEntry, port for a Kubernetes Service; Ports[i] in Go): each 1 to 65535, and,
// for a ServiceEntry, each once (a Kubernetes Service may give a number twice, for TCP and
// UDP).
func checkPorts(errs []*FieldError, spec fielderr.Path, sub string, kind Kind, ports []uint32) []*FieldError {
	if len(ports) == 0 {
		return errs
	}
	at := func(i int) fielderr.Path { return spec.Child("ports").Index(i).Field(sub, "") }
	bad := func(i int) bool { return ports[i] == 0 || ports[i] > 65535 }
	checked := 0 // the ports before it are checked for their range
	inRange := func(upTo int) {
		for ; checked < upTo; checked++ {
			if bad(checked) {
				errs = append(errs, at(checked).Problemf(ports[checked], portOutOfRange, ports[checked]))
			}
		}
	}
	if kind == ServiceEntry {
		repeats(len(ports), func(i int) uint32 { return ports[i] }, func(i, j int) {
			inRange(i + 1)
			if !bad(i) {
				errs = append(errs, at(i).Problemf(ports[i], "port %d repeats %s; Istio requires a ServiceEntry's port numbers unique", ports[i], at(j)))
			}
		})
	}
	inRange(len(ports))
	return errs
}

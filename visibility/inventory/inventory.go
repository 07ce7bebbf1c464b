package inventory

import (
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility"
	"k8s.io/apimachinery/pkg/labels"
)

// exportToAnnotation is the annotation that gives a Kubernetes Service its exportTo, as a
// comma-separated list.
const exportToAnnotation = "networking.istio.io/exportTo"

// Kind is the kind of a service in an inventory.
type Kind int

// The kinds of service.
const (
	// ServiceEntry is an Istio ServiceEntry, subject to visibility policies.
	ServiceEntry Kind = iota
	// KubernetesService is a Kubernetes Service: always PUBLIC.
	KubernetesService
)

// String returns "ServiceEntry" or "KubernetesService".
func (k Kind) String() string {
	switch k {
	case ServiceEntry:
		return "ServiceEntry"
	case KubernetesService:
		return "KubernetesService"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) {
	if k != ServiceEntry && k != KubernetesService {
		return nil, &FieldError{Value: int(k), Detail: fmt.Sprintf("unknown kind %d", int(k))}
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes a kind by name.
func (k *Kind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "ServiceEntry":
		*k = ServiceEntry
	case "KubernetesService":
		*k = KubernetesService
	default:
		return &FieldError{Value: string(b), Detail: fmt.Sprintf("unknown kind %q (want ServiceEntry or KubernetesService)", b)}
	}
	return nil
}

// Service is a ServiceEntry or a Kubernetes Service as the data plane sees it.
type Service struct {
	Kind      Kind   `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Hosts are DNS names whose first label may be a wildcard label: *.example.com matches
	// every host ending in .example.com, and the partial wildcards *x.example.com and
	// *-foo.example.com every host ending in x.example.com and -foo.example.com (as Istio
	// matches hosts; see ambient.Index.LookupHost for what ztunnel's DNS proxy does with them). They
	// compare without case and without a trailing dot.
	Hosts []string `json:"hosts,omitempty"`
	// Addresses are IPs and CIDRs: an IP is a /32 or /128 prefix (netip.PrefixFrom(ip,
	// ip.BitLen())), and a CIDR's host bits are ignored (Load stores it masked). IPv4 mapped
	// into IPv6 stays IPv6, as Istio keeps it: ::ffff:10.0.0.1 is not 10.0.0.1.
	Addresses []netip.Prefix `json:"addresses,omitempty"`
	// ExportTo is a ServiceEntry's spec.exportTo, or a Kubernetes Service's
	// networking.istio.io/exportTo annotation split at its commas (each value trimmed);
	// empty means the mesh default.
	ExportTo     []string  `json:"exportTo,omitempty"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	// Resolution is a ServiceEntry's spec.resolution; "" is NONE, as in Istio.
	Resolution Resolution `json:"resolution,omitempty"`
	// AutoAddresses are the addresses Istio allocated to a ServiceEntry, by host as
	// status.addresses writes it, each an IP (a /32 or /128); they are the entry's addresses
	// when it has none of its own (see AddressesFor, which matches the host exactly).
	AutoAddresses map[string][]netip.Prefix `json:"autoAddresses,omitempty"`
	// Labels are the object's labels: the auto-allocation opt-out
	// (networking.istio.io/enable-autoallocate-ip: "false") and service scope read them.
	Labels map[string]string `json:"labels,omitempty"`
	// Headless marks a Kubernetes Service with clusterIP None: it has no address but DNS
	// still answers for it.
	Headless bool `json:"headless,omitempty"`
	// Ports are the port numbers the service declares: a ServiceEntry's spec.ports[].number,
	// a Kubernetes Service's spec.ports[].port, in their order. A sidecar gets a service with
	// these ports (see package visibility/sidecar).
	Ports []uint32 `json:"ports,omitempty"`
	// Protocols are the protocol Istio gives each port of Ports, in their order (see
	// Protocol): a ServiceEntry's spec.ports[].protocol; a Kubernetes Service's port's
	// appProtocol, else the prefix of its name before a "-" (grpc-web whole), UDP for a UDP
	// port, TCP for an unrecognised one on 25, 53, 3306 or 27017. "" is a protocol Istio does
	// not recognise, which it sniffs. Empty (a Service built in Go) means "" for every port.
	Protocols []string `json:"protocols,omitempty"`
	// Selector is the workloads the service selects: a ServiceEntry's
	// spec.workloadSelector.labels, a Kubernetes Service's spec.selector. A sidecar view
	// merges the ports of two services of one host only when their selectors agree, as Istio
	// does.
	Selector map[string]string `json:"selector,omitempty"`
}

// autoAllocateLabel is the label with which a ServiceEntry opts out of address
// auto-allocation ("false", in any case).
const autoAllocateLabel = "networking.istio.io/enable-autoallocate-ip"

// Resolution is how a ServiceEntry's endpoints are found (spec.resolution).
type Resolution string

// The ServiceEntry resolutions.
const (
	ResolutionNone          Resolution = "NONE"
	ResolutionStatic        Resolution = "STATIC"
	ResolutionDNS           Resolution = "DNS"
	ResolutionDNSRoundRobin Resolution = "DNS_ROUND_ROBIN"
	ResolutionDynamicDNS    Resolution = "DYNAMIC_DNS"
)

// autoAllocates reports whether the entry uses the addresses Istio allocated: it has none of
// its own, its resolution is not NONE (nor absent), and it has not opted out.
func (s *Service) autoAllocates() bool {
	return s.Kind == ServiceEntry && len(s.Addresses) == 0 && s.Resolution != "" && s.Resolution != ResolutionNone &&
		!strings.EqualFold(s.Labels[autoAllocateLabel], "false")
}

// NoAddressReason says why the service has no address for host (see AddressesFor), as a
// clause such as "no spec.addresses, and resolution NONE gets none allocated"; "" when it
// has one.
func (s *Service) NoAddressReason(host string) string {
	switch {
	case len(s.AddressesFor(host)) > 0:
		return ""
	case s.Kind == KubernetesService:
		return "no cluster IP"
	case s.Resolution == "" || s.Resolution == ResolutionNone:
		return "no spec.addresses, and resolution NONE gets none allocated"
	case strings.EqualFold(s.Labels[autoAllocateLabel], "false"):
		return "no spec.addresses, and auto-allocation is off (" + autoAllocateLabel + ": false)"
	case strings.HasPrefix(host, "*") && s.Resolution != ResolutionDynamicDNS:
		return "no spec.addresses, and a wildcard host gets none allocated unless the resolution is DYNAMIC_DNS"
	}
	for _, k := range slices.Sorted(maps.Keys(s.AutoAddresses)) {
		if k != host && hosts.Normalize(k) == hosts.Normalize(host) {
			return fmt.Sprintf("no spec.addresses, and status.addresses allocates for %q, not %q: Istio compares the hosts exactly, so none is allocated for this one", k, host)
		}
	}
	return "no spec.addresses, and none allocated for this host (status.addresses)"
}

// AddressesFor returns the addresses the service has for one of its hosts, as ztunnel's DNS
// proxy sees them: its own addresses (a Kubernetes Service's cluster IPs, a ServiceEntry's
// spec.addresses); else, for a ServiceEntry whose resolution is not NONE and that has not
// opted out of auto-allocation, the addresses Istio allocated for that host — none for a
// wildcard host (partial ones included) unless the resolution is DYNAMIC_DNS. host is the
// host as spec.hosts writes it: Istio looks the allocation up by that exact string, so an
// allocation whose host differs in case or by a trailing dot is not this host's (see
// NoAddressReason). The slice is the service's own: read-only.
func (s *Service) AddressesFor(host string) []netip.Prefix {
	if len(s.Addresses) > 0 || !s.autoAllocates() {
		return s.Addresses
	}
	if strings.HasPrefix(host, "*") && s.Resolution != ResolutionDynamicDNS {
		return nil
	}
	return s.AutoAddresses[host]
}

// AllAddresses returns every address of the service: its own, else (auto-allocating) those
// Istio allocated for each of its hosts under the wildcard rule of AddressesFor.
func (s *Service) AllAddresses() []netip.Prefix {
	if !s.autoAllocates() || len(s.AutoAddresses) == 0 {
		return s.Addresses
	}
	var out []netip.Prefix
	for _, h := range s.Hosts {
		out = append(out, s.AddressesFor(h)...)
	}
	return out
}

// AnswersFor reports whether a DNS query for host gets an answer from the service: it has an
// address for the host, or it is a headless Kubernetes Service.
func (s *Service) AnswersFor(host string) bool {
	return len(s.AddressesFor(host)) > 0 || s.Kind == KubernetesService && s.Headless
}

// Ref returns the service's kind, namespace and name.
func (s Service) Ref() ServiceRef {
	return ServiceRef{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}

// ServiceRef names a service of an inventory.
type ServiceRef struct {
	Kind      Kind   `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String returns "ServiceEntry shop/payments".
func (r ServiceRef) String() string { return r.Kind.String() + " " + r.Namespace + "/" + r.Name }

// Inventory is what a cluster holds, as far as who sees and reaches what: its namespaces
// with their labels, its services, and the Istio resources that decide what each proxy
// gets. Load reads one from kubectl output; one built in Go is checked by Validate, which
// every view calls. The views keep the inventory's slices and maps rather than copying
// them: do not modify an inventory after building a view of it.
type Inventory struct {
	// Namespaces maps each namespace name to its labels. A namespace missing here has no
	// labels (and no Namespace object: discovery selectors never select it).
	Namespaces map[string]map[string]string
	// Services are the ServiceEntries and Kubernetes Services.
	Services []Service
	// Sidecars are the Sidecar resources, which decide what each sidecar proxy imports.
	Sidecars []Sidecar
	// VirtualServices and DestinationRules decide how each proxy routes a host, which
	// services their destinations add to a sidecar's view, and which subsets and traffic
	// policy it gets for a host.
	VirtualServices  []VirtualService
	DestinationRules []DestinationRule
	// Routes are the Gateway API routes (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute), which
	// istiod converts into VirtualServices of its own; ReferenceGrants and Gateways are the
	// objects it reads with them (see Route).
	Routes          []Route
	ReferenceGrants []ReferenceGrant
	Gateways        []Gateway
	// Domain is the cluster's DNS domain: a Kubernetes Service's host is
	// <name>.<namespace>.svc.<domain>, and short names expand into it; "" means
	// "cluster.local".
	Domain string
}

// DefaultDomain is the cluster domain when an inventory names none.
const DefaultDomain = "cluster.local"

// ClusterDomain returns the cluster domain, normalized (lower case, no trailing dot):
// Domain, or cluster.local when it is "".
func (inv *Inventory) ClusterDomain() string {
	if inv == nil || inv.Domain == "" {
		return DefaultDomain
	}
	return hosts.Normalize(inv.Domain)
}

// ServiceHost returns the host Istio gives the Kubernetes Service name in namespace, and the
// name a short host name expands into: name.namespace.svc.domain. The domain is used as
// given (an inventory's is ClusterDomain); nothing is checked or normalized.
func ServiceHost(name, namespace, domain string) string {
	return name + "." + namespace + ".svc." + domain
}

// Decisions returns the visibility decision of each service of the inventory under r, in
// the order of Services: a ServiceEntry's is r's decision for the labels of its namespace,
// worked out once per namespace (it depends on nothing else); a Kubernetes Service's is
// PUBLIC with no deciding policy (NoIndex), for visibility policies apply to ServiceEntries
// only. The caller owns the slice.
func (inv *Inventory) Decisions(r *visibility.Resolver) []visibility.Decision {
	if inv == nil {
		return nil
	}
	out := make([]visibility.Decision, len(inv.Services))
	byNS := make(map[string]visibility.Decision, len(inv.Namespaces))
	for i := range inv.Services {
		s := &inv.Services[i]
		if s.Kind != ServiceEntry {
			out[i] = visibility.Decision{Visibility: visibility.Public, Policy: visibility.NoIndex}
			continue
		}
		d, ok := byNS[s.Namespace]
		if !ok {
			d = r.Resolve(labels.Set(inv.Namespaces[s.Namespace]))
			byNS[s.Namespace] = d
		}
		out[i] = d
	}
	return out
}

// NamespaceNames returns every namespace of the inventory — those with a Namespace object,
// and those a service, a Sidecar, a VirtualService, a DestinationRule or a route is in —
// sorted. The caller owns the slice.
func (inv *Inventory) NamespaceNames() []string {
	if inv == nil {
		return nil
	}
	out := make([]string, 0, len(inv.Namespaces))
	for ns := range inv.Namespaces {
		out = append(out, ns)
	}
	for i := range inv.Services {
		out = append(out, inv.Services[i].Namespace)
	}
	for i := range inv.Sidecars {
		out = append(out, inv.Sidecars[i].Namespace)
	}
	for i := range inv.VirtualServices {
		out = append(out, inv.VirtualServices[i].Namespace)
	}
	for i := range inv.DestinationRules {
		out = append(out, inv.DestinationRules[i].Namespace)
	}
	for i := range inv.Routes {
		out = append(out, inv.Routes[i].Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

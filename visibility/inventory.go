package visibility

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// ExportToAnnotation is the annotation that gives a Kubernetes Service its exportTo, as a
// comma-separated list.
const ExportToAnnotation = "networking.istio.io/exportTo"

// LoadInventory reads namespaces, ServiceEntries and Services from Kubernetes YAML or JSON —
// the output of `kubectl get namespaces,serviceentries,services -A -o yaml` (a List, nested
// Lists too), single objects, or several documents separated by "---". Objects of other
// kinds are skipped; a kind that misspells one of the three is an error.
//
// A Namespace contributes its labels (with kubernetes.io/metadata.name added when the dump
// lacks it, as the API server sets it). A ServiceEntry contributes spec.hosts,
// spec.addresses, spec.exportTo, spec.resolution, the addresses Istio allocated
// (status.addresses, {value, host}) and its labels. A Service (apiVersion v1) contributes the
// host <name>.<namespace>.svc.<clusterDomain> ("" means cluster.local), its cluster IPs
// (clusterIP None makes it headless), its labels, and the exportTo of its
// networking.istio.io/exportTo annotation. Inventory.Domain is the cluster domain.
//
// Everything NewIndex would refuse is refused here, naming the document, the List item, the
// object and the field as the user wrote them, one problem a line:
//
//	items[5] (ServiceEntry shop/api): spec.hosts[0]: "api.*.example.com" is not a DNS name: …
//
// So are two Namespace objects with one name (naming both: document order must not decide
// which labels count), a key given twice, and input with no Namespace, ServiceEntry or
// Service at all (an error saying what the input holds instead).
func LoadInventory(data []byte, clusterDomain string) (Inventory, error) {
	if clusterDomain == "" {
		clusterDomain = "cluster.local"
	}
	s := readObjects(data)
	l := inventoryLoader{
		inv:    Inventory{Namespaces: map[string]map[string]string{}, Domain: clusterDomain},
		domain: clusterDomain,
		seen:   map[string]string{},
	}
	var errs []error
	skipped := map[string]int{}
	read := 0
	for _, o := range s.objects {
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		if err := checkKind(o, []string{"Namespace", "ServiceEntry", "Service"}); err != nil {
			errs = append(errs, err)
			continue
		}
		var problems []error
		switch {
		case o.kind == "Namespace":
			problems = l.namespace(o)
		case o.kind == "ServiceEntry":
			problems = l.serviceEntry(o)
		case o.kind == "Service" && isCoreV1(o):
			problems = l.service(o)
		default:
			skipped[describeKind(o)]++
			continue
		}
		read++
		for _, p := range problems {
			errs = append(errs, fielderr.In(objectWhere(o), p))
		}
	}
	if len(errs) > 0 {
		return Inventory{}, errors.Join(errs...)
	}
	if read == 0 {
		return Inventory{}, &FieldError{Detail: fmt.Sprintf("no inventory: %s; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services -A -o yaml)", s.found(skipped)), Err: ErrNoInventory}
	}
	return l.inv, nil
}

// objectWhere names an object for its problems: "items[3] (ServiceEntry shop/api)", or
// "ServiceEntry shop/api" for the only document of a stream.
func objectWhere(o kubeObject) string {
	if o.where == "" {
		return o.id()
	}
	return o.where + " (" + o.id() + ")"
}

// isCoreV1 reports whether o is of the core API group (a Service of another group, such as
// Knative's, is another kind of object).
func isCoreV1(o kubeObject) bool {
	v, _ := o.fields["apiVersion"].(string)
	return v == "" || v == "v1"
}

type inventoryLoader struct {
	inv    Inventory
	domain string
	seen   map[string]string // namespace name -> where its Namespace object is
}

// objectMeta is the metadata an inventory reads.
type objectMeta struct {
	name, namespace   string
	labels, annots    map[string]string
	creationTimestamp string
}

func readMeta(d *strict.Decoder, o kubeObject) objectMeta {
	var m objectMeta
	mo, ok := d.Object(o.fields["metadata"], "metadata")
	if !ok {
		return m
	}
	mo.String(&m.name, "name")
	mo.String(&m.namespace, "namespace")
	mo.String(&m.creationTimestamp, "creationTimestamp")
	if v, p, ok := mo.Get("labels"); ok {
		m.labels = d.StringMap(v, p)
	}
	if v, p, ok := mo.Get("annotations"); ok {
		m.annots = d.StringMap(v, p)
	}
	return m
}

// namespace reads a Namespace: its name and labels.
func (l *inventoryLoader) namespace(o kubeObject) []error {
	var d strict.Decoder
	m := readMeta(&d, o)
	if m.name == "" {
		d.Errorf("metadata.name", "must not be empty")
	} else if r := names.Label(m.name); r != "" {
		d.Errorf("metadata.name", "%q %s", m.name, r)
	}
	if err := d.Err(); err != nil {
		return strict.Split(err)
	}
	here := cmp.Or(o.where, "the object")
	if first, dup := l.seen[m.name]; dup {
		return []error{&FieldError{Field: "metadata.name", Value: m.name, Detail: fmt.Sprintf("a second Namespace %s (the first is %s); which labels apply would depend on document order", m.name, first), Err: ErrDuplicate}}
	}
	l.seen[m.name] = here
	ls := make(map[string]string, len(m.labels)+1)
	for k, v := range m.labels {
		ls[k] = v
	}
	if _, ok := ls[NamespaceNameLabel]; !ok {
		ls[NamespaceNameLabel] = m.name
	}
	l.inv.Namespaces[m.name] = ls
	return nil
}

// serviceEntry reads a ServiceEntry: hosts, addresses and exportTo.
func (l *inventoryLoader) serviceEntry(o kubeObject) []error {
	var d strict.Decoder
	s, spec, ok := l.common(&d, o, ServiceEntry)
	if ok {
		for i, h := range specStrings(&d, spec, "hosts") {
			if r := hostProblem(h); r != "" {
				d.Errorf(strict.Index("spec.hosts", i), "%q %s", h, r)
			}
			s.Hosts = append(s.Hosts, h)
		}
		for i, a := range specStrings(&d, spec, "addresses") {
			if _, _, err := parseAddress(a); err != nil {
				d.Errorf(strict.Index("spec.addresses", i), "%q is not an IP or CIDR", a)
			}
			s.Addresses = append(s.Addresses, a)
		}
		s.ExportTo = specStrings(&d, spec, "exportTo")
		exportToProblems(&d, "spec.exportTo", s)
		if v, ok := spec["resolution"]; ok && v != nil {
			s.Resolution = d.String(v, "spec.resolution")
			if !validResolution(s.Resolution) {
				d.Fail("spec.resolution", s.Resolution, "%q is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS", s.Resolution)
			}
		}
		s.AutoAddresses = statusAddresses(&d, o, s)
	}
	return l.finish(&d, s)
}

// statusAddresses reads the addresses Istio allocated, status.addresses[] {value, host}, by
// host; each host must be one of the entry's and each value an IP.
func statusAddresses(d *strict.Decoder, o kubeObject, s *loadedService) map[string][]string {
	st, ok := d.Object(o.fields["status"], "status")
	if !ok {
		return nil
	}
	v, p, ok := st.Get("addresses")
	if !ok {
		return nil
	}
	hosts := make(map[string]bool, len(s.Hosts))
	for _, h := range s.Hosts {
		hosts[normalizeHost(h)] = true
	}
	var out map[string][]string
	for i, item := range d.List(v, p) {
		io, ok := d.Object(item, strict.Index(p, i))
		if !ok {
			continue
		}
		var value, host string
		io.String(&value, "value")
		io.String(&host, "host")
		switch {
		case value == "":
			d.Errorf(strict.Index(p, i)+".value", "must be set")
		case !isIP(value):
			d.Fail(strict.Index(p, i)+".value", value, "%q is not an IP", value)
		case host == "":
			d.Errorf(strict.Index(p, i)+".host", "must be set")
		case !hosts[normalizeHost(host)]:
			d.Fail(strict.Index(p, i)+".host", host, "%q is none of the entry's spec.hosts", host)
		default:
			if out == nil {
				out = map[string][]string{}
			}
			out[host] = append(out[host], value)
		}
	}
	return out
}

func isIP(s string) bool {
	a, _, err := parseAddress(s)
	return err == nil && a.IsValid()
}

func validResolution(r string) bool {
	switch r {
	case "", ResolutionNone, ResolutionStatic, ResolutionDNS, ResolutionDNSRoundRobin, ResolutionDynamicDNS:
		return true
	}
	return false
}

// service reads a Kubernetes Service: its host, cluster IPs and exportTo annotation.
func (l *inventoryLoader) service(o kubeObject) []error {
	var d strict.Decoder
	s, spec, ok := l.common(&d, o, KubernetesService)
	if ok {
		s.Hosts = []string{s.Name + "." + s.Namespace + ".svc." + l.domain}
		field := "spec.clusterIPs"
		ips := specStrings(&d, spec, "clusterIPs")
		if ip, _ := spec["clusterIP"].(string); len(ips) == 0 && ip != "" {
			ips, field = []string{ip}, "spec.clusterIP"
		} else if v, ok := spec["clusterIP"]; ok && v != nil {
			d.String(v, "spec.clusterIP")
		}
		for i, ip := range ips {
			if ip == "None" {
				s.Headless = true
			}
			if ip == "" || ip == "None" {
				continue
			}
			if _, _, err := parseAddress(ip); err != nil {
				p := field
				if field == "spec.clusterIPs" {
					p = strict.Index(field, i)
				}
				d.Errorf(p, "%q is not an IP", ip)
			}
			s.Addresses = append(s.Addresses, ip)
		}
		if v, ok := s.annots[ExportToAnnotation]; ok {
			for _, e := range strings.Split(v, ",") {
				s.ExportTo = append(s.ExportTo, strings.TrimSpace(e))
			}
			exportToProblems(&d, strict.Key("metadata.annotations", ExportToAnnotation), s)
		}
	}
	return l.finish(&d, s)
}

// loadedService is a service being read, with the metadata the kinds share.
type loadedService struct {
	Service
	annots map[string]string
}

// common reads what ServiceEntries and Services share: namespace, name, creation time, and
// the spec object. ok is false when the object is too broken to read further.
func (l *inventoryLoader) common(d *strict.Decoder, o kubeObject, kind Kind) (*loadedService, map[string]any, bool) {
	m := readMeta(d, o)
	s := &loadedService{Service: Service{Kind: kind, Namespace: m.namespace, Name: m.name, Labels: m.labels}, annots: m.annots}
	if m.namespace == "" || m.name == "" {
		d.Add(&FieldError{Field: "metadata", Detail: "namespace and name must be set (dump with -A so that objects carry their namespace)"})
		return s, nil, false
	}
	if r := names.Label(m.namespace); r != "" {
		d.Errorf("metadata.namespace", "%q %s", m.namespace, r)
	}
	if r := names.Subdomain(m.name); r != "" {
		d.Errorf("metadata.name", "%q %s", m.name, r)
	}
	if ts := m.creationTimestamp; ts != "" {
		t, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			d.Errorf("metadata.creationTimestamp", "%q is not an RFC 3339 time", ts)
		}
		s.CreationTime = t
	}
	spec := map[string]any{}
	if x := o.fields["spec"]; x != nil {
		so, isObj := x.(map[string]any)
		if !isObj {
			d.Errorf("spec", "must be an object, got %s", strict.Describe(x))
			return s, nil, false
		}
		spec = so
	}
	return s, spec, true
}

func (l *inventoryLoader) finish(d *strict.Decoder, s *loadedService) []error {
	if err := d.Err(); err != nil {
		return strict.Split(err)
	}
	l.inv.Services = append(l.inv.Services, s.Service)
	return nil
}

// specStrings reads spec.<field> as a list of strings.
func specStrings(d *strict.Decoder, spec map[string]any, field string) []string {
	return d.Strings(spec[field], "spec."+field)
}

// exportToProblems records the problems of s's exportTo, the list at field.
func exportToProblems(d *strict.Decoder, field string, s *loadedService) {
	if len(s.ExportTo) == 0 || names.Label(s.Namespace) != "" {
		return
	}
	for _, fe := range renamed(validateExportTo(s.Namespace, s.ExportTo, true), field) {
		d.Add(fe)
	}
}

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
	// Hosts are DNS names, optionally starting with "*." (a wildcard of one or more labels).
	// They compare without case and without a trailing dot.
	Hosts []string `json:"hosts,omitempty"`
	// Addresses are IPs or CIDRs, e.g. "10.0.0.1", "10.1.0.0/16"; a /32 or /128 is an IP.
	Addresses []string `json:"addresses,omitempty"`
	// ExportTo is the entry's exportTo list; empty means the mesh default.
	ExportTo     []string  `json:"exportTo,omitempty"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	// Resolution is a ServiceEntry's spec.resolution: "", "NONE", "STATIC", "DNS",
	// "DNS_ROUND_ROBIN" or "DYNAMIC_DNS"; "" is NONE, as in Istio.
	Resolution string `json:"resolution,omitempty"`
	// AutoAddresses are the addresses Istio allocated to a ServiceEntry, by host (its
	// status.addresses); they are the entry's addresses when it has none of its own (see
	// AddressesFor).
	AutoAddresses map[string][]string `json:"autoAddresses,omitempty"`
	// Labels are the object's labels: the auto-allocation opt-out
	// (networking.istio.io/enable-autoallocate-ip: "false") and service scope read them.
	Labels map[string]string `json:"labels,omitempty"`
	// Headless marks a Kubernetes Service with clusterIP None: it has no address but DNS
	// still answers for it.
	Headless bool `json:"headless,omitempty"`
}

// AutoAllocateLabel is the label with which a ServiceEntry opts out of address
// auto-allocation ("false", in any case).
const AutoAllocateLabel = "networking.istio.io/enable-autoallocate-ip"

// The ServiceEntry resolutions.
const (
	ResolutionNone          = "NONE"
	ResolutionStatic        = "STATIC"
	ResolutionDNS           = "DNS"
	ResolutionDNSRoundRobin = "DNS_ROUND_ROBIN"
	ResolutionDynamicDNS    = "DYNAMIC_DNS"
)

// autoAllocates reports whether the entry uses the addresses Istio allocated: it has none of
// its own, its resolution is not NONE (nor absent), and it has not opted out.
func (s *Service) autoAllocates() bool {
	return s.Kind == ServiceEntry && len(s.Addresses) == 0 && s.Resolution != "" && s.Resolution != ResolutionNone &&
		!strings.EqualFold(s.Labels[AutoAllocateLabel], "false")
}

// AddressesFor returns the addresses the service has for one of its hosts, as ztunnel's DNS
// proxy sees them: its own addresses (a Kubernetes Service's cluster IPs, a ServiceEntry's
// spec.addresses); else, for a ServiceEntry whose resolution is not NONE and that has not
// opted out of auto-allocation, the addresses Istio allocated for that host — none for a
// wildcard host unless the resolution is DYNAMIC_DNS. The slice is the service's own:
// read-only.
func (s *Service) AddressesFor(host string) []string {
	if len(s.Addresses) > 0 || !s.autoAllocates() {
		return s.Addresses
	}
	if strings.HasPrefix(host, "*.") && s.Resolution != ResolutionDynamicDNS {
		return nil
	}
	h := normalizeHost(host)
	var out []string
	n := 0
	for k, a := range s.AutoAddresses { // keys compare as hosts do: without case or a trailing dot
		if normalizeHost(k) == h {
			out, n = a, n+1
		}
	}
	if n <= 1 {
		return out
	}
	// Two spellings of one host (a.x and A.X.): the union, in a fixed order.
	out = nil
	for _, k := range slices.Sorted(maps.Keys(s.AutoAddresses)) {
		if normalizeHost(k) == h {
			out = append(out, s.AutoAddresses[k]...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// answersFor reports whether a DNS query for host gets an answer from the service: it has an
// address for the host, or it is a headless Kubernetes Service.
func (s *Service) answersFor(host string) bool {
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

// Inventory is what a cluster holds: its namespaces with their labels, its services, and the
// mesh-wide default exportTo.
type Inventory struct {
	// Namespaces maps each namespace name to its labels. A namespace missing here has no
	// labels.
	Namespaces map[string]map[string]string
	Services   []Service
	// DefaultExportTo is meshConfig.defaultServiceExportTo; nil means ["*"].
	DefaultExportTo []string
	// Domain is the cluster's DNS domain, which short names expand into; "" means
	// "cluster.local".
	Domain string
}

// ambientProblems validates what a service carries for ztunnel's view: its resolution, and
// the addresses Istio allocated (each for one of its hosts, each an IP).
func ambientProblems(s *Service) []*FieldError {
	var errs []*FieldError
	if !validResolution(s.Resolution) {
		errs = append(errs, problem("", "Resolution", s.Resolution, "%q is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS", s.Resolution))
	}
	if len(s.AutoAddresses) == 0 {
		return errs
	}
	hosts := make(map[string]bool, len(s.Hosts))
	for _, h := range s.Hosts {
		hosts[normalizeHost(h)] = true
	}
	for _, h := range slices.Sorted(maps.Keys(s.AutoAddresses)) {
		field := strict.Key("AutoAddresses", h)
		if !hosts[normalizeHost(h)] {
			errs = append(errs, problem("", field, h, "%q is none of the service's hosts", h))
		}
		for j, a := range s.AutoAddresses[h] {
			if !isIP(a) {
				errs = append(errs, problem("", strict.Index(field, j), a, "%q is not an IP", a))
			}
		}
	}
	return errs
}

package visibility

import (
	"cmp"
	"errors"
	"fmt"
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
// spec.addresses and spec.exportTo. A Service (apiVersion v1) contributes the host
// <name>.<namespace>.svc.<clusterDomain> ("" means cluster.local), its cluster IPs, and the
// exportTo of its networking.istio.io/exportTo annotation.
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
		inv:    Inventory{Namespaces: map[string]map[string]string{}},
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
	}
	return l.finish(&d, s)
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
	s := &loadedService{Service: Service{Kind: kind, Namespace: m.namespace, Name: m.name}, annots: m.annots}
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
}

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
//
// What kubectl prints — block YAML, or JSON — is read directly, several times faster than a
// generic YAML decode and with a fifth of its allocations (a few bytes per input byte); any
// other YAML is read with a full YAML parser, with the same answers. The inventory's strings
// may then share one copy of data: keeping the inventory may keep that copy.
func LoadInventory(data []byte, clusterDomain string) (Inventory, error) {
	if clusterDomain == "" {
		clusterDomain = "cluster.local"
	}
	s := readObjects(data, readsObject)
	nss, svcs := 0, 0
	for _, o := range s.objects {
		switch o.kind {
		case "Namespace":
			nss++
		case "ServiceEntry", "Service":
			svcs++
		}
	}
	l := inventoryLoader{
		inv:    Inventory{Namespaces: make(map[string]map[string]string, nss), Services: make([]Service, 0, svcs), Domain: clusterDomain},
		domain: clusterDomain,
		seen:   map[string]kubeObject{},
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

// readsObject reports whether LoadInventory reads o (a problem in any other object is not
// the inventory's).
func readsObject(o kubeObject) bool {
	return o.kind == "Namespace" || o.kind == "ServiceEntry" || o.kind == "Service" && isCoreV1(o)
}

// objectWhere names an object for its problems: "items[3] (ServiceEntry shop/api)", or
// "ServiceEntry shop/api" for the only document of a stream.
func objectWhere(o kubeObject) string {
	w := o.where()
	if w == "" {
		return o.id()
	}
	return w + " (" + o.id() + ")"
}

// isCoreV1 reports whether o is of the core API group (a Service of another group, such as
// Knative's, is another kind of object).
func isCoreV1(o kubeObject) bool {
	v, _ := o.fields.Value("apiVersion").(string)
	return v == "" || v == "v1"
}

type inventoryLoader struct {
	inv    Inventory
	domain string
	seen   map[string]kubeObject // namespace name -> its Namespace object
}

// objectMeta is the metadata an inventory reads.
type objectMeta struct {
	name, namespace   string
	labels            map[string]string
	annots            strict.Fields // read for a key or two: no map
	creationTimestamp string
}

func readMeta(d *strict.Decoder, o kubeObject) objectMeta {
	var m objectMeta
	mo, ok := d.Object(o.fields.Value("metadata"), "metadata")
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
		m.annots = d.StringFields(v, p)
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
	if first, dup := l.seen[m.name]; dup {
		return []error{&FieldError{Field: "metadata.name", Value: m.name, Detail: fmt.Sprintf("a second Namespace %s (the first is %s); which labels apply would depend on document order", m.name, cmp.Or(first.where(), "the object")), Err: ErrDuplicate}}
	}
	l.seen[m.name] = o
	ls := m.labels // StringMap's, ours to keep
	if ls == nil {
		ls = make(map[string]string, 1)
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
		if v := spec.Value("resolution"); v != nil {
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
	st, ok := d.Object(o.fields.Value("status"), "status")
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
		if ip, _ := spec.Value("clusterIP").(string); len(ips) == 0 && ip != "" {
			ips, field = []string{ip}, "spec.clusterIP"
		} else if v := spec.Value("clusterIP"); v != nil {
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
		if v, ok := s.annots.Get(ExportToAnnotation); ok {
			v := v.(string) // StringFields keeps only strings
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
	annots strict.Fields
}

// common reads what ServiceEntries and Services share: namespace, name, creation time, and
// the spec object. ok is false when the object is too broken to read further.
func (l *inventoryLoader) common(d *strict.Decoder, o kubeObject, kind Kind) (*loadedService, strict.Fields, bool) {
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
	spec := strict.Fields{}
	if x := o.fields.Value("spec"); x != nil {
		so, isObj := x.(strict.Fields)
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
func specStrings(d *strict.Decoder, spec strict.Fields, field string) []string {
	return d.Strings(spec.Value(field), "spec."+field)
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

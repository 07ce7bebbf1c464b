package inventory

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/visibility"
)

// Load reads namespaces, ServiceEntries, Services, Sidecars, VirtualServices,
// DestinationRules and the Gateway API's routes, ReferenceGrants and Gateways from
// Kubernetes YAML or JSON — the output of DumpCommand (`kubectl get
// namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,… -A
// -o yaml`: a List, nested Lists too), single objects, or several documents separated by
// "---". The items of a typed List as the API server writes one (kind: NamespaceList) that
// give no apiVersion or kind are of the List's, as Kubernetes' decoder reads them. Objects
// of other kinds are skipped; a kind that misspells one of these is an error.
//
// A Namespace contributes its labels (with kubernetes.io/metadata.name added when the dump
// lacks it, as the API server sets it). A ServiceEntry contributes spec.hosts,
// spec.addresses, spec.exportTo, spec.resolution, spec.ports[].number,
// spec.workloadSelector.labels, the addresses Istio allocated (status.addresses, {value,
// host}) and its labels. A Service (apiVersion v1) contributes the host
// <name>.<namespace>.svc.<clusterDomain> ("" means cluster.local), its cluster IPs
// (clusterIP None makes it headless), spec.ports[].port, spec.selector, its labels, and the
// exportTo of its networking.istio.io/exportTo annotation — split on commas and trimmed,
// repeats accepted, since Istio reads the annotation as a set without validating it. A
// Sidecar (networking.istio.io v1, v1beta1 or v1alpha3) contributes its workload selector
// and egress listeners; a VirtualService its hosts, gateways, exportTo and routes (see
// VirtualService); a DestinationRule its host, exportTo, workload selector, subsets and
// traffic policies (see DestinationRule). A Sidecar, VirtualService or DestinationRule of
// another API group is another kind of object, and is skipped. HTTPRoutes, GRPCRoutes,
// TCPRoutes, TLSRoutes, ReferenceGrants and Gateways of gateway.networking.k8s.io are read
// into Routes, ReferenceGrants and Gateways, with the API server's defaults (see Route and
// the package documentation). Each is refused where Istio's
// validation refuses it, with Istio's words (the package documentation lists the rules).
// Inventory.Domain is the cluster domain.
//
// Addresses are decoded into netip prefixes (an IP as a /32 or /128, IPv4 mapped into IPv6
// kept as IPv6, a CIDR masked); a cluster IP and an allocated address must be IPs. Every check
// Validate makes is made here, by the same code, naming the document, the List item, the
// object and the field as the user wrote them, one problem a line:
//
//	items[5] (ServiceEntry shop/api): spec.hosts[0]: domain name "*.example.com" invalid (label "*" invalid)
//	items[7] (VirtualService shop/reviews): spec.hosts[1]: duplicate hosts in virtual service: *.shop.example & api.shop.example
//
// So are two Namespace objects with one name (naming both: document order must not decide
// which labels count), two objects of another kind with one namespace and name, a key
// given twice, and input with no Namespace, ServiceEntry or Service at all (an
// error saying what the input holds instead).
//
// What kubectl, Helm and people write — block YAML, JSON — is read directly, without a
// generic YAML decode (BenchmarkDump gives the figures beside one); only a document with
// anchors, aliases, tags or complex keys is read with a full YAML parser, that document
// alone, with the same answers. The inventory's strings share one copy of data: keeping the
// inventory keeps that copy.
func Load(data []byte, clusterDomain string) (*Inventory, error) {
	return LoadFor(data, clusterDomain, release.Release{})
}

// LoadFor is Load for Istio release r (a mesh.Release: mesh.Config.Release): it also refuses
// what r's validation refuses beyond the newest release's (see Inventory.ValidateFor), in
// r's words, each problem named as Load names the others:
//
//	items[4] (Sidecar shop/narrow): spec.egress[0].hosts[1]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~payments" in sidecar (…)
//
// Load is LoadFor for the newest release, which refuses nothing more.
func LoadFor(data []byte, clusterDomain string, r release.Release) (*Inventory, error) {
	if clusterDomain == "" {
		clusterDomain = DefaultDomain
	}
	s := kube.Read(data, readsObject)
	l := newLoader(s.Objects, clusterDomain, r)
	var errs []error
	skipped := map[string]int{}
	routing := map[string]int{} // the Sidecars, VirtualServices, DestinationRules and Gateway API objects read
	read := 0
	for i, o := range s.Objects {
		l.current = i
		problems, how := l.object(o)
		errs = append(errs, problems...)
		switch how {
		case skippedObject:
			skipped[kube.DescribeKind(o)]++
		case routingObject:
			routing[o.Kind]++
			read++
		case inventoryObject:
			read++
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if read == sum(maps.Values(routing)) {
		for kind, n := range routing {
			skipped[kind] = n
		}
		return nil, &FieldError{Detail: fmt.Sprintf("no inventory: %s; expected Namespace, ServiceEntry and Service objects (%s)", s.Found(skipped), DumpCommand), Err: ErrNoInventory}
	}
	return &l.inv, nil
}

// newLoader returns a loader of the objects of a stream, for release r.
func newLoader(objects []kube.Object, domain string, r release.Release) *inventoryLoader {
	nss, svcs, named := 0, 0, 0
	for _, o := range objects {
		switch o.Kind {
		case "Namespace":
			nss++
		case "ServiceEntry", "Service":
			svcs++
			named++
		case "Sidecar", "VirtualService", "DestinationRule":
			named++
		}
	}
	return &inventoryLoader{
		inv:     Inventory{Namespaces: make(map[string]map[string]string, nss), Services: make([]Service, 0, svcs), Domain: domain},
		domain:  domain,
		release: r,
		seen:    map[string]kube.Object{},
		named:   make(map[namedKey]int, named),
		objects: objects,
	}
}

// How the loader took an object: not read (a problem in the stream or in its kind),
// skipped (a kind Load does not read), read into the inventory, or read as one of the
// objects that route (Sidecar, VirtualService, DestinationRule, the Gateway API's).
const (
	unreadObject = iota
	skippedObject
	inventoryObject
	routingObject
)

// object reads o into the inventory, and returns its problems, each naming the object.
func (l *inventoryLoader) object(o kube.Object) (errs []error, how int) {
	if o.Err != nil {
		return []error{o.Err}, unreadObject
	}
	if err := kube.CheckKind(o, readKinds); err != nil && !slices.Contains(otherGatewayAPIKinds, o.Kind) {
		return []error{err}, unreadObject
	}
	var problems []error
	how = routingObject
	switch {
	case o.Kind == "Namespace":
		problems, how = l.namespace(o), inventoryObject
	case o.Kind == "ServiceEntry":
		problems, how = l.serviceEntry(o), inventoryObject
	case o.Kind == "Service" && isCoreV1(o):
		problems, how = l.service(o), inventoryObject
	case o.Kind == "Sidecar" && isIstioNetworking(o):
		if problems = l.sidecar(o); len(problems) == 0 {
			_, problems = sidecarRefusal(objectSpec, &l.inv.Sidecars[len(l.inv.Sidecars)-1], l.release)
		}
	case o.Kind == "VirtualService" && isIstioNetworking(o):
		problems = l.virtualService(o)
	case o.Kind == "DestinationRule" && isIstioNetworking(o):
		problems = l.destinationRule(o)
	case gatewayAPIVersions[o.Kind] != nil && isGatewayAPI(o):
		problems = l.gatewayAPIObject(o)
	default:
		return nil, skippedObject
	}
	problems = slices.Concat(apiVersionProblems(o), l.schema.problems(o), problems)
	if len(problems) > 0 {
		where := objectWhere(o) // once per object: O(n) for an item of Lists nested n deep
		for _, p := range problems {
			errs = append(errs, fielderr.In(where, p))
		}
	}
	return errs, how
}

// readKinds are the kinds Load reads: a near miss of one is an error.
var readKinds = []string{"Namespace", "ServiceEntry", "Service", "Sidecar", "VirtualService", "DestinationRule",
	"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "ReferenceGrant", "Gateway"}

// sum adds up counts.
func sum(counts iter.Seq[int]) int {
	n := 0
	for c := range counts {
		n += c
	}
	return n
}

// DumpCommand is the command that dumps every kind Load reads, for a whole cluster. A
// cluster that does not serve one of these kinds (the Gateway API's CRDs not installed, or
// TCPRoute and TLSRoute, of its experimental channel, not) makes kubectl fail: leave that
// kind out of the list (kubectl api-resources lists the kinds a cluster serves).
// gateways.gateway.networking.k8s.io names the Gateway API's Gateway, not Istio's.
const DumpCommand = "kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules," +
	"httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml"

// readsObject reports whether Load reads o (a problem in any other object is not
// the inventory's). A Service, Sidecar, VirtualService or DestinationRule whose apiVersion,
// which decides, was given twice counts as read.
func readsObject(o kube.Object, twice func(path ...string) bool) bool {
	switch o.Kind {
	case "Namespace", "ServiceEntry":
		return true
	case "Service":
		return isCoreV1(o) || twice("apiVersion")
	case "Sidecar", "VirtualService", "DestinationRule":
		return isIstioNetworking(o) || twice("apiVersion")
	}
	if gatewayAPIVersions[o.Kind] != nil {
		return isGatewayAPI(o) || twice("apiVersion")
	}
	return false
}

// apiVersionProblems reports an apiVersion that is not a string: it decides how a Service,
// a Sidecar, a VirtualService or a DestinationRule is read, and is not to be taken for none.
func apiVersionProblems(o kube.Object) []error {
	var d strict.Decoder
	d.String(o.Fields.Value("apiVersion"), "apiVersion")
	return d.Errs()
}

// objectWhere names an object for its problems: "items[3] (ServiceEntry shop/api)", or
// "ServiceEntry shop/api" for the only document of a stream.
func objectWhere(o kube.Object) string {
	w := o.Where()
	if w == "" {
		return o.ID()
	}
	return w + " (" + o.ID() + ")"
}

// isCoreV1 reports whether o is of the core API group (a Service of another group, such as
// Knative's, is another kind of object).
func isCoreV1(o kube.Object) bool {
	v, _ := o.Fields.Value("apiVersion").(string)
	return v == "" || v == "v1"
}

type inventoryLoader struct {
	schema  schemaWalker
	inv     Inventory
	domain  string
	release release.Release        // whose validation refuses more than the newest release's
	seen    map[string]kube.Object // namespace name -> its Namespace object
	// named gives, for each kind, namespace and name read, the index of its object in
	// objects, the stream's; current is the index of the object being read.
	named   map[namedKey]int
	objects []kube.Object
	current int
}

type namedKey struct{ kind, namespace, name string }

// objectMeta is the metadata an inventory reads.
type objectMeta struct {
	name, namespace   string
	labels            map[string]string
	annots            strict.Fields // read for a key or two: no map
	creationTimestamp string
}

func readMeta(d *strict.Decoder, o kube.Object) objectMeta {
	var m objectMeta
	mo, ok := d.Object(o.Fields.Value("metadata"), "metadata")
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

// named refuses metadata without a namespace or a name: ok is false then.
func (m *objectMeta) named(d *strict.Decoder) bool {
	if m.namespace == "" {
		d.Errorf("metadata.namespace", "must be set (dump with -A so that objects carry their namespace)")
	}
	if m.name == "" {
		d.Errorf("metadata.name", "must be set")
	}
	return m.namespace != "" && m.name != ""
}

// checkNames refuses a namespace that is not a DNS label and a name that is not a DNS
// subdomain, as Kubernetes does.
func (m *objectMeta) checkNames(d *strict.Decoder) {
	if r := names.Label(m.namespace); r != "" {
		d.Errorf("metadata.namespace", "%q %s", m.namespace, r)
	}
	if r := names.Subdomain(m.name); r != "" {
		d.Errorf("metadata.name", "%q %s", m.name, r)
	}
}

// created reads metadata.creationTimestamp, an RFC 3339 time; it is zero when absent or
// refused.
func (m *objectMeta) created(d *strict.Decoder) time.Time {
	if m.creationTimestamp == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, m.creationTimestamp)
	if err != nil {
		d.Errorf("metadata.creationTimestamp", "%q is not an RFC 3339 time", m.creationTimestamp)
	}
	return t
}

// namespace reads a Namespace: its name and labels.
func (l *inventoryLoader) namespace(o kube.Object) []error {
	var d strict.Decoder
	m := readMeta(&d, o)
	if m.name == "" {
		d.Errorf("metadata.name", "must not be empty")
	} else if r := names.Label(m.name); r != "" {
		d.Errorf("metadata.name", "%q %s", m.name, r)
	}
	if err := d.Err(); err != nil {
		return fielderr.Split(err)
	}
	if first, dup := l.seen[m.name]; dup {
		return []error{&FieldError{Field: "metadata.name", Value: m.name, Detail: fmt.Sprintf("a second Namespace %s (the first is %s); which labels apply would depend on document order", m.name, cmp.Or(first.Where(), "the object")), Err: ErrDuplicate}}
	}
	l.seen[m.name] = o
	ls := m.labels // StringMap's, ours to keep
	if ls == nil {
		ls = make(map[string]string, 1)
	}
	if _, ok := ls[visibility.NamespaceNameLabel]; !ok {
		ls[visibility.NamespaceNameLabel] = m.name
	}
	l.inv.Namespaces[m.name] = ls
	return nil
}

// serviceEntry reads a ServiceEntry: hosts, addresses, exportTo, resolution and the
// addresses Istio allocated, each checked as Validate checks it (see check.go).
func (l *inventoryLoader) serviceEntry(o kube.Object) []error {
	var d strict.Decoder
	s, spec, ok := l.common(&d, o, ServiceEntry)
	if ok {
		s.Hosts = specStrings(&d, spec, "hosts")
		add(&d, checkHosts(nil, objectSpec, s.Hosts))
		for i, a := range specStrings(&d, spec, "addresses") {
			p, err := hosts.ParseAddress(a)
			if err != nil {
				d.Fail(strict.Index("spec.addresses", i), a, "%q is not an IP or CIDR", a)
				continue
			}
			s.Addresses = append(s.Addresses, p)
		}
		s.ExportTo = specStrings(&d, spec, "exportTo")
		s.checkExportTo(&d, func() fielderr.Path { return objectSpec.Child("exportTo") })
		if v := spec.Value("resolution"); v != nil {
			s.Resolution = Resolution(d.String(v, "spec.resolution"))
			add(&d, checkResolution(nil, objectSpec, s.Resolution))
		}
		s.AutoAddresses = statusAddresses(&d, o, s)
		s.Ports, s.Protocols = specPorts(&d, spec, "number", ServiceEntry)
		if v := spec.Value("workloadSelector"); v != nil {
			s.Selector = workloadLabels(&d, v, "spec.workloadSelector")
		}
	}
	return l.finish(&d, o, s)
}

// add records problems found by the checks of check.go.
func add(d *strict.Decoder, problems []*FieldError) {
	for _, p := range problems {
		d.Add(p)
	}
}

// statusAddresses reads the addresses Istio allocated, status.addresses[] {value, host}, by
// host as written; each value must be an IP and each host one of the entry's (compared as
// hosts compare: a spelling differing in case or by a trailing dot is kept, and
// Service.AddressesFor gives it to no host, as Istio does).
func statusAddresses(d *strict.Decoder, o kube.Object, s *loadedService) map[string][]netip.Prefix {
	st, ok := d.Object(o.Fields.Value("status"), "status")
	if !ok {
		return nil
	}
	v, p, ok := st.Get("addresses")
	if !ok {
		return nil
	}
	hosts := newHostSet(s.Hosts)
	var out map[string][]netip.Prefix
	for i, item := range d.List(v, p) {
		at := strict.Index(p, i)
		io, ok := d.Object(item, at)
		if !ok {
			continue
		}
		var value, host string
		io.String(&value, "value")
		io.String(&host, "host")
		if value == "" {
			d.Errorf(at+".value", "must be set")
			continue
		}
		ip, ok := parseIP(d, at+".value", value)
		switch {
		case !ok:
		case host == "":
			d.Errorf(at+".host", "must be set")
		case !hosts.has(host):
			d.Add(notAHost(fielderr.Root(fielderr.Object).Child("status").Child("addresses").Index(i).Child("host"), host))
		default:
			if out == nil {
				out = map[string][]netip.Prefix{}
			}
			out[host] = append(out[host], ip)
		}
	}
	return out
}

// parseIP reads the IP at field, as a /32 or /128 prefix.
func parseIP(d *strict.Decoder, field, s string) (netip.Prefix, bool) {
	p, err := hosts.ParseAddress(s)
	if err != nil || !p.IsSingleIP() {
		d.Fail(field, s, "%q is not an IP", s)
		return netip.Prefix{}, false
	}
	return p, true
}

// service reads a Kubernetes Service: its host, cluster IPs and exportTo annotation.
func (l *inventoryLoader) service(o kube.Object) []error {
	var d strict.Decoder
	s, spec, ok := l.common(&d, o, KubernetesService)
	if ok {
		s.Hosts = []string{ServiceHost(s.Name, s.Namespace, l.domain)}
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
			at := field
			if field == "spec.clusterIPs" {
				at = strict.Index(field, i)
			}
			if p, ok := parseIP(&d, at, ip); ok {
				s.Addresses = append(s.Addresses, p)
			}
		}
		if v, ok := s.annots.Get(exportToAnnotation); ok {
			v := v.(string) // StringFields keeps only strings
			for _, e := range strings.Split(v, ",") {
				s.ExportTo = append(s.ExportTo, strings.TrimSpace(e))
			}
			s.checkExportTo(&d, func() fielderr.Path {
				return fielderr.Root(fielderr.Object).Child("metadata").Child("annotations").Key(exportToAnnotation)
			})
		}
		s.Ports, s.Protocols = specPorts(&d, spec, "port", KubernetesService)
		if v := spec.Value("selector"); v != nil {
			s.Selector = d.StringMap(v, "spec.selector")
		}
	}
	return l.finish(&d, o, s)
}

// loadedService is a service being read, with the metadata the kinds share.
type loadedService struct {
	Service
	annots strict.Fields
}

// common reads what ServiceEntries and Services share: namespace, name, creation time, and
// the spec object. ok is false when the object is too broken to read further.
func (l *inventoryLoader) common(d *strict.Decoder, o kube.Object, kind Kind) (*loadedService, strict.Fields, bool) {
	m := readMeta(d, o)
	s := &loadedService{Service: Service{Kind: kind, Namespace: m.namespace, Name: m.name, Labels: m.labels}, annots: m.annots}
	if !m.named(d) {
		return s, nil, false
	}
	m.checkNames(d)
	s.CreationTime = m.created(d)
	spec := strict.Fields{}
	if x := o.Fields.Value("spec"); x != nil {
		so, isObj := x.(strict.Fields)
		if !isObj {
			d.Errorf("spec", "must be an object, got %s", strict.Describe(x))
			return s, nil, false
		}
		spec = so
	}
	return s, spec, true
}

func (l *inventoryLoader) finish(d *strict.Decoder, o kube.Object, s *loadedService) []error {
	if err := d.Err(); err != nil {
		return fielderr.Split(err)
	}
	if err := l.firstOfItsName(o.Kind, s.Namespace, s.Name); err != nil {
		return []error{err}
	}
	l.inv.Services = append(l.inv.Services, s.Service)
	return nil
}

// specStrings reads spec.<field> as a list of strings.
func specStrings(d *strict.Decoder, spec strict.Fields, field string) []string {
	return d.Strings(spec.Value(field), "spec."+field)
}

// checkExportTo records the problems of s's exportTo, the list at the path at gives. A
// namespace that is not a label has its own problem already (metadata.namespace).
func (s *loadedService) checkExportTo(d *strict.Decoder, at func() fielderr.Path) {
	if names.Label(s.Namespace) == "" {
		add(d, exportto.Problems(at, s.Namespace, s.ExportTo, exportToRule(s.Kind)))
	}
}

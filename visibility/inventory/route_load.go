package inventory

import (
	"math"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// gatewayAPIVersions are the versions of gateway.networking.k8s.io in which clusters serve
// each kind Load reads: v1.6.0's CRDs (v1, and v1beta1 for HTTPRoute, ReferenceGrant and
// Gateway; v1alpha2 for TCPRoute and TLSRoute, v1alpha3 for TLSRoute, on the experimental
// channel) and the versions earlier releases served that v1.6.0 still declares (GRPCRoute
// and ReferenceGrant v1alpha2). Every version of a kind has the same fields.
var gatewayAPIVersions = map[string][]string{
	"HTTPRoute":      {"v1", "v1beta1"},
	"GRPCRoute":      {"v1", "v1alpha2"},
	"TCPRoute":       {"v1", "v1alpha2"},
	"TLSRoute":       {"v1", "v1alpha3", "v1alpha2"},
	"ReferenceGrant": {"v1", "v1beta1", "v1alpha2"},
	"Gateway":        {"v1", "v1beta1"},
}

// otherGatewayAPIKinds are kinds of the Gateway API that Load does not read and that are
// near misses of one it reads (UDPRoute is two edits from TCPRoute): they are skipped, not
// taken for misspellings.
var otherGatewayAPIKinds = []string{"UDPRoute"}

// isGatewayAPI reports whether o belongs to gateway.networking.k8s.io. A route or a
// ReferenceGrant without an apiVersion (as a hand-written object may be) counts; a Gateway
// must name the group, for Istio has a Gateway kind of its own.
func isGatewayAPI(o kube.Object) bool {
	v, _ := o.Fields.Value("apiVersion").(string)
	if v == "" {
		return o.Kind != "Gateway"
	}
	return strings.HasPrefix(v, GatewayAPIGroup+"/")
}

// checkGatewayAPIVersion refuses an apiVersion of gateway.networking.k8s.io in which no
// cluster serves o's kind.
func checkGatewayAPIVersion(d *strict.Decoder, o kube.Object) {
	v, _ := o.Fields.Value("apiVersion").(string)
	if v == "" {
		return
	}
	versions := gatewayAPIVersions[o.Kind]
	if !slices.Contains(versions, strings.TrimPrefix(v, GatewayAPIGroup+"/")) {
		d.Fail("apiVersion", v, "%q is not a version clusters serve %s in (%s/%s)", v, o.Kind, GatewayAPIGroup, strings.Join(versions, ", "+GatewayAPIGroup+"/"))
	}
}

// gatewayAPIObject reads a route, a ReferenceGrant or a Gateway of gateway.networking.k8s.io,
// refusing what the API server's validation refuses of it (see route_check.go).
func (l *inventoryLoader) gatewayAPIObject(o kube.Object) []error {
	var d strict.Decoder
	checkGatewayAPIVersion(&d, o)
	m := readMeta(&d, o)
	named := m.named(&d)
	if named {
		m.checkNames(&d)
	}
	created := m.created(&d)
	spec, hasSpec := d.Object(o.Fields.Value("spec"), "spec")
	if !hasSpec && o.Kind != "ReferenceGrant" && o.Fields.Value("spec") == nil {
		d.Errorf("spec", "Required value")
	}
	var add func()
	var check func() []*FieldError
	switch o.Kind {
	case "ReferenceGrant":
		g := readReferenceGrant(&d, spec)
		g.Namespace, g.Name, g.CreationTime = m.namespace, m.name, created
		check = func() []*FieldError { return checkReferenceGrant(nil, &g, objectSpec) }
		add = func() { l.inv.ReferenceGrants = append(l.inv.ReferenceGrants, g) }
	case "Gateway":
		g := readGateway(&d, spec)
		g.Namespace, g.Name, g.CreationTime = m.namespace, m.name, created
		check = func() []*FieldError { return checkGateway(nil, &g, objectSpec) }
		add = func() { l.inv.Gateways = append(l.inv.Gateways, g) }
	default:
		r := readRoute(&d, RouteKind(o.Kind), spec)
		r.Namespace, r.Name, r.CreationTime = m.namespace, m.name, created
		check = func() []*FieldError { return checkRoute(nil, &r, objectSpec) }
		add = func() { l.inv.Routes = append(l.inv.Routes, r) }
	}
	errs := d.Errs()
	if len(errs) == 0 && named {
		for _, p := range check() {
			errs = append(errs, p)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if err := l.firstOfItsName(o.Kind, m.namespace, m.name); err != nil {
		return []error{err}
	}
	add()
	return nil
}

// readRoute reads a route's spec, writing out the defaults the API server writes.
func readRoute(d *strict.Decoder, kind RouteKind, spec strict.Object) Route {
	r := Route{Kind: kind, ParentRefs: readObjects(d, spec, "parentRefs", readParentRef)}
	if kind != TCPRouteKind {
		if v, p, ok := spec.Get("hostnames"); ok {
			r.Hostnames = d.Strings(v, p)
		}
	}
	v, p, ok := spec.Get("rules")
	switch {
	case !ok && kind == HTTPRouteKind:
		r.Rules = []RouteRule{{Matches: []RouteMatch{defaultMatch()}}}
	case !ok && (kind == TCPRouteKind || kind == TLSRouteKind) && spec.Path() != "":
		d.Errorf("spec.rules", "Required value")
	}
	for i, item := range d.List(v, p) {
		if o, ok := objectItem(d, item, strict.Index(p, i)); ok {
			r.Rules = append(r.Rules, readRule(d, kind, o))
		}
	}
	return r
}

// objectItem reads a list item that must be an object (the API server refuses a null one).
func objectItem(d *strict.Decoder, item any, path string) (strict.Object, bool) {
	if item == nil {
		d.Errorf(path, "must be an object, got null")
		return strict.Object{}, false
	}
	return d.Object(item, path)
}

// readObjects reads the list of objects at o's field key, each with read; nil when absent.
func readObjects[T any](d *strict.Decoder, o strict.Object, key string, read func(*strict.Decoder, strict.Object) T) []T {
	v, p, ok := o.Get(key)
	if !ok {
		return nil
	}
	var out []T
	for i, item := range d.List(v, p) {
		if io, ok := objectItem(d, item, strict.Index(p, i)); ok {
			out = append(out, read(d, io))
		}
	}
	return out
}

// defaultMatch is the match the API server writes for an HTTPRoute rule without matches, and
// an HTTPRoute match's path when it has none.
func defaultMatch() RouteMatch {
	return RouteMatch{Path: &PathMatch{Type: MatchPathPrefix, Value: "/"}}
}

func readParentRef(d *strict.Decoder, o strict.Object) ParentRef {
	pr := ParentRef{Group: GatewayAPIGroup, Kind: "Gateway"}
	pr.Port = readReference(d, o, &pr.Group, &pr.Kind, &pr.Namespace, &pr.Name)
	o.String(&pr.SectionName, "sectionName")
	return pr
}

// readReference reads what parentRefs and backendRefs share: group, kind, namespace and name
// (each kept as given when absent) and the port.
func readReference(d *strict.Decoder, o strict.Object, group, kind, namespace, name *string) uint32 {
	o.String(group, "group")
	o.String(kind, "kind")
	o.String(namespace, "namespace")
	o.String(name, "name")
	return readPort(d, o)
}

// readPort reads an object's port (0 when absent); a port given as 0 is refused as the API
// server refuses it, a larger one is kept for the checks to refuse.
func readPort(d *strict.Decoder, o strict.Object) uint32 {
	v, p, ok := o.Get("port")
	if !ok {
		return 0
	}
	n, ok := d.Int(v, p, math.MinInt32, math.MaxInt32)
	switch {
	case !ok:
	case n < 1:
		d.Fail(p, n, "Invalid value: %d: %s in body should be greater than or equal to 1", n, p)
	default:
		return uint32(n)
	}
	return 0
}

func readRule(d *strict.Decoder, kind RouteKind, o strict.Object) RouteRule {
	var rule RouteRule
	o.String(&rule.Name, "name")
	rule.Matches = readObjects(d, o, "matches", func(d *strict.Decoder, mo strict.Object) RouteMatch { return readMatch(d, kind, mo) })
	if _, _, ok := o.Get("matches"); !ok && kind == HTTPRouteKind {
		rule.Matches = []RouteMatch{defaultMatch()}
	}
	rule.Filters = readFilters(d, kind, o)
	rule.BackendRefs = readObjects(d, o, "backendRefs", func(d *strict.Decoder, bo strict.Object) BackendRef {
		b := readBackendRef(d, bo)
		b.Weight = 1
		int32Field(d, bo, "weight", &b.Weight)
		b.Filters = readFilters(d, kind, bo)
		return b
	})
	return rule
}

func readMatch(d *strict.Decoder, kind RouteKind, o strict.Object) RouteMatch {
	var m RouteMatch
	m.Headers = readObjects(d, o, "headers", readValueMatch)
	if kind == GRPCRouteKind {
		if v, p, ok := o.Get("method"); ok {
			if mo, ok := d.Object(v, p); ok {
				g := GRPCMethodMatch{Type: MatchExact}
				mo.String(&g.Type, "type")
				mo.String(&g.Service, "service")
				mo.String(&g.Method, "method")
				m.GRPCMethod = &g
			}
		}
		return m
	}
	m.QueryParams = readObjects(d, o, "queryParams", readValueMatch)
	o.String(&m.Method, "method")
	m.Path = &PathMatch{Type: MatchPathPrefix, Value: "/"}
	if v, p, ok := o.Get("path"); ok {
		if po, ok := d.Object(v, p); ok {
			po.String(&m.Path.Type, "type")
			po.String(&m.Path.Value, "value")
		}
	}
	return m
}

// readValueMatch reads a header or query parameter match; a type not given is Exact.
func readValueMatch(_ *strict.Decoder, o strict.Object) ValueMatch {
	vm := ValueMatch{Type: MatchExact}
	o.String(&vm.Type, "type")
	o.String(&vm.Name, "name")
	o.String(&vm.Value, "value")
	return vm
}

// readBackendRef reads a backendRef's object reference: a Service's unless it says otherwise.
func readBackendRef(d *strict.Decoder, o strict.Object) BackendRef {
	b := BackendRef{Kind: "Service"}
	b.Port = readReference(d, o, &b.Group, &b.Kind, &b.Namespace, &b.Name)
	return b
}

// readFilters reads the filters of a rule or a backendRef of a route of kind.
func readFilters(d *strict.Decoder, kind RouteKind, o strict.Object) []RouteFilter {
	return readObjects(d, o, "filters", func(d *strict.Decoder, fo strict.Object) RouteFilter {
		var f RouteFilter
		fo.String(&f.Type, "type")
		checkFilterField(d, fo, f.Type, "extensionRef")
		if kind == HTTPRouteKind {
			checkFilterField(d, fo, f.Type, "cors")
			checkFilterField(d, fo, f.Type, "externalAuth")
		}
		if v, p, ok := fo.Get("requestHeaderModifier"); ok {
			f.RequestHeaderModifier = readHeaderModifier(d, v, p)
		}
		if v, p, ok := fo.Get("responseHeaderModifier"); ok {
			f.ResponseHeaderModifier = readHeaderModifier(d, v, p)
		}
		if v, p, ok := fo.Get("requestMirror"); ok {
			f.RequestMirror = readMirror(d, v, p)
		}
		if v, p, ok := fo.Get("requestRedirect"); ok {
			if ro, ok := d.Object(v, p); ok {
				rd := RedirectFilter{StatusCode: 302, Path: readPathModifier(d, ro)}
				ro.String(&rd.Scheme, "scheme")
				ro.String(&rd.Hostname, "hostname")
				rd.Port = readPort(d, ro)
				int32Field(d, ro, "statusCode", &rd.StatusCode)
				f.RequestRedirect = &rd
			}
		}
		if v, p, ok := fo.Get("urlRewrite"); ok {
			if ro, ok := d.Object(v, p); ok {
				rw := URLRewriteFilter{Path: readPathModifier(d, ro)}
				ro.String(&rw.Hostname, "hostname")
				f.URLRewrite = &rw
			}
		}
		return f
	})
}

// checkFilterField refuses, in the API server's words, a filter whose settings field key
// (one the inventory does not keep) is given for another type or missing for its own.
func checkFilterField(d *strict.Decoder, fo strict.Object, typ, key string) {
	want := strings.ToUpper(key[:1]) + key[1:]
	if key == "cors" {
		want = FilterCORS
	}
	_, _, has := fo.Get(key)
	switch {
	case has && typ != want:
		d.Fail(fo.Path(), "object", "Invalid value: \"object\": filter.%s must be nil if the filter.type is not %s", key, want)
	case !has && typ == want:
		d.Fail(fo.Path(), "object", "Invalid value: \"object\": filter.%s must be specified for %s filter.type", key, want)
	}
}

func readHeaderModifier(d *strict.Decoder, v any, p string) *HeaderModifier {
	o, ok := d.Object(v, p)
	if !ok {
		return nil
	}
	h := &HeaderModifier{Set: readObjects(d, o, "set", readHeader), Add: readObjects(d, o, "add", readHeader)}
	if v, p, ok := o.Get("remove"); ok {
		h.Remove = d.Strings(v, p)
	}
	return h
}

func readHeader(_ *strict.Decoder, o strict.Object) Header {
	var h Header
	o.String(&h.Name, "name")
	o.String(&h.Value, "value")
	return h
}

func readMirror(d *strict.Decoder, v any, p string) *MirrorFilter {
	o, ok := d.Object(v, p)
	if !ok {
		return nil
	}
	var m MirrorFilter
	if v, p, ok := o.Get("backendRef"); ok {
		if bo, ok := d.Object(v, p); ok {
			m.BackendRef = readBackendRef(d, bo)
		}
	} else {
		d.Errorf(strict.Child(p, "backendRef"), "Required value")
	}
	if v, p, ok := o.Get("percent"); ok {
		if n, ok := d.Int(v, p, math.MinInt32, math.MaxInt32); ok {
			pc := int32(n)
			m.Percent = &pc
		}
	}
	if v, p, ok := o.Get("fraction"); ok {
		if fo, ok := d.Object(v, p); ok {
			f := Fraction{Denominator: 100}
			int32Field(d, fo, "numerator", &f.Numerator)
			int32Field(d, fo, "denominator", &f.Denominator)
			m.Fraction = &f
		}
	}
	return &m
}

func readPathModifier(d *strict.Decoder, o strict.Object) *PathModifier {
	v, p, ok := o.Get("path")
	if !ok {
		return nil
	}
	po, ok := d.Object(v, p)
	if !ok {
		return nil
	}
	var pm PathModifier
	po.String(&pm.Type, "type")
	po.String(&pm.ReplaceFullPath, "replaceFullPath")
	po.String(&pm.ReplacePrefixMatch, "replacePrefixMatch")
	return &pm
}

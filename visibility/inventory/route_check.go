package inventory

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// The checks of what a Gateway API route, ReferenceGrant and Gateway carry: the rules of the
// API server's validation of their CRDs (sigs.k8s.io/gateway-api v1.6.0: the OpenAPI
// schema's enums, patterns and bounds, and the CEL rules) that concern what istiod reads,
// each problem in the API server's words. Load runs them on each object it reads, naming
// fields as the object spells them ("spec.rules[0].backendRefs[1]"); Validate on each one
// built in Go, naming fields as the Go value does ("Rules[0].BackendRefs[1]"). doc.go lists
// the rules, and those not checked.

// gwPaths spells the fields of a Gateway API object for a problem.
type gwPaths struct {
	load bool // as the object spells them; else as the Go value does
}

// at spells the field the object spells path.
func (p gwPaths) at(path string) string {
	if p.load {
		return path
	}
	return goFieldPath(path)
}

// gwField spells the fields of one object of a Gateway API object: the object itself for "",
// a field of it for ".name".
type gwField func(suffix string) string

// under spells the fields of the object the object spells path.
func (p gwPaths) under(path string) gwField {
	return func(suffix string) string { return p.at(path + suffix) }
}

// goFieldRenames are the fields whose Go name is not their JSON name capitalized.
var goFieldRenames = map[string]string{"urlRewrite": "URLRewrite", "gatewayClassName": "ClassName", "namespaces": ""}

// goFieldPath spells a field's path as the Go value does: without "spec", each field's name
// capitalized ("spec.rules[0].urlRewrite" is "Rules[0].URLRewrite"); a listener's
// allowedRoutes.namespaces.from is AllowedRoutes.From.
func goFieldPath(path string) string {
	var out []string
	for _, seg := range strings.Split(strings.TrimPrefix(path, "spec."), ".") {
		name, index, _ := strings.Cut(seg, "[")
		if index != "" {
			index = "[" + index
		}
		if r, ok := goFieldRenames[name]; ok {
			name = r
		} else if name != "" {
			name = strings.ToUpper(name[:1]) + name[1:]
		}
		if name+index != "" {
			out = append(out, name+index)
		}
	}
	return strings.Join(out, ".")
}

// The API server's kinds of problem, in its words.
func gwRequired(path string) *FieldError {
	return kube.FromField(field.Required(kube.PathOf(path), ""))
}

func gwUnsupported(path, value string, valid ...string) *FieldError {
	return kube.FromField(field.NotSupported(kube.PathOf(path), value, valid))
}

// gwRule is a CEL rule's problem: the API server names the object or list it is about.
func gwRule(path, what, message string) *FieldError {
	return kube.FromField(field.Invalid(kube.PathOf(path), what, message))
}

func gwPattern(path, value, pattern string) *FieldError {
	return kube.FromField(field.Invalid(kube.PathOf(path), value, fmt.Sprintf("%s in body should match '%s'", path, pattern)))
}

func gwAtMost(path string, value, max int64) *FieldError {
	return kube.FromField(field.Invalid(kube.PathOf(path), value, fmt.Sprintf("%s in body should be less than or equal to %d", path, max)))
}

func gwAtLeast(path string, value, min int64) *FieldError {
	return kube.FromField(field.Invalid(kube.PathOf(path), value, fmt.Sprintf("%s in body should be greater than or equal to %d", path, min)))
}

// The patterns of the CRDs' schemas that Load checks.
const (
	gwNamespacePattern = `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	gwHostnamePattern  = `^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	gwPathChars        = `^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$`
	gwGRPCService      = `^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$`
	gwGRPCMethod       = `^[A-Za-z_][A-Za-z_0-9]*$`
)

var (
	gwNamespaceRE   = regexp.MustCompile(gwNamespacePattern)
	gwHostnameRE    = regexp.MustCompile(gwHostnamePattern)
	gwPathCharsRE   = regexp.MustCompile(gwPathChars)
	gwGRPCServiceRE = regexp.MustCompile(gwGRPCService)
	gwGRPCMethodRE  = regexp.MustCompile(gwGRPCMethod)
)

// The enums of the CRDs' schemas, in the order the API server lists them.
var (
	gwMatchTypes      = []string{MatchExact, MatchRegularExpression}
	gwPathTypes       = []string{MatchExact, MatchPathPrefix, MatchRegularExpression}
	gwMethods         = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
	gwHTTPFilterTypes = []string{FilterRequestHeaderModifier, FilterResponseHeaderModifier, FilterRequestMirror,
		FilterRequestRedirect, FilterURLRewrite, FilterExtensionRef, FilterCORS, FilterExternalAuth}
	gwGRPCFilterTypes  = []string{FilterResponseHeaderModifier, FilterRequestHeaderModifier, FilterRequestMirror, FilterExtensionRef}
	gwPathModifiers    = []string{ReplaceFullPath, ReplacePrefixMatch}
	gwSchemes          = []string{"http", "https"}
	gwRedirectCodes    = []string{"301", "302", "303", "307", "308"}
	gwAllowedFrom      = []string{"All", "Selector", "Same"}
	gwRouteKinds       = []string{string(HTTPRouteKind), string(GRPCRouteKind), string(TCPRouteKind), string(TLSRouteKind)}
	gwParentRefsUnique = "sectionName or port must be unique when parentRefs includes 2 or more references to the same parent"
	gwParentRefsGiven  = "sectionName or port must be specified when parentRefs includes 2 or more references to the same parent"
)

// checkRoute checks a route as the API server's validation does (for a route built in Go, its
// kind, namespace and name too).
func checkRoute(errs []*FieldError, r *Route, p gwPaths) []*FieldError {
	if !p.load {
		errs = checkNamespaceName(errs, r.Namespace, r.Name)
		if !slices.Contains(gwRouteKinds, string(r.Kind)) {
			errs = append(errs, gwUnsupported("Kind", string(r.Kind), gwRouteKinds...))
		}
	}
	errs = checkParentRefs(errs, r.ParentRefs, p)
	for i, h := range r.Hostnames {
		errs = checkHostname(errs, p.at(strict.Index("spec.hostnames", i)), h)
	}
	if len(r.Rules) == 0 && r.Kind != GRPCRouteKind {
		at := p.at("spec.rules")
		errs = append(errs, kube.FromField(field.Invalid(kube.PathOf(at), 0, at+" in body should have at least 1 items")))
	}
	for i := range r.Rules {
		errs = checkRule(errs, r.Kind, &r.Rules[i], strict.Index("spec.rules", i), p)
	}
	return errs
}

// checkHostname checks a route's or a listener's hostname.
func checkHostname(errs []*FieldError, at, h string) []*FieldError {
	if len(h) > 253 || !gwHostnameRE.MatchString(h) {
		errs = append(errs, gwPattern(at, h, gwHostnamePattern))
	}
	return errs
}

// checkParentRefs checks each parentRef, and the CEL rules on two references to one parent:
// as on the experimental channel, where such references must differ in sectionName or port
// (the standard channel's rules, which ignore port, refuse more: see doc.go).
func checkParentRefs(errs []*FieldError, refs []ParentRef, p gwPaths) []*FieldError {
	for i, pr := range refs {
		errs = checkReference(errs, p.under(strict.Index("spec.parentRefs", i)), pr.Name, pr.Namespace, pr.Port)
	}
	sameParent := func(a, b ParentRef) bool {
		return a.Group == b.Group && a.Kind == b.Kind && a.Name == b.Name && a.Namespace == b.Namespace
	}
	given, unique := true, true
	for _, a := range refs {
		n := 0
		for _, b := range refs {
			if !sameParent(a, b) {
				continue
			}
			if (a.SectionName == "") != (b.SectionName == "") || (a.Port == 0) != (b.Port == 0) {
				given = false
			}
			if a.SectionName == b.SectionName && a.Port == b.Port {
				n++
			}
		}
		unique = unique && n == 1
	}
	if !given {
		errs = append(errs, gwRule(p.at("spec.parentRefs"), "array", gwParentRefsGiven))
	}
	if !unique {
		errs = append(errs, gwRule(p.at("spec.parentRefs"), "array", gwParentRefsUnique))
	}
	return errs
}

// checkReference checks what parentRefs and backendRefs share: a name, a namespace that is a
// DNS label, a port of at most 65535.
func checkReference(errs []*FieldError, at gwField, name, namespace string, port uint32) []*FieldError {
	if name == "" {
		errs = append(errs, gwRequired(at(".name")))
	}
	if namespace != "" && (len(namespace) > 63 || !gwNamespaceRE.MatchString(namespace)) {
		errs = append(errs, gwPattern(at(".namespace"), namespace, gwNamespacePattern))
	}
	if port > 65535 {
		errs = append(errs, gwAtMost(at(".port"), int64(port), 65535))
	}
	return errs
}

// checkRule checks a rule at path (as the object spells it) of a route of kind k.
func checkRule(errs []*FieldError, k RouteKind, rule *RouteRule, path string, p gwPaths) []*FieldError {
	for m := range rule.Matches {
		errs = checkMatch(errs, k, &rule.Matches[m], strict.Index(path+".matches", m), p)
	}
	errs = checkFilters(errs, k, rule.Filters, path+".filters", p)
	for b := range rule.BackendRefs {
		br := &rule.BackendRefs[b]
		at := strict.Index(path+".backendRefs", b)
		errs = checkBackendRef(errs, br, p.under(at))
		if br.Weight < 0 {
			errs = append(errs, gwAtLeast(p.at(at+".weight"), int64(br.Weight), 0))
		} else if br.Weight > 1000000 {
			errs = append(errs, gwAtMost(p.at(at+".weight"), int64(br.Weight), 1000000))
		}
		errs = checkFilters(errs, k, br.Filters, at+".filters", p)
	}
	if k == HTTPRouteKind && len(rule.BackendRefs) > 0 && hasFilter(rule.Filters, FilterRequestRedirect) {
		errs = append(errs, gwRule(p.at(path), "object", "RequestRedirect filter must not be used together with backendRefs"))
	}
	return errs
}

// checkBackendRef checks a backendRef (or a mirror's) at at: the reference, and the CEL rule
// that a Service's has a port.
func checkBackendRef(errs []*FieldError, b *BackendRef, at gwField) []*FieldError {
	errs = checkReference(errs, at, b.Name, b.Namespace, b.Port)
	if b.Group == "" && b.Kind == "Service" && b.Port == 0 {
		errs = append(errs, gwRule(at(""), "object", "Must have port for Service reference"))
	}
	return errs
}

// checkMatch checks an HTTPRoute's or a GRPCRoute's match at path.
func checkMatch(errs []*FieldError, k RouteKind, m *RouteMatch, path string, p gwPaths) []*FieldError {
	for _, list := range []struct {
		key string
		ms  []ValueMatch
	}{{"headers", m.Headers}, {"queryParams", m.QueryParams}} {
		for i, vm := range list.ms {
			if !slices.Contains(gwMatchTypes, vm.Type) {
				errs = append(errs, gwUnsupported(p.at(strict.Index(path+"."+list.key, i)+".type"), vm.Type, gwMatchTypes...))
			}
		}
	}
	if m.Method != "" && !slices.Contains(gwMethods, m.Method) {
		errs = append(errs, gwUnsupported(p.at(path+".method"), m.Method, gwMethods...))
	}
	if m.Path != nil {
		errs = checkPathMatch(errs, m.Path, p.under(path+".path"))
	} else if k == HTTPRouteKind && !p.load {
		errs = append(errs, gwRequired(p.at(path+".path")))
	}
	if g := m.GRPCMethod; g != nil {
		at := p.under(path + ".method")
		if !p.load {
			at = func(suffix string) string {
				return strings.TrimSuffix(p.at(path)+".GRPCMethod."+goFieldPath(suffix), ".")
			}
		}
		errs = checkGRPCMethod(errs, g, at)
	}
	return errs
}

// pathRules are the CEL rules on an Exact or PathPrefix path's value.
var pathRules = []struct {
	bad     func(string) bool
	message string
}{
	{func(v string) bool { return !strings.HasPrefix(v, "/") }, "value must be an absolute path and start with '/'"},
	{func(v string) bool { return strings.Contains(v, "//") }, "must not contain '//'"},
	{func(v string) bool { return strings.Contains(v, "/./") }, "must not contain '/./'"},
	{func(v string) bool { return strings.Contains(v, "/../") }, "must not contain '/../'"},
	{func(v string) bool { return strings.Contains(v, "%2f") }, "must not contain '%2f'"},
	{func(v string) bool { return strings.Contains(v, "%2F") }, "must not contain '%2F'"},
	{func(v string) bool { return strings.Contains(v, "#") }, "must not contain '#'"},
	{func(v string) bool { return strings.HasSuffix(v, "/..") }, "must not end with '/..'"},
	{func(v string) bool { return strings.HasSuffix(v, "/.") }, "must not end with '/.'"},
}

// checkPathMatch checks an HTTPRoute match's path at at.
func checkPathMatch(errs []*FieldError, pm *PathMatch, at gwField) []*FieldError {
	if !slices.Contains(gwPathTypes, pm.Type) {
		return append(errs, gwUnsupported(at(".type"), pm.Type, gwPathTypes...))
	}
	if pm.Type == MatchRegularExpression {
		return errs
	}
	for _, r := range pathRules {
		if r.bad(pm.Value) {
			errs = append(errs, gwRule(at(""), "object", r.message+" when type one of ['Exact', 'PathPrefix']"))
		}
	}
	if !gwPathCharsRE.MatchString(pm.Value) {
		errs = append(errs, gwRule(at(""), "object", "must only contain valid characters (matching "+gwPathChars+") for types ['Exact', 'PathPrefix']"))
	}
	return errs
}

// checkGRPCMethod checks a GRPCRoute match's method at at.
func checkGRPCMethod(errs []*FieldError, g *GRPCMethodMatch, at gwField) []*FieldError {
	if !slices.Contains(gwMatchTypes, g.Type) {
		errs = append(errs, gwUnsupported(at(".type"), g.Type, gwMatchTypes...))
	}
	if g.Service == "" && g.Method == "" {
		errs = append(errs, gwRule(at(""), "object", "One or both of 'service' or 'method' must be specified"))
	}
	if g.Type == MatchExact && g.Service != "" && !gwGRPCServiceRE.MatchString(g.Service) {
		errs = append(errs, gwRule(at(""), "object", "service must only contain valid characters (matching "+gwGRPCService+")"))
	}
	if g.Type == MatchExact && g.Method != "" && !gwGRPCMethodRE.MatchString(g.Method) {
		errs = append(errs, gwRule(at(""), "object", "method must only contain valid characters (matching "+gwGRPCMethod+")"))
	}
	return errs
}

// checkFilters checks the filters at path of a rule or a backendRef of a route of kind k.
func checkFilters(errs []*FieldError, k RouteKind, fs []RouteFilter, path string, p gwPaths) []*FieldError {
	types := gwHTTPFilterTypes
	if k == GRPCRouteKind {
		types = gwGRPCFilterTypes
	}
	count := map[string]int{}
	for i := range fs {
		f := &fs[i]
		at := strict.Index(path, i)
		count[f.Type]++
		if !slices.Contains(types, f.Type) {
			errs = append(errs, gwUnsupported(p.at(at+".type"), f.Type, types...))
		}
		errs = checkFilterSettings(errs, f, p.at(at))
		if m := f.RequestMirror; m != nil {
			errs = checkBackendRef(errs, &m.BackendRef, p.under(at+".requestMirror.backendRef"))
			if m.Percent != nil && m.Fraction != nil {
				errs = append(errs, gwRule(p.at(at+".requestMirror"), "object", "Only one of percent or fraction may be specified in HTTPRequestMirrorFilter"))
			}
			if fr := m.Fraction; fr != nil && fr.Numerator > fr.Denominator {
				errs = append(errs, gwRule(p.at(at+".requestMirror.fraction"), "object", "numerator must be less than or equal to denominator"))
			}
		}
		if rd := f.RequestRedirect; rd != nil {
			errs = checkPathModifier(errs, rd.Path, p.under(at+".requestRedirect.path"))
			if rd.Scheme != "" && !slices.Contains(gwSchemes, rd.Scheme) {
				errs = append(errs, gwUnsupported(p.at(at+".requestRedirect.scheme"), rd.Scheme, gwSchemes...))
			}
			if !slices.Contains(gwRedirectCodes, fmt.Sprint(rd.StatusCode)) {
				errs = append(errs, kube.FromField(field.NotSupported(kube.PathOf(p.at(at+".requestRedirect.statusCode")), rd.StatusCode, gwRedirectCodes)))
			}
			if rd.Port > 65535 {
				errs = append(errs, gwAtMost(p.at(at+".requestRedirect.port"), int64(rd.Port), 65535))
			}
		}
		if rw := f.URLRewrite; rw != nil {
			errs = checkPathModifier(errs, rw.Path, p.under(at+".urlRewrite.path"))
		}
	}
	if k != HTTPRouteKind && k != GRPCRouteKind {
		return errs
	}
	for _, t := range []string{FilterCORS, FilterRequestHeaderModifier, FilterResponseHeaderModifier, FilterRequestRedirect, FilterURLRewrite} {
		if count[t] > 1 {
			errs = append(errs, gwRule(p.at(path), "array", t+" filter cannot be repeated"))
		}
	}
	if count[FilterRequestRedirect] > 0 && count[FilterURLRewrite] > 0 {
		errs = append(errs, gwRule(p.at(path), "array", "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both"))
	}
	return errs
}

// checkFilterSettings checks the CEL rules that a filter's settings field is the one of its
// type: given for its type, and none given for another.
func checkFilterSettings(errs []*FieldError, f *RouteFilter, at string) []*FieldError {
	for _, s := range []struct {
		key, typ string
		has      bool
	}{
		{"requestHeaderModifier", FilterRequestHeaderModifier, f.RequestHeaderModifier != nil},
		{"responseHeaderModifier", FilterResponseHeaderModifier, f.ResponseHeaderModifier != nil},
		{"requestMirror", FilterRequestMirror, f.RequestMirror != nil},
		{"requestRedirect", FilterRequestRedirect, f.RequestRedirect != nil},
		{"urlRewrite", FilterURLRewrite, f.URLRewrite != nil},
	} {
		switch {
		case s.has && f.Type != s.typ:
			errs = append(errs, gwRule(at, "object", fmt.Sprintf("filter.%s must be nil if the filter.type is not %s", s.key, s.typ)))
		case !s.has && f.Type == s.typ:
			errs = append(errs, gwRule(at, "object", fmt.Sprintf("filter.%s must be specified for %s filter.type", s.key, s.typ)))
		}
	}
	return errs
}

// checkPathModifier checks a redirect's or a rewrite's path at at.
func checkPathModifier(errs []*FieldError, pm *PathModifier, at gwField) []*FieldError {
	if pm == nil {
		return errs
	}
	if !slices.Contains(gwPathModifiers, pm.Type) {
		errs = append(errs, gwUnsupported(at(".type"), pm.Type, gwPathModifiers...))
	}
	for _, r := range []struct {
		typ  string
		set  bool
		name string
	}{{ReplaceFullPath, pm.ReplaceFullPath != "", "replaceFullPath"}, {ReplacePrefixMatch, pm.ReplacePrefixMatch != "", "replacePrefixMatch"}} {
		if pm.Type == r.typ && !r.set {
			errs = append(errs, gwRule(at(""), "object", fmt.Sprintf("%s must be specified when type is set to '%s'", r.name, r.typ)))
		}
		if r.set && pm.Type != r.typ {
			errs = append(errs, gwRule(at(""), "object", fmt.Sprintf("type must be '%s' when %s is set", r.typ, r.name)))
		}
	}
	return errs
}

// checkReferenceGrant checks a ReferenceGrant (for one built in Go, its namespace and name
// too): at least one from and one to, each naming its kind (and a from its namespace).
func checkReferenceGrant(errs []*FieldError, g *ReferenceGrant, p gwPaths) []*FieldError {
	if !p.load {
		errs = checkNamespaceName(errs, g.Namespace, g.Name)
	}
	for _, list := range []struct {
		key string
		n   int
	}{{"spec.from", len(g.From)}, {"spec.to", len(g.To)}} {
		if list.n == 0 {
			at := p.at(list.key)
			errs = append(errs, kube.FromField(field.Invalid(kube.PathOf(at), 0, at+" in body should have at least 1 items")))
		}
	}
	for i, f := range g.From {
		at := p.at(strict.Index("spec.from", i))
		if f.Kind == "" {
			errs = append(errs, gwRequired(at+".kind"))
		}
		if len(f.Namespace) > 63 || !gwNamespaceRE.MatchString(f.Namespace) {
			errs = append(errs, gwPattern(at+".namespace", f.Namespace, gwNamespacePattern))
		}
	}
	for i, t := range g.To {
		if t.Kind == "" {
			errs = append(errs, gwRequired(p.at(strict.Index("spec.to", i)+".kind")))
		}
	}
	return errs
}

// checkGateway checks a Gateway (for one built in Go, its namespace and name too): its
// class, and its listeners' names (unique), ports, protocols, hostnames and allowedRoutes.
func checkGateway(errs []*FieldError, g *Gateway, p gwPaths) []*FieldError {
	if !p.load {
		errs = checkNamespaceName(errs, g.Namespace, g.Name)
	}
	if g.ClassName == "" {
		errs = append(errs, gwRequired(p.at("spec.gatewayClassName")))
	}
	if len(g.Listeners) == 0 {
		at := p.at("spec.listeners")
		errs = append(errs, kube.FromField(field.Invalid(kube.PathOf(at), 0, at+" in body should have at least 1 items")))
	}
	seen := map[string]int{}
	for i := range g.Listeners {
		l := &g.Listeners[i]
		at := strict.Index("spec.listeners", i)
		seen[l.Name]++
		if l.Name == "" {
			errs = append(errs, gwRequired(p.at(at+".name")))
		}
		if l.Protocol == "" {
			errs = append(errs, gwRequired(p.at(at+".protocol")))
		}
		if l.Port == 0 {
			errs = append(errs, gwAtLeast(p.at(at+".port"), 0, 1))
		} else if l.Port > 65535 {
			errs = append(errs, gwAtMost(p.at(at+".port"), int64(l.Port), 65535))
		}
		if l.Hostname != "" {
			errs = checkHostname(errs, p.at(at+".hostname"), l.Hostname)
		}
		a := &l.AllowedRoutes
		if !slices.Contains(gwAllowedFrom, a.From) {
			errs = append(errs, gwUnsupported(p.at(at+".allowedRoutes.namespaces.from"), a.From, gwAllowedFrom...))
		}
		if a.Selector != nil {
			for _, e := range kube.SelectorProblems(a.Selector, kube.PathOf(p.at(at+".allowedRoutes.namespaces.selector"))) {
				errs = append(errs, asFieldError(e))
			}
		}
		for k, rk := range a.Kinds {
			if rk.Kind == "" {
				errs = append(errs, gwRequired(p.at(strict.Index(at+".allowedRoutes.kinds", k)+".kind")))
			}
		}
	}
	for _, n := range seen {
		if n > 1 {
			errs = append(errs, gwRule(p.at("spec.listeners"), "array", "Listener name must be unique within the Gateway"))
			break
		}
	}
	return errs
}

// asFieldError returns err as a FieldError (SelectorProblems gives FieldErrors).
func asFieldError(err error) *FieldError {
	if fe, ok := err.(*FieldError); ok {
		return fe
	}
	return fielderr.New("", nil, err.Error(), nil)
}

// hasFilter reports whether a filter of type t is among fs.
func hasFilter(fs []RouteFilter, t string) bool {
	return slices.ContainsFunc(fs, func(f RouteFilter) bool { return f.Type == t })
}

// validateGatewayAPI checks the routes, ReferenceGrants and Gateways of an inventory built in
// Go, naming each, and refuses two of one kind with one namespace and name.
func (inv *Inventory) validateGatewayAPI() []error {
	p := gwPaths{}
	var errs []error
	errs = append(errs, checkItems(inv.Routes, "routes",
		func(r *Route) [3]string { return [3]string{string(r.Kind), r.Namespace, r.Name} },
		func(r *Route) []*FieldError { return checkRoute(nil, r, p) },
		func(r *Route) (string, string, string) { return string(r.Kind), r.Namespace, r.Name },
		func(r *Route) string { return string(r.Kind) })...)
	errs = append(errs, checkNamed(inv.ReferenceGrants, "ReferenceGrants", "ReferenceGrant",
		func(g *ReferenceGrant) (string, string) { return g.Namespace, g.Name },
		func(e []*FieldError, g *ReferenceGrant) []*FieldError { return checkReferenceGrant(e, g, p) })...)
	return append(errs, checkNamed(inv.Gateways, "Gateways", "Gateway",
		func(g *Gateway) (string, string) { return g.Namespace, g.Name },
		func(e []*FieldError, g *Gateway) []*FieldError { return checkGateway(e, g, p) })...)
}

package inventory

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
)

// The checks of what a Gateway API route, ReferenceGrant and Gateway carry: the rules of the
// API server's validation of their CRDs (sigs.k8s.io/gateway-api v1.6.0: the OpenAPI
// schema's enums, patterns and bounds, and the CEL rules) that concern what istiod reads,
// each problem in the API server's words. Load runs them on each object it reads, naming
// fields as the object spells them ("spec.rules[0].backendRefs[1]"); Validate on each one
// built in Go, naming fields as the Go value does ("Rules[0].BackendRefs[1]"). doc.go lists
// the rules, and those not checked.

// Each check takes the path of its object's spec (objectSpec when Load runs it, goValue when
// Validate does) and builds a field's path only for a problem there: a check shared by fields
// in several places (a backendRef, a path match) takes a function giving the path of what it
// checks, called only for a problem. Where the Go value names a field otherwise than the
// object, the path gives both names: urlRewrite is URLRewrite, gatewayClassName ClassName,
// a GRPCRoute match's method GRPCMethod, and a listener's allowedRoutes.namespaces holds its
// from and selector in AllowedRoutes itself.

// builtInGo reports whether spec is the root of an object built in Go (Validate), whose kind,
// namespace and name are checked with it.
func builtInGo(spec fielderr.Path) bool { return spec.Spelling() == fielderr.GoValue }

// The API server's kinds of problem, in its words.
func gwRequired(at fielderr.Path) *FieldError {
	return kube.FromField(field.Required(at.FieldPath(), ""))
}

func gwUnsupported(at fielderr.Path, value string, valid ...string) *FieldError {
	return kube.FromField(field.NotSupported(at.FieldPath(), value, valid))
}

// gwRule is a CEL rule's problem: the API server names the object or list it is about.
func gwRule(at fielderr.Path, what, message string) *FieldError {
	return kube.FromField(field.Invalid(at.FieldPath(), what, message))
}

func gwPattern(at fielderr.Path, value, pattern string) *FieldError {
	return kube.FromField(field.Invalid(at.FieldPath(), value, fmt.Sprintf("%s in body should match '%s'", at, pattern)))
}

func gwAtMost(at fielderr.Path, value, max int64) *FieldError {
	return kube.FromField(field.Invalid(at.FieldPath(), value, fmt.Sprintf("%s in body should be less than or equal to %d", at, max)))
}

func gwAtLeast(at fielderr.Path, value, min int64) *FieldError {
	return kube.FromField(field.Invalid(at.FieldPath(), value, fmt.Sprintf("%s in body should be greater than or equal to %d", at, min)))
}

// gwNoItems is the problem of a list the schema requires an item of.
func gwNoItems(at fielderr.Path) *FieldError {
	return kube.FromField(field.Invalid(at.FieldPath(), 0, at.String()+" in body should have at least 1 items"))
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
	gwRedirectCodes    = []int32{301, 302, 303, 307, 308}
	gwAllowedFrom      = []string{"All", "Selector", "Same"}
	gwRouteKinds       = []string{string(HTTPRouteKind), string(GRPCRouteKind), string(TCPRouteKind), string(TLSRouteKind)}
	gwParentRefsUnique = "sectionName or port must be unique when parentRefs includes 2 or more references to the same parent"
	gwParentRefsGiven  = "sectionName or port must be specified when parentRefs includes 2 or more references to the same parent"
)

// gwOnceFilterTypes are the filter types a rule (or a backendRef) may have one filter of, in
// the order the API server reports repeats; of them, a redirect and a rewrite exclude each
// other.
var gwOnceFilterTypes = [...]string{FilterCORS, FilterRequestHeaderModifier, FilterResponseHeaderModifier, FilterRequestRedirect, FilterURLRewrite}

// gwRedirectCodeNames spells the redirect codes for a problem.
func gwRedirectCodeNames() []string {
	out := make([]string, len(gwRedirectCodes))
	for i, c := range gwRedirectCodes {
		out[i] = strconv.Itoa(int(c))
	}
	return out
}

// checkRoute checks a route as the API server's validation does (for a route built in Go, its
// kind, namespace and name too).
func checkRoute(errs []*FieldError, r *Route, spec fielderr.Path) []*FieldError {
	if builtInGo(spec) {
		errs = checkNamespaceName(errs, r.Namespace, r.Name)
		if !slices.Contains(gwRouteKinds, string(r.Kind)) {
			errs = append(errs, gwUnsupported(spec.Child("kind"), string(r.Kind), gwRouteKinds...))
		}
	}
	errs = checkParentRefs(errs, r.ParentRefs, spec)
	for i, h := range r.Hostnames {
		errs = checkHostname(errs, func() fielderr.Path { return spec.Child("hostnames").Index(i) }, h)
	}
	if len(r.Rules) == 0 && r.Kind != GRPCRouteKind {
		errs = append(errs, gwNoItems(spec.Child("rules")))
	}
	for i := range r.Rules {
		errs = checkRule(errs, r.Kind, &r.Rules[i], builtInGo(spec), func() fielderr.Path { return spec.Child("rules").Index(i) })
	}
	return errs
}

// checkHostname checks a route's or a listener's hostname, at the path at gives.
func checkHostname(errs []*FieldError, at func() fielderr.Path, h string) []*FieldError {
	if len(h) > 253 || !gwHostnameRE.MatchString(h) {
		errs = append(errs, gwPattern(at(), h, gwHostnamePattern))
	}
	return errs
}

// checkParentRefs checks each parentRef, and the CEL rules on two references to one parent:
// as on the experimental channel, where such references must differ in sectionName or port
// (the standard channel's rules, which ignore port, refuse more: see doc.go).
func checkParentRefs(errs []*FieldError, refs []ParentRef, spec fielderr.Path) []*FieldError {
	for i, pr := range refs {
		errs = checkReference(errs, func() fielderr.Path { return spec.Child("parentRefs").Index(i) }, pr.Name, pr.Namespace, pr.Port)
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
		errs = append(errs, gwRule(spec.Child("parentRefs"), "array", gwParentRefsGiven))
	}
	if !unique {
		errs = append(errs, gwRule(spec.Child("parentRefs"), "array", gwParentRefsUnique))
	}
	return errs
}

// checkReference checks what parentRefs and backendRefs share, at the path at gives: a name,
// a namespace that is a DNS label, a port of at most 65535.
func checkReference(errs []*FieldError, at func() fielderr.Path, name, namespace string, port uint32) []*FieldError {
	if name == "" {
		errs = append(errs, gwRequired(at().Child("name")))
	}
	if namespace != "" && (len(namespace) > 63 || !gwNamespaceRE.MatchString(namespace)) {
		errs = append(errs, gwPattern(at().Child("namespace"), namespace, gwNamespacePattern))
	}
	if port > 65535 {
		errs = append(errs, gwAtMost(at().Child("port"), int64(port), 65535))
	}
	return errs
}

// checkRule checks a rule, at the path at gives, of a route of kind k (built in Go, inGo).
func checkRule(errs []*FieldError, k RouteKind, rule *RouteRule, inGo bool, at func() fielderr.Path) []*FieldError {
	for m := range rule.Matches {
		errs = checkMatch(errs, k, &rule.Matches[m], inGo, func() fielderr.Path { return at().Child("matches").Index(m) })
	}
	errs = checkFilters(errs, k, rule.Filters, func() fielderr.Path { return at().Child("filters") })
	for b := range rule.BackendRefs {
		br := &rule.BackendRefs[b]
		ref := func() fielderr.Path { return at().Child("backendRefs").Index(b) }
		errs = checkBackendRef(errs, br, ref)
		if br.Weight < 0 {
			errs = append(errs, gwAtLeast(ref().Child("weight"), int64(br.Weight), 0))
		} else if br.Weight > 1000000 {
			errs = append(errs, gwAtMost(ref().Child("weight"), int64(br.Weight), 1000000))
		}
		errs = checkFilters(errs, k, br.Filters, func() fielderr.Path { return ref().Child("filters") })
	}
	if k == HTTPRouteKind && len(rule.BackendRefs) > 0 && hasFilter(rule.Filters, FilterRequestRedirect) {
		errs = append(errs, gwRule(at(), "object", "RequestRedirect filter must not be used together with backendRefs"))
	}
	return errs
}

// checkBackendRef checks a backendRef (or a mirror's), at the path at gives: the reference,
// and the CEL rule that a Service's has a port.
func checkBackendRef(errs []*FieldError, b *BackendRef, at func() fielderr.Path) []*FieldError {
	errs = checkReference(errs, at, b.Name, b.Namespace, b.Port)
	if b.Group == "" && b.Kind == "Service" && b.Port == 0 {
		errs = append(errs, gwRule(at(), "object", "Must have port for Service reference"))
	}
	return errs
}

// checkMatch checks an HTTPRoute's or a GRPCRoute's match, at the path at gives (built in Go,
// inGo: the path Load reads is defaulted by the API server).
func checkMatch(errs []*FieldError, k RouteKind, m *RouteMatch, inGo bool, at func() fielderr.Path) []*FieldError {
	for _, list := range []struct {
		key string
		ms  []ValueMatch
	}{{"headers", m.Headers}, {"queryParams", m.QueryParams}} {
		for i, vm := range list.ms {
			if !slices.Contains(gwMatchTypes, vm.Type) {
				errs = append(errs, gwUnsupported(at().Child(list.key).Index(i).Child("type"), vm.Type, gwMatchTypes...))
			}
		}
	}
	if m.Method != "" && !slices.Contains(gwMethods, m.Method) {
		errs = append(errs, gwUnsupported(at().Child("method"), m.Method, gwMethods...))
	}
	if m.Path != nil {
		errs = checkPathMatch(errs, m.Path, func() fielderr.Path { return at().Child("path") })
	} else if k == HTTPRouteKind && inGo {
		errs = append(errs, gwRequired(at().Child("path")))
	}
	if g := m.GRPCMethod; g != nil {
		errs = checkGRPCMethod(errs, g, func() fielderr.Path { return at().Field("method", "GRPCMethod") })
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
func checkPathMatch(errs []*FieldError, pm *PathMatch, at func() fielderr.Path) []*FieldError {
	if !slices.Contains(gwPathTypes, pm.Type) {
		return append(errs, gwUnsupported(at().Child("type"), pm.Type, gwPathTypes...))
	}
	if pm.Type == MatchRegularExpression {
		return errs
	}
	for _, r := range pathRules {
		if r.bad(pm.Value) {
			errs = append(errs, gwRule(at(), "object", r.message+" when type one of ['Exact', 'PathPrefix']"))
		}
	}
	if !gwPathCharsRE.MatchString(pm.Value) {
		errs = append(errs, gwRule(at(), "object", "must only contain valid characters (matching "+gwPathChars+") for types ['Exact', 'PathPrefix']"))
	}
	return errs
}

// checkGRPCMethod checks a GRPCRoute match's method at at.
func checkGRPCMethod(errs []*FieldError, g *GRPCMethodMatch, at func() fielderr.Path) []*FieldError {
	if !slices.Contains(gwMatchTypes, g.Type) {
		errs = append(errs, gwUnsupported(at().Child("type"), g.Type, gwMatchTypes...))
	}
	if g.Service == "" && g.Method == "" {
		errs = append(errs, gwRule(at(), "object", "One or both of 'service' or 'method' must be specified"))
	}
	if g.Type == MatchExact && g.Service != "" && !gwGRPCServiceRE.MatchString(g.Service) {
		errs = append(errs, gwRule(at(), "object", "service must only contain valid characters (matching "+gwGRPCService+")"))
	}
	if g.Type == MatchExact && g.Method != "" && !gwGRPCMethodRE.MatchString(g.Method) {
		errs = append(errs, gwRule(at(), "object", "method must only contain valid characters (matching "+gwGRPCMethod+")"))
	}
	return errs
}

// checkFilters checks the filters, at the path at gives, of a rule or a backendRef of a route
// of kind k.
func checkFilters(errs []*FieldError, k RouteKind, fs []RouteFilter, at func() fielderr.Path) []*FieldError {
	types := gwHTTPFilterTypes
	if k == GRPCRouteKind {
		types = gwGRPCFilterTypes
	}
	var count [len(gwOnceFilterTypes)]int // of each type that may be given once
	for i := range fs {
		f := &fs[i]
		filter := func() fielderr.Path { return at().Index(i) }
		if t := slices.Index(gwOnceFilterTypes[:], f.Type); t >= 0 {
			count[t]++
		}
		if !slices.Contains(types, f.Type) {
			errs = append(errs, gwUnsupported(filter().Child("type"), f.Type, types...))
		}
		errs = checkFilterSettings(errs, f, filter)
		if m := f.RequestMirror; m != nil {
			mirror := func() fielderr.Path { return filter().Child("requestMirror") }
			errs = checkBackendRef(errs, &m.BackendRef, func() fielderr.Path { return mirror().Child("backendRef") })
			if m.Percent != nil && m.Fraction != nil {
				errs = append(errs, gwRule(mirror(), "object", "Only one of percent or fraction may be specified in HTTPRequestMirrorFilter"))
			}
			if fr := m.Fraction; fr != nil && fr.Numerator > fr.Denominator {
				errs = append(errs, gwRule(mirror().Child("fraction"), "object", "numerator must be less than or equal to denominator"))
			}
		}
		if rd := f.RequestRedirect; rd != nil {
			redirect := func() fielderr.Path { return filter().Child("requestRedirect") }
			errs = checkPathModifier(errs, rd.Path, func() fielderr.Path { return redirect().Child("path") })
			if rd.Scheme != "" && !slices.Contains(gwSchemes, rd.Scheme) {
				errs = append(errs, gwUnsupported(redirect().Child("scheme"), rd.Scheme, gwSchemes...))
			}
			if !slices.Contains(gwRedirectCodes, rd.StatusCode) {
				errs = append(errs, kube.FromField(field.NotSupported(redirect().Child("statusCode").FieldPath(), rd.StatusCode, gwRedirectCodeNames())))
			}
			if rd.Port > 65535 {
				errs = append(errs, gwAtMost(redirect().Child("port"), int64(rd.Port), 65535))
			}
		}
		if rw := f.URLRewrite; rw != nil {
			errs = checkPathModifier(errs, rw.Path, func() fielderr.Path { return filter().Field("urlRewrite", "URLRewrite").Child("path") })
		}
	}
	if k != HTTPRouteKind && k != GRPCRouteKind {
		return errs
	}
	for t, n := range count {
		if n > 1 {
			errs = append(errs, gwRule(at(), "array", gwOnceFilterTypes[t]+" filter cannot be repeated"))
		}
	}
	counted := func(t string) int { return count[slices.Index(gwOnceFilterTypes[:], t)] }
	if counted(FilterRequestRedirect) > 0 && counted(FilterURLRewrite) > 0 {
		errs = append(errs, gwRule(at(), "array", "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both"))
	}
	return errs
}

// checkFilterSettings checks the CEL rules that a filter's settings field is the one of its
// type: given for its type, and none given for another.
func checkFilterSettings(errs []*FieldError, f *RouteFilter, at func() fielderr.Path) []*FieldError {
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
			errs = append(errs, gwRule(at(), "object", fmt.Sprintf("filter.%s must be nil if the filter.type is not %s", s.key, s.typ)))
		case !s.has && f.Type == s.typ:
			errs = append(errs, gwRule(at(), "object", fmt.Sprintf("filter.%s must be specified for %s filter.type", s.key, s.typ)))
		}
	}
	return errs
}

// checkPathModifier checks a redirect's or a rewrite's path at at.
func checkPathModifier(errs []*FieldError, pm *PathModifier, at func() fielderr.Path) []*FieldError {
	if pm == nil {
		return errs
	}
	if !slices.Contains(gwPathModifiers, pm.Type) {
		errs = append(errs, gwUnsupported(at().Child("type"), pm.Type, gwPathModifiers...))
	}
	for _, r := range []struct {
		typ  string
		set  bool
		name string
	}{{ReplaceFullPath, pm.ReplaceFullPath != "", "replaceFullPath"}, {ReplacePrefixMatch, pm.ReplacePrefixMatch != "", "replacePrefixMatch"}} {
		if pm.Type == r.typ && !r.set {
			errs = append(errs, gwRule(at(), "object", fmt.Sprintf("%s must be specified when type is set to '%s'", r.name, r.typ)))
		}
		if r.set && pm.Type != r.typ {
			errs = append(errs, gwRule(at(), "object", fmt.Sprintf("type must be '%s' when %s is set", r.typ, r.name)))
		}
	}
	return errs
}

// checkReferenceGrant checks a ReferenceGrant (for one built in Go, its namespace and name
// too): at least one from and one to, each naming its kind (and a from its namespace).
func checkReferenceGrant(errs []*FieldError, g *ReferenceGrant, spec fielderr.Path) []*FieldError {
	if builtInGo(spec) {
		errs = checkNamespaceName(errs, g.Namespace, g.Name)
	}
	for _, list := range []struct {
		key string
		n   int
	}{{"from", len(g.From)}, {"to", len(g.To)}} {
		if list.n == 0 {
			errs = append(errs, gwNoItems(spec.Child(list.key)))
		}
	}
	for i, f := range g.From {
		if f.Kind == "" {
			errs = append(errs, gwRequired(spec.Child("from").Index(i).Child("kind")))
		}
		if len(f.Namespace) > 63 || !gwNamespaceRE.MatchString(f.Namespace) {
			errs = append(errs, gwPattern(spec.Child("from").Index(i).Child("namespace"), f.Namespace, gwNamespacePattern))
		}
	}
	for i, t := range g.To {
		if t.Kind == "" {
			errs = append(errs, gwRequired(spec.Child("to").Index(i).Child("kind")))
		}
	}
	return errs
}

// checkGateway checks a Gateway (for one built in Go, its namespace and name too): its
// class, and its listeners' names (unique), ports, protocols, hostnames and allowedRoutes.
func checkGateway(errs []*FieldError, g *Gateway, spec fielderr.Path) []*FieldError {
	if builtInGo(spec) {
		errs = checkNamespaceName(errs, g.Namespace, g.Name)
	}
	if g.ClassName == "" {
		errs = append(errs, gwRequired(spec.Field("gatewayClassName", "ClassName")))
	}
	if len(g.Listeners) == 0 {
		errs = append(errs, gwNoItems(spec.Child("listeners")))
	}
	seen := map[string]int{}
	for i := range g.Listeners {
		l := &g.Listeners[i]
		at := func() fielderr.Path { return spec.Child("listeners").Index(i) }
		seen[l.Name]++
		if l.Name == "" {
			errs = append(errs, gwRequired(at().Child("name")))
		}
		if l.Protocol == "" {
			errs = append(errs, gwRequired(at().Child("protocol")))
		}
		if l.Port == 0 {
			errs = append(errs, gwAtLeast(at().Child("port"), 0, 1))
		} else if l.Port > 65535 {
			errs = append(errs, gwAtMost(at().Child("port"), int64(l.Port), 65535))
		}
		if l.Hostname != "" {
			errs = checkHostname(errs, func() fielderr.Path { return at().Child("hostname") }, l.Hostname)
		}
		a := &l.AllowedRoutes
		// allowedRoutes.namespaces.from and .selector, which the Go value holds in AllowedRoutes
		namespaces := func() fielderr.Path { return at().Child("allowedRoutes").Field("namespaces", "") }
		if !slices.Contains(gwAllowedFrom, a.From) {
			errs = append(errs, gwUnsupported(namespaces().Child("from"), a.From, gwAllowedFrom...))
		}
		if a.Selector != nil {
			errs = append(errs, kube.SelectorProblems(a.Selector, func() fielderr.Path { return namespaces().Child("selector") })...)
		}
		for k, rk := range a.Kinds {
			if rk.Kind == "" {
				errs = append(errs, gwRequired(at().Child("allowedRoutes").Child("kinds").Index(k).Child("kind")))
			}
		}
	}
	for _, n := range seen {
		if n > 1 {
			errs = append(errs, gwRule(spec.Child("listeners"), "array", "Listener name must be unique within the Gateway"))
			break
		}
	}
	return errs
}

// hasFilter reports whether a filter of type t is among fs.
func hasFilter(fs []RouteFilter, t string) bool {
	return slices.ContainsFunc(fs, func(f RouteFilter) bool { return f.Type == t })
}

// validateGatewayAPI checks the routes, ReferenceGrants and Gateways of an inventory built in
// Go, naming each, and refuses two of one kind with one namespace and name.
func (inv *Inventory) validateGatewayAPI() []error {
	var errs []error
	errs = append(errs, checkItems(inv.Routes, "routes",
		func(r *Route) [3]string { return [3]string{string(r.Kind), r.Namespace, r.Name} },
		func(r *Route) []*FieldError { return checkRoute(nil, r, goValue) },
		func(r *Route) (string, string, string) { return string(r.Kind), r.Namespace, r.Name },
		func(r *Route) string { return string(r.Kind) })...)
	errs = append(errs, checkNamed(inv.ReferenceGrants, "ReferenceGrants", "ReferenceGrant",
		func(g *ReferenceGrant) (string, string) { return g.Namespace, g.Name },
		func(e []*FieldError, g *ReferenceGrant) []*FieldError { return checkReferenceGrant(e, g, goValue) })...)
	return append(errs, checkNamed(inv.Gateways, "Gateways", "Gateway",
		func(g *Gateway) (string, string) { return g.Namespace, g.Name },
		func(e []*FieldError, g *Gateway) []*FieldError { return checkGateway(e, g, goValue) })...)
}

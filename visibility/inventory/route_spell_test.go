package inventory

import "reflect"

// Spelling Gateway API values back as the API server stores them (JSON, defaults written
// out), for tests that compare what Load read with the object it read.

type jsonObject = map[string]any

// set puts v at k unless it is empty.
func set(o jsonObject, k string, v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map {
		if rv.Len() > 0 {
			o[k] = v
		}
	} else if !rv.IsZero() {
		o[k] = v
	}
}

func routeSpecJSON(r *Route) jsonObject {
	spec := jsonObject{}
	var refs []any
	for _, p := range r.ParentRefs {
		o := jsonObject{"group": p.Group, "kind": p.Kind, "name": p.Name}
		set(o, "namespace", p.Namespace)
		set(o, "sectionName", p.SectionName)
		set(o, "port", p.Port)
		refs = append(refs, o)
	}
	set(spec, "parentRefs", refs)
	set(spec, "hostnames", r.Hostnames)
	var rules []any
	for _, rule := range r.Rules {
		o := jsonObject{}
		set(o, "name", rule.Name)
		var matches []any
		for _, m := range rule.Matches {
			matches = append(matches, matchJSON(&m))
		}
		if r.Kind == HTTPRouteKind {
			o["matches"] = append([]any{}, matches...) // stored even when empty: a rule without is given one
		} else {
			set(o, "matches", matches)
		}
		set(o, "filters", filtersJSON(rule.Filters))
		var backends []any
		for _, b := range rule.BackendRefs {
			bo := backendJSON(&b)
			bo["weight"] = b.Weight
			set(bo, "filters", filtersJSON(b.Filters))
			backends = append(backends, bo)
		}
		set(o, "backendRefs", backends)
		rules = append(rules, o)
	}
	if r.Kind == GRPCRouteKind {
		set(spec, "rules", rules)
	} else {
		spec["rules"] = append([]any{}, rules...)
	}
	return spec
}

func matchJSON(m *RouteMatch) jsonObject {
	o := jsonObject{}
	if m.Path != nil {
		o["path"] = jsonObject{"type": m.Path.Type, "value": m.Path.Value}
	}
	for _, list := range []struct {
		key string
		ms  []ValueMatch
	}{{"headers", m.Headers}, {"queryParams", m.QueryParams}} {
		var out []any
		for _, vm := range list.ms {
			out = append(out, jsonObject{"type": vm.Type, "name": vm.Name, "value": vm.Value})
		}
		set(o, list.key, out)
	}
	set(o, "method", m.Method)
	if g := m.GRPCMethod; g != nil {
		mo := jsonObject{"type": g.Type}
		set(mo, "service", g.Service)
		set(mo, "method", g.Method)
		o["method"] = mo
	}
	return o
}

func backendJSON(b *BackendRef) jsonObject {
	o := jsonObject{"group": b.Group, "kind": b.Kind, "name": b.Name}
	set(o, "namespace", b.Namespace)
	set(o, "port", b.Port)
	return o
}

func filtersJSON(fs []RouteFilter) []any {
	var out []any
	for _, f := range fs {
		o := jsonObject{"type": f.Type}
		switch f.Type { // settings a Route does not keep: any will do
		case FilterCORS:
			o["cors"] = jsonObject{}
		case FilterExtensionRef:
			o["extensionRef"] = jsonObject{}
		case FilterExternalAuth:
			o["externalAuth"] = jsonObject{}
		}
		for k, hm := range map[string]*HeaderModifier{"requestHeaderModifier": f.RequestHeaderModifier, "responseHeaderModifier": f.ResponseHeaderModifier} {
			if hm == nil {
				continue
			}
			ho := jsonObject{}
			for lk, hs := range map[string][]Header{"set": hm.Set, "add": hm.Add} {
				var list []any
				for _, h := range hs {
					list = append(list, jsonObject{"name": h.Name, "value": h.Value})
				}
				set(ho, lk, list)
			}
			set(ho, "remove", hm.Remove)
			o[k] = ho
		}
		if m := f.RequestMirror; m != nil {
			mo := jsonObject{"backendRef": backendJSON(&m.BackendRef)}
			if m.Percent != nil {
				mo["percent"] = *m.Percent
			}
			if m.Fraction != nil {
				mo["fraction"] = jsonObject{"numerator": m.Fraction.Numerator, "denominator": m.Fraction.Denominator}
			}
			o["requestMirror"] = mo
		}
		if rd := f.RequestRedirect; rd != nil {
			ro := jsonObject{"statusCode": rd.StatusCode}
			set(ro, "scheme", rd.Scheme)
			set(ro, "hostname", rd.Hostname)
			set(ro, "port", rd.Port)
			if rd.Path != nil {
				ro["path"] = pathModifierJSON(rd.Path)
			}
			o["requestRedirect"] = ro
		}
		if rw := f.URLRewrite; rw != nil {
			ro := jsonObject{}
			set(ro, "hostname", rw.Hostname)
			if rw.Path != nil {
				ro["path"] = pathModifierJSON(rw.Path)
			}
			o["urlRewrite"] = ro
		}
		out = append(out, o)
	}
	return out
}

func pathModifierJSON(p *PathModifier) jsonObject {
	o := jsonObject{"type": p.Type}
	set(o, "replaceFullPath", p.ReplaceFullPath)
	set(o, "replacePrefixMatch", p.ReplacePrefixMatch)
	return o
}

func grantSpecJSON(g *ReferenceGrant) jsonObject {
	var from, to []any
	for _, f := range g.From {
		from = append(from, jsonObject{"group": f.Group, "kind": f.Kind, "namespace": f.Namespace})
	}
	for _, x := range g.To {
		o := jsonObject{"group": x.Group, "kind": x.Kind}
		set(o, "name", x.Name)
		to = append(to, o)
	}
	return jsonObject{"from": from, "to": to}
}

func gatewaySpecJSON(g *Gateway) jsonObject {
	var listeners []any
	for _, l := range g.Listeners {
		o := jsonObject{"name": l.Name, "port": l.Port, "protocol": l.Protocol}
		set(o, "hostname", l.Hostname)
		if l.TLSMode != "" {
			o["tls"] = jsonObject{"mode": l.TLSMode}
		}
		ns := jsonObject{"from": l.AllowedRoutes.From}
		if l.AllowedRoutes.Selector != nil {
			ns["selector"] = l.AllowedRoutes.Selector
		}
		a := jsonObject{"namespaces": ns}
		var kinds []any
		for _, k := range l.AllowedRoutes.Kinds {
			kinds = append(kinds, jsonObject{"group": k.Group, "kind": k.Kind})
		}
		set(a, "kinds", kinds)
		o["allowedRoutes"] = a
		listeners = append(listeners, o)
	}
	return jsonObject{"gatewayClassName": g.ClassName, "listeners": listeners}
}

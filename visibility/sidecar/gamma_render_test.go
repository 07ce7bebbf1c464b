package sidecar

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaSpecJSON spells a converted VirtualService's spec as istiod's VirtualService JSON: the
// inventory's values and the record's, field by field, leaving out what is empty as protobuf
// JSON does.
func gammaSpecJSON(t testing.TB, g *gammaVirtualService) []byte {
	spec := map[string]any{"hosts": g.vs.Hosts, "gateways": g.vs.Gateways}
	var http, tcp, tls []any
	for i, h := range g.vs.HTTP {
		e := g.http[i]
		r := map[string]any{"name": h.Name}
		var matches []any
		for _, m := range h.Match {
			matches = append(matches, gammaMatchJSON(m))
		}
		put(r, "match", matches)
		put(r, "route", gammaDestinationsJSON(h.Route))
		var mirrors []any
		for k, d := range h.Mirrors {
			mo := map[string]any{"destination": gammaDestinationJSON(d)}
			if p := e.mirrorPercent[k]; p != nil {
				mo["percentage"] = map[string]any{"value": *p}
			}
			mirrors = append(mirrors, mo)
		}
		put(r, "mirrors", mirrors)
		if e.directResponse != 0 {
			r["directResponse"] = map[string]any{"status": e.directResponse}
		}
		headers := map[string]any{}
		for k, ops := range map[string]*gammaHeaderOps{"request": e.request, "response": e.response} {
			if ops != nil {
				o := map[string]any{}
				put(o, "set", ops.set)
				put(o, "add", ops.add)
				put(o, "remove", ops.remove)
				headers[k] = o
			}
		}
		put(r, "headers", headers)
		if rw := e.rewrite; rw != nil {
			o := map[string]any{}
			put(o, "uri", rw.uri)
			put(o, "authority", rw.authority)
			if rw.regexMatch != "" {
				o["uriRegexRewrite"] = map[string]any{"match": rw.regexMatch, "rewrite": rw.regexRewrite}
			}
			r["rewrite"] = o
		}
		if rd := e.redirect; rd != nil {
			o := map[string]any{}
			put(o, "uri", rd.uri)
			put(o, "authority", rd.authority)
			put(o, "scheme", rd.scheme)
			put(o, "prefixRewrite", rd.prefixRewrite)
			put(o, "derivePort", rd.derivePort)
			put(o, "port", rd.port)
			put(o, "redirectCode", rd.code)
			r["redirect"] = o
		}
		http = append(http, r)
	}
	for _, l4 := range []struct {
		routes []inventory.L4Route
		extra  []gammaL4
		out    *[]any
	}{{g.vs.TCP, g.tcp, &tcp}, {g.vs.TLS, g.tls, &tls}} {
		for i, r := range l4.routes {
			o := map[string]any{}
			if m := l4.extra[i].match; m != nil {
				mo := map[string]any{}
				put(mo, "port", m.port)
				put(mo, "sniHosts", m.sniHosts)
				o["match"] = []any{mo}
			}
			put(o, "route", gammaDestinationsJSON(r.Route))
			*l4.out = append(*l4.out, o)
		}
	}
	put(spec, "http", http)
	put(spec, "tcp", tcp)
	put(spec, "tls", tls)
	out, err := json.Marshal(spec)
	require.NoError(t, err)
	return out
}

func gammaMatchJSON(m inventory.HTTPMatch) map[string]any {
	o := map[string]any{}
	if m.URI != nil {
		o["uri"] = gammaStringMatchJSON(*m.URI)
	}
	if m.Method != nil {
		o["method"] = gammaStringMatchJSON(*m.Method)
	}
	for key, ms := range map[string]map[string]inventory.StringMatch{"headers": m.Headers, "queryParams": m.QueryParams} {
		if len(ms) > 0 {
			mo := map[string]any{}
			for k, v := range ms {
				mo[k] = gammaStringMatchJSON(v)
			}
			o[key] = mo
		}
	}
	put(o, "port", m.Port)
	return o
}

func gammaStringMatchJSON(s inventory.StringMatch) map[string]any {
	switch {
	case s.Exact != "":
		return map[string]any{"exact": s.Exact}
	case s.Prefix != "":
		return map[string]any{"prefix": s.Prefix}
	}
	return map[string]any{"regex": s.Regex}
}

func gammaDestinationsJSON(ds []inventory.Destination) []any {
	var out []any
	for _, d := range ds {
		o := map[string]any{"destination": gammaDestinationJSON(d)}
		put(o, "weight", d.Weight)
		out = append(out, o)
	}
	return out
}

func gammaDestinationJSON(d inventory.Destination) map[string]any {
	o := map[string]any{}
	put(o, "host", d.Host)
	put(o, "subset", d.Subset)
	if d.Port != 0 {
		o["port"] = map[string]any{"number": d.Port}
	}
	return o
}

// put sets o[k] to v unless v is empty (protobuf JSON leaves empty fields out).
func put(o map[string]any, k string, v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map {
		if rv.Len() > 0 {
			o[k] = v
		}
	} else if !rv.IsZero() {
		o[k] = v
	}
}

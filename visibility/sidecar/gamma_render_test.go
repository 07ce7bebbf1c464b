package sidecar

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The JSON of Istio's VirtualService, as far as the VirtualServices istiod makes from routes
// fill it; empty fields are left out, as protobuf JSON leaves them out.
type (
	istioVSJSON struct {
		Hosts    []string        `json:"hosts"`
		Gateways []string        `json:"gateways"`
		HTTP     []istioHTTPJSON `json:"http,omitempty"`
		TCP      []istioL4JSON   `json:"tcp,omitempty"`
		TLS      []istioL4JSON   `json:"tls,omitempty"`
	}
	istioHTTPJSON struct {
		Name           string            `json:"name"`
		Match          []istioMatchJSON  `json:"match,omitempty"`
		Route          []istioRouteJSON  `json:"route,omitempty"`
		Mirrors        []istioMirrorJSON `json:"mirrors,omitempty"`
		DirectResponse *struct {
			Status uint32 `json:"status"`
		} `json:"directResponse,omitempty"`
		Headers  *istioHeadersJSON  `json:"headers,omitempty"`
		Rewrite  *istioRewriteJSON  `json:"rewrite,omitempty"`
		Redirect *istioRedirectJSON `json:"redirect,omitempty"`
	}
	istioMatchJSON struct {
		URI         map[string]string            `json:"uri,omitempty"`
		Method      map[string]string            `json:"method,omitempty"`
		Headers     map[string]map[string]string `json:"headers,omitempty"`
		QueryParams map[string]map[string]string `json:"queryParams,omitempty"`
		Port        uint32                       `json:"port,omitempty"`
	}
	istioRouteJSON struct {
		Destination istioDestinationJSON `json:"destination"`
		Weight      int32                `json:"weight,omitempty"`
	}
	istioDestinationJSON struct {
		Host   string `json:"host,omitempty"`
		Subset string `json:"subset,omitempty"`
		Port   *struct {
			Number uint32 `json:"number"`
		} `json:"port,omitempty"`
	}
	istioMirrorJSON struct {
		Destination istioDestinationJSON `json:"destination"`
		Percentage  *struct {
			Value float64 `json:"value"`
		} `json:"percentage,omitempty"`
	}
	istioHeadersJSON struct {
		Request  *istioHeaderOpsJSON `json:"request,omitempty"`
		Response *istioHeaderOpsJSON `json:"response,omitempty"`
	}
	istioHeaderOpsJSON struct {
		Set    map[string]string `json:"set,omitempty"`
		Add    map[string]string `json:"add,omitempty"`
		Remove []string          `json:"remove,omitempty"`
	}
	istioRewriteJSON struct {
		URI             string             `json:"uri,omitempty"`
		Authority       string             `json:"authority,omitempty"`
		URIRegexRewrite *map[string]string `json:"uriRegexRewrite,omitempty"`
	}
	istioRedirectJSON struct {
		URI           string `json:"uri,omitempty"`
		Authority     string `json:"authority,omitempty"`
		Scheme        string `json:"scheme,omitempty"`
		PrefixRewrite string `json:"prefixRewrite,omitempty"`
		DerivePort    string `json:"derivePort,omitempty"`
		Port          uint32 `json:"port,omitempty"`
		RedirectCode  uint32 `json:"redirectCode,omitempty"`
	}
	istioL4JSON struct {
		Match []istioL4MatchJSON `json:"match,omitempty"`
		Route []istioRouteJSON   `json:"route,omitempty"`
	}
	istioL4MatchJSON struct {
		Port     uint32   `json:"port,omitempty"`
		SNIHosts []string `json:"sniHosts,omitempty"`
	}
)

// gammaSpecJSON spells a converted VirtualService's spec as istiod's VirtualService JSON: the
// inventory's values and the record's, field by field.
func gammaSpecJSON(t testing.TB, g *gammaVirtualService) []byte {
	spec := istioVSJSON{Hosts: g.vs.Hosts, Gateways: g.vs.Gateways}
	for i, h := range g.vs.HTTP {
		e := g.http[i]
		r := istioHTTPJSON{Name: h.Name, Route: gammaRoutesJSON(h.Route)}
		for _, m := range h.Match {
			r.Match = append(r.Match, gammaMatchJSON(m))
		}
		for k, d := range h.Mirrors {
			m := istioMirrorJSON{Destination: gammaDestinationJSON(d)}
			if p := e.mirrorPercent[k]; p != nil {
				m.Percentage = &struct {
					Value float64 `json:"value"`
				}{*p}
			}
			r.Mirrors = append(r.Mirrors, m)
		}
		if e.directResponse != 0 {
			r.DirectResponse = &struct {
				Status uint32 `json:"status"`
			}{e.directResponse}
		}
		if e.request != nil || e.response != nil {
			r.Headers = &istioHeadersJSON{Request: gammaHeaderOpsJSON(e.request), Response: gammaHeaderOpsJSON(e.response)}
		}
		if rw := e.rewrite; rw != nil {
			r.Rewrite = &istioRewriteJSON{URI: rw.uri, Authority: rw.authority}
			if rw.regexMatch != "" {
				r.Rewrite.URIRegexRewrite = &map[string]string{"match": rw.regexMatch, "rewrite": rw.regexRewrite}
			}
		}
		if rd := e.redirect; rd != nil {
			r.Redirect = &istioRedirectJSON{rd.uri, rd.authority, rd.scheme, rd.prefixRewrite, rd.derivePort, rd.port, rd.code}
		}
		spec.HTTP = append(spec.HTTP, r)
	}
	spec.TCP = gammaL4JSON(g.vs.TCP, g.tcp)
	spec.TLS = gammaL4JSON(g.vs.TLS, g.tls)
	out, err := json.Marshal(spec)
	require.NoError(t, err)
	return out
}

func gammaL4JSON(routes []inventory.L4Route, extra []gammaL4) []istioL4JSON {
	var out []istioL4JSON
	for i, r := range routes {
		o := istioL4JSON{Route: gammaRoutesJSON(r.Route)}
		if m := extra[i].match; m != nil {
			o.Match = []istioL4MatchJSON{{Port: m.port, SNIHosts: m.sniHosts}}
		}
		out = append(out, o)
	}
	return out
}

func gammaHeaderOpsJSON(ops *gammaHeaderOps) *istioHeaderOpsJSON {
	if ops == nil {
		return nil
	}
	return &istioHeaderOpsJSON{Set: ops.set, Add: ops.add, Remove: ops.remove}
}

func gammaMatchJSON(m inventory.HTTPMatch) istioMatchJSON {
	o := istioMatchJSON{Port: m.Port}
	if m.URI != nil {
		o.URI = gammaStringMatchJSON(*m.URI)
	}
	if m.Method != nil {
		o.Method = gammaStringMatchJSON(*m.Method)
	}
	for _, ms := range []struct {
		in  map[string]inventory.StringMatch
		out *map[string]map[string]string
	}{{m.Headers, &o.Headers}, {m.QueryParams, &o.QueryParams}} {
		for k, v := range ms.in {
			if *ms.out == nil {
				*ms.out = map[string]map[string]string{}
			}
			(*ms.out)[k] = gammaStringMatchJSON(v)
		}
	}
	return o
}

func gammaStringMatchJSON(s inventory.StringMatch) map[string]string {
	switch {
	case s.Exact != "":
		return map[string]string{"exact": s.Exact}
	case s.Prefix != "":
		return map[string]string{"prefix": s.Prefix}
	}
	return map[string]string{"regex": s.Regex}
}

func gammaRoutesJSON(ds []inventory.Destination) []istioRouteJSON {
	var out []istioRouteJSON
	for _, d := range ds {
		out = append(out, istioRouteJSON{Destination: gammaDestinationJSON(d), Weight: d.Weight})
	}
	return out
}

func gammaDestinationJSON(d inventory.Destination) istioDestinationJSON {
	o := istioDestinationJSON{Host: d.Host, Subset: d.Subset}
	if d.Port != 0 {
		o.Port = &struct {
			Number uint32 `json:"number"`
		}{d.Port}
	}
	return o
}

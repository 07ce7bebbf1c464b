package chain

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

func webReq() Request {
	return Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}
}

func mustRouters(t testing.TB, data string) []ServiceRouter {
	t.Helper()
	rs, err := loadRouters([]byte(data))
	require.NoError(t, err)
	return rs
}

func mustSplitters(t testing.TB, data string) []ServiceSplitter {
	t.Helper()
	ss, err := loadSplitters([]byte(data))
	require.NoError(t, err)
	return ss
}

func problemLines(err error) []string {
	var out []string
	for _, e := range fielderr.Split(err) {
		out = append(out, e.Error())
	}
	return out
}

func TestRouterValidate(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"valid, lower-case methods are normalised", `{"Name":"web","Routes":[{"Match":{"HTTP":{"PathPrefix":"/a","Methods":["get","Post"]}}}]}`, nil},
		{"path one-of and slashes", `{"Name":"web","Routes":[{"Match":{"HTTP":{"PathExact":"login","PathPrefix":"/x"}}}]}`, []string{
			`Routes[0].Match.HTTP.PathExact: Route[0] PathExact doesn't start with '/': "login"`,
			`Routes[0].Match.HTTP: Route[0] should only contain at most one of PathExact, PathPrefix, or PathRegex`}},
		{"headers", `{"Name":"web","Routes":[{"Match":{"HTTP":{"Header":[{"Exact":"1"},{"Name":"x","Exact":"1","Prefix":"2"},{"Name":"y"}]}}}]}`, []string{
			`Routes[0].Match.HTTP.Header[0]: Route[0] Header[0] missing required Name field`,
			`Routes[0].Match.HTTP.Header[1]: Route[0] Header[1] should only contain one of Present, Exact, Prefix, Suffix, or Regex`,
			`Routes[0].Match.HTTP.Header[2]: Route[0] Header[2] should only contain one of Present, Exact, Prefix, Suffix, or Regex`}},
		{"query", `{"Name":"web","Routes":[{"Match":{"HTTP":{"QueryParam":[{"Name":"q","Present":true,"Exact":"1"}]}}}]}`, []string{
			`Routes[0].Match.HTTP.QueryParam[0]: Route[0] QueryParam[0] should only contain one of Present, Exact, or Regex`}},
		{"methods", `{"Name":"web","Routes":[{"Match":{"HTTP":{"Methods":["fetch","GET","get"]}}}]}`, []string{
			`Routes[0].Match.HTTP.Methods[0]: Route[0] Methods contains an invalid method "FETCH"`,
			`Routes[0].Match.HTTP.Methods[2]: Route[0] Methods contains "GET" more than once`}},
		{"destination", `{"Name":"web","Routes":[{"Match":{"HTTP":{"PathRegex":"/a.*"}},"Destination":{"PrefixRewrite":"/b","RetryOn":["5xx","bogus"]}}]}`, []string{
			`Routes[0].Destination.PrefixRewrite: Route[0] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix`,
			`Routes[0].Destination.RetryOn[1]: Route[0] contains an invalid retry condition: "bogus"`}},
		{"name and kind", `{"Kind":"service-splitter"}`, []string{`Kind: must be "service-router", got "service-splitter"`, `Name: Name is required`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r ServiceRouter
			require.NoError(t, json.Unmarshal([]byte(tc.in), &r))
			assert.Equal(t, tc.want, problemLines(r.Validate()))
		})
	}
}

func TestSplitterValidate(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"valid once rounded", `{"Name":"web","Splits":[{"Weight":66.666,"Service":"a"},{"Weight":33.333,"Service":"b"}]}`, nil},
		{"sums to 100.01 once rounded", `{"Name":"web","Splits":[{"Weight":33.335,"Service":"a"},{"Weight":33.335,"Service":"b"},{"Weight":33.33,"Service":"c"}]}`, []string{
			`Splits: the sum of all split weights must be 100, not 100.010002`}},
		{"sums to 99.99", `{"Name":"web","Splits":[{"Weight":33.333,"Service":"a"},{"Weight":33.333,"Service":"b"},{"Weight":33.333,"Service":"c"}]}`, []string{
			`Splits: the sum of all split weights must be 100, not 99.989998`}},
		{"no splits", `{"Name":"web"}`, []string{`Splits: no splits configured`}},
		{"a repeat; the splitter's own name when empty", `{"Name":"web","Splits":[{"Weight":50},{"Weight":50,"Service":"web"}]}`, []string{
			`Splits[1]: split destination occurs more than once: service="web", subset="", namespace="", partition=""`}},
		{"splits changing headers are never repeats, as to Consul", `{"Name":"web","Splits":[{"Weight":50,"RequestHeaders":{}},{"Weight":50,"RequestHeaders":{}}]}`, nil},
		{"a namespace spelt differently is another destination, as to Consul", `{"Name":"web","Splits":[{"Weight":50,"Service":"a"},{"Weight":50,"Service":"a","Namespace":"default"}]}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s ServiceSplitter
			require.NoError(t, json.Unmarshal([]byte(tc.in), &s))
			assert.Equal(t, tc.want, problemLines(s.Validate()))
		})
	}
}

// TestRoutingProblemValues: each problem of a router or splitter with a value names it.
func TestRoutingProblemValues(t *testing.T) {
	type fv struct {
		Field string
		Value any
	}
	values := func(err error) []fv {
		var out []fv
		for _, e := range fielderr.Split(err) {
			var f *FieldError
			require.ErrorAs(t, e, &f)
			out = append(out, fv{f.Field, f.Value})
		}
		return out
	}
	var r ServiceRouter
	require.NoError(t, json.Unmarshal([]byte(`{"Kind":"x","Name":"web","Routes":[{"Match":{"HTTP":{"PathExact":"a","Methods":["get","fetch","GET"]}},"Destination":{"RetryOn":["5xx","bogus"]}}]}`), &r))
	assert.Equal(t, []fv{{"Kind", "x"}, {"Routes[0].Match.HTTP.PathExact", "a"}, {"Routes[0].Match.HTTP.Methods[1]", "fetch"},
		{"Routes[0].Match.HTTP.Methods[2]", "GET"}, {"Routes[0].Destination.RetryOn[1]", "bogus"}}, values(r.Validate()))
	var s ServiceSplitter
	require.NoError(t, json.Unmarshal([]byte(`{"Kind":"y","Name":"web","Splits":[{"Weight":60,"Service":"a"},{"Weight":30,"Service":"b"}]}`), &s))
	assert.Equal(t, []fv{{"Kind", "y"}, {"Splits", float32(90)}}, values(s.Validate()))
}

func TestDecodeRoutingStrictly(t *testing.T) {
	var r ServiceRouter
	err := json.Unmarshal([]byte(`{"Name":"web","Routes":[{"Match":{"HTTP":{"path_prefix":"/a","PathPrefix":"/b","CaseInsensitive":true}},"Destination":{"RequestTimeout":"soon","NumRetries":-1}}]}`), &r)
	assert.Equal(t, []string{
		`Routes[0].Match.HTTP: unknown field "CaseInsensitive"`,
		`Routes[0].Match.HTTP: field given twice, as "PathPrefix" and "path_prefix"`,
		`Routes[0].Destination.RequestTimeout: "soon" is not a duration such as "5s"`,
		`Routes[0].Destination.NumRetries: must be a whole number, got the number -1`,
	}, problemLines(err))
	var s ServiceSplitter
	err = json.Unmarshal([]byte(`{"Name":"web","Splits":[{"Weight":"50"},{"Weight":1e39}]}`), &s)
	assert.Equal(t, []string{`Splits[0].Weight: must be a number, got the string "50"`, `Splits[1].Weight: the number 1e39 is out of range for a weight`}, problemLines(err))
	require.NoError(t, json.Unmarshal([]byte(`{"name":"web","routes":[{"destination":{"request_timeout":"2s","idle_timeout":1000000000,"retry_on_status_codes":[503]}}]}`), &r))
	d := r.Routes[0].Destination
	assert.Equal(t, "2s", d.RequestTimeout.String())
	assert.Equal(t, "1s", d.IdleTimeout.String())
	assert.Equal(t, []uint32{503}, d.RetryOnStatusCodes)
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"RequestTimeout":"2s","IdleTimeout":"1s","RetryOnStatusCodes":[503]}`, string(b), "durations as Consul writes them")
}

// routed is web's router, api's splitter and api's nested splitter, as the examples use.
func routed(t testing.TB) Entries {
	return Entries{
		Routers: mustRouters(t, `{"Kind":"service-router","Name":"web","Routes":[
			{"Match":{"HTTP":{"PathPrefix":"/api"}},"Destination":{"Service":"api"}},
			{"Match":{"HTTP":{"Header":[{"Name":"x-canary","Present":true}]}},"Destination":{"ServiceSubset":"canary"}}]}`),
		Splitters: mustSplitters(t, `[{"Kind":"service-splitter","Name":"api","Splits":[{"Weight":90,"ServiceSubset":"v1"},{"Weight":10,"Service":"api-next"}]},
			{"Kind":"service-splitter","Name":"api-next","Splits":[{"Weight":33.33,"ServiceSubset":"v2"},{"Weight":66.67,"ServiceSubset":"v3"}]}]`),
		Resolvers: []ServiceResolver{{Name: "api", Subsets: map[string]Subset{"v1": {}}}, {Name: "api-next", Subsets: map[string]Subset{"v2": {}, "v3": {}}},
			{Name: "web", Subsets: map[string]Subset{"canary": {}}}},
		DefaultProtocol: "http",
	}
}

func TestCompileGraph(t *testing.T) {
	c := compileOK(t, webReq(), routed(t))
	assert.Equal(t, "router:web.default.default", c.StartNode)
	assert.Equal(t, "web.default.default.dc1", c.Start, "the catch-all's target")
	assert.Equal(t, "http", c.Protocol)
	assert.False(t, c.Default)
	assert.ElementsMatch(t, []string{"router:web.default.default", "splitter:api.default.default", "resolver:v1.api.default.default.dc1",
		"resolver:v2.api-next.default.default.dc1", "resolver:v3.api-next.default.default.dc1", "resolver:canary.web.default.default.dc1",
		"resolver:web.default.default.dc1"}, keys(c.Nodes), "the nested splitter is flattened away")
	var splits []string
	for _, s := range c.Nodes["splitter:api.default.default"].Splits {
		splits = append(splits, fmt.Sprintf("%v %s", s.Weight, s.NextNode))
	}
	assert.Equal(t, []string{"90 resolver:v1.api.default.default.dc1", "3.33 resolver:v2.api-next.default.default.dc1",
		"6.67 resolver:v3.api-next.default.default.dc1"}, splits, "10 × 33.33 / 100 and 10 × 66.67 / 100, rounded again")
	assert.Len(t, c.Targets, 5)

	one := compileOK(t, webReq(), Entries{})
	assert.True(t, one.Default, "no entries: Consul's default chain")
	assert.Equal(t, "resolver:web.default.default.dc1", one.StartNode)
	assert.True(t, one.Nodes[one.StartNode].Resolver.Default)
	set := compileOK(t, webReq(), Entries{Resolvers: []ServiceResolver{{Name: "web", Meta: map[string]string{"a": "b"}}}})
	assert.True(t, set.Default, "a resolver that changes nothing is a default one, as Consul's IsDefault says")
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCompileRoutingErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Entries
		want string
		is   error
	}{
		{"routing on tcp", Entries{Routers: []ServiceRouter{{Name: "web"}}},
			`discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior`, errRoutingProtocol},
		{"splitters in a cycle", Entries{DefaultProtocol: "http", Splitters: []ServiceSplitter{
			{Name: "web", Splits: []ServiceSplit{{Weight: 100, Service: "api"}}}, {Name: "api", Splits: []ServiceSplit{{Weight: 100, Service: "web"}}}}},
			`detected circular reference: [splitter:web.default.default -> splitter:api.default.default -> splitter:web.default.default]`, errCircularReference},
		{"a split to an http2 service on an http chain", Entries{DefaultProtocol: "http", Protocols: map[exports.ServiceName]string{{Name: "api"}: "http2"},
			Splitters: []ServiceSplitter{{Name: "web", Splits: []ServiceSplit{{Weight: 50}, {Weight: 50, Service: "api"}}}}},
			`discovery chain "web" uses inconsistent protocols; service "api" has "http2" which is not "http"`, ErrProtocolMismatch},
		{"a route to an unknown subset", Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{{Destination: &ServiceRouteDestination{ServiceSubset: "v9"}}}}}},
			`Routes[0] of service-router default/default/web: service "web" does not have a subset named "v9"`, errUnknownSubset},
		{"a split to an unknown subset", Entries{DefaultProtocol: "http", Splitters: []ServiceSplitter{{Name: "web", Splits: []ServiceSplit{{Weight: 50}, {Weight: 50, ServiceSubset: "v2"}}}}},
			`Splits[1] of service-splitter default/default/web: service "web" does not have a subset named "v2"`, errUnknownSubset},
		{"the catch-all to a redirect that does not resolve", Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web"}},
			Resolvers: []ServiceResolver{{Name: "web", Redirect: &Redirect{Service: "db", ServiceSubset: "x"}}}},
			`catch-all of service-router default/default/web: service "db" does not have a subset named "x"`, errUnknownSubset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(webReq(), tc.e)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, errors.Is(err, tc.is))
		})
	}
	_, err := Compile(webReq(), Entries{Routers: []ServiceRouter{{Name: "web"}, {Name: "web", Namespace: "default"}}, Splitters: []ServiceSplitter{{Name: "api"}}})
	assert.Equal(t, []string{"Routers[1] (default/default/web): duplicate of Routers[0]; one router per service",
		"Splitters[0] (default/default/api): Splits: no splits configured"}, problemLines(err))
}

// TestSplitterProtocol: a splitter records no protocol, so a chain whose splitter sends every
// request to http2 services is http2, and says the service's own is not.
func TestSplitterProtocol(t *testing.T) {
	c := compileOK(t, webReq(), Entries{DefaultProtocol: "http", Protocols: map[exports.ServiceName]string{{Name: "api"}: "http2"},
		Splitters: []ServiceSplitter{{Name: "web", Splits: []ServiceSplit{{Weight: 100, Service: "api"}}}}})
	assert.Equal(t, "http2", c.Protocol)
	assert.Equal(t, "http", c.ServiceProtocol)
	require.Len(t, c.Findings(), 1)
	assert.Equal(t, SplitProtocolDiffers, c.Findings()[0].Code)
	assert.Equal(t, "service-splitter default/default/web", c.Findings()[0].Path)
}

func TestLintFindings(t *testing.T) {
	e := Entries{DefaultProtocol: "http", Routers: mustRouters(t, `{"Name":"web","Routes":[
		{"Match":{"HTTP":{"PathPrefix":"/api","Methods":["GET","POST"]}}},
		{"Match":{"HTTP":{"PathPrefix":"/api/v2","Methods":["GET"]}}},
		{"Match":{"HTTP":{"PathExact":"/api"}}},
		{"Match":{"HTTP":{"PathRegex":"/x.*","Header":[{"Name":"a","Exact":"1"}]}}},
		{"Match":{"HTTP":{"PathRegex":"/x.*","Header":[{"Name":"a","Exact":"1"}]}}},
		{"Match":{"HTTP":{"PathExact":"/b","Header":[{"Name":"a","Exact":"2"}]}}},
		{},
		{"Match":{"HTTP":{"PathExact":"/c"}}}]}`),
		Splitters: []ServiceSplitter{{Name: "web", Splits: []ServiceSplit{{Weight: 66.666, ServiceSubset: "a"}, {Weight: 33.333, ServiceSubset: "b"}}}},
		Resolvers: []ServiceResolver{{Name: "web", Subsets: map[string]Subset{"a": {}, "b": {}, "c": {}}}}}
	c := compileOK(t, webReq(), e)
	var got []string
	for _, f := range c.Findings() {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		`WARNING RouteUnreachable service-router default/default/web: Routes[1]: no request can reach this route: Routes[0] before it matches every request it matches`,
		`WARNING RouteUnreachable service-router default/default/web: Routes[4]: no request can reach this route: Routes[3] before it matches every request it matches`,
		`WARNING RouteUnreachable service-router default/default/web: Routes[7]: no request can reach this route: Routes[6] before it matches every request it matches`,
		`NOTE SplitWeightsRounded service-splitter default/default/web: the weights sum to 100 only once each is rounded to 0.01, as Consul rounds them: 66.67, 33.33`,
	}, got, "Routes[2] is for every method, Routes[5] for another header")
}

func TestExplainRequest(t *testing.T) {
	e := Entries{DefaultProtocol: "http", Routers: mustRouters(t, `{"Name":"web","Routes":[
		{"Match":{"HTTP":{"PathRegex":"/users/[0-9]+"}},"Destination":{"Service":"users"}},
		{"Match":{"HTTP":{"PathPrefix":"/api","Header":[{"Name":"x-env","Exact":"prod","Invert":true}]}},"Destination":{"Service":"staging"}},
		{"Match":{"HTTP":{"Header":[{"Name":"x-debug","Present":true,"Invert":true}],"Methods":["POST"],"QueryParam":[{"Name":"v","Regex":"[0-9]"}]}},"Destination":{"Service":"writer"}}]}`)}
	c := compileOK(t, webReq(), e)
	for _, tc := range []struct {
		line   string
		header map[string]string
		want   string // the target, or the route taken
	}{
		{"GET /users/42", nil, "users.default.default.dc1"},
		{"GET /users/42/x", nil, "web.default.default.dc1"},
		{"GET /api", map[string]string{"X-Env": "dev"}, "staging.default.default.dc1"},
		{"GET /api", map[string]string{"x-env": "prod"}, "web.default.default.dc1"},
		{"GET /api", nil, "web.default.default.dc1"}, // an absent header does not match an inverted exact
		{"POST /x?v=7", nil, "writer.default.default.dc1"},
		{"POST /x?v=77", nil, "web.default.default.dc1"},
		{"POST /x?v=7", map[string]string{"x-debug": ""}, "web.default.default.dc1"},
		{"PUT /x?v=7", nil, "web.default.default.dc1"},
	} {
		r, err := ParseHTTPRequest(tc.line)
		require.NoError(t, err)
		r.Header = tc.header
		x, err := c.ExplainRequest(r)
		require.NoError(t, err)
		require.Len(t, x.Legs, 1, tc.line)
		assert.Equal(t, tc.want, x.Legs[0].Target, "%s %v:\n%s", tc.line, tc.header, x)
	}
	field := func(err error) string {
		var f *FieldError
		require.ErrorAs(t, err, &f)
		return f.Field
	}
	for _, bad := range []string{"GET", "GET api", "/api", "GET /a b", "GET /a?%zz"} {
		_, err := ParseHTTPRequest(bad)
		assert.ErrorIs(t, err, errHTTPRequest, bad)
		assert.Equal(t, "line", field(err), bad)
	}
	r, err := ParseHTTPRequest("GET /a", "x-env: canary ", "X-Trace:1")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"x-env": "canary", "X-Trace": "1"}, r.Header)
	for _, bad := range []string{"x-env canary", ": v", "x env: v"} {
		_, err := ParseHTTPRequest("GET /a", "x: 1", bad)
		assert.ErrorIs(t, err, errHTTPRequest, bad)
		assert.Equal(t, "headers[1]", field(err), bad)
	}
	_, err = c.ExplainRequest(HTTPRequest{Method: "GET", Path: "a"})
	assert.Equal(t, "Path", field(err))
	c = compileOK(t, webReq(), Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{
		{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathPrefix: "/q", QueryParam: []ServiceRouteHTTPMatchQueryParam{{Name: "a", Present: true}, {Name: "v", Regex: "(("}}}}},
		{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{Header: []ServiceRouteHTTPMatchHeader{{Name: "x", Present: true}, {Name: "y", Regex: "(("}}}}}}}}})
	_, err = c.ExplainRequest(HTTPRequest{Method: "GET", Path: "/q", Query: map[string]string{"a": "", "v": "1"}})
	assert.ErrorContains(t, err, `router:web.default.default: Routes[0].Match.HTTP.QueryParam[1].Regex: "((" is not an RE2 expression`)
	_, err = c.ExplainRequest(HTTPRequest{Method: "GET", Path: "/", Header: map[string]string{"x": "", "y": "1"}})
	assert.ErrorContains(t, err, `router:web.default.default: Routes[1].Match.HTTP.Header[1].Regex: "((" is not an RE2 expression`)
	c = compileOK(t, webReq(), Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathRegex: "(("}}}}}}})
	_, err = c.ExplainRequest(HTTPRequest{Method: "GET", Path: "/"})
	assert.ErrorContains(t, err, `router:web.default.default: Routes[0].Match.HTTP.PathRegex: "((" is not an RE2 expression meshscope can evaluate`)
}

func TestGraphRendering(t *testing.T) {
	c := compileOK(t, webReq(), routed(t))
	g := c.Graph()
	assert.True(t, strings.HasPrefix(g, "chain default/default/web (http), start router:web.default.default\nrouter:web.default.default\n  Routes[0] PathPrefix /api -> splitter:api.default.default\n"), g)
	assert.Contains(t, g, "  3.33% -> resolver:v2.api-next.default.default.dc1")
	dot := c.DOT()
	assert.Contains(t, dot, `"router:web.default.default" -> "resolver:canary.web.default.default.dc1" [label="Routes[1]\nheader x-canary present"];`)
	assert.Equal(t, `"a\\b\"c\nd"`, dotQuote("a\\b\"c\nd"))
	assert.Equal(t, "chain <nil>", (*Chain)(nil).Graph())
}

// TestHeaderMerge holds the merge of header changes to MergeParent's: the child's request
// changes win, the parent's response changes win, removals are not repeated, and the merges
// Consul 1.16.0 panics on are said.
func TestHeaderMerge(t *testing.T) {
	parent := ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Set: map[string]string{"a": "p"}, Remove: []string{"x"}},
		ResponseHeaders: &HTTPHeaderModifiers{Add: map[string]string{"r": "p"}, Set: map[string]string{}}}
	child := ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Set: map[string]string{"a": "c", "b": "c"}, Remove: []string{"x", "y"}},
		ResponseHeaders: &HTTPHeaderModifiers{Add: map[string]string{"r": "c"}, Set: map[string]string{"s": "c"}}}
	got, panics := child.underParent(&parent)
	assert.False(t, panics)
	assert.Equal(t, &HTTPHeaderModifiers{Set: map[string]string{"a": "c", "b": "c"}, Remove: []string{"x", "y"}}, got.RequestHeaders)
	assert.Equal(t, &HTTPHeaderModifiers{Add: map[string]string{"r": "p"}, Set: map[string]string{"s": "c"}}, got.ResponseHeaders)
	_, panics = ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Add: map[string]string{"a": "1"}}}.underParent(&ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Remove: []string{"z"}}})
	assert.True(t, panics, "a parent with only Remove above a child that adds: a nil Add map")
	_, panics = ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Add: map[string]string{"a": "1"}}}.underParent(&ServiceSplit{RequestHeaders: &HTTPHeaderModifiers{Add: map[string]string{}, Remove: []string{"z"}}})
	assert.False(t, panics, "an empty Add map is not a nil one")
}

// TestChainJSON: json.Marshal writes Consul's CompiledDiscoveryChain.
func TestChainJSON(t *testing.T) {
	e := routed(t)
	e.Resolvers[2].ConnectTimeout, e.Resolvers[2].RequestTimeout = 2e9, 3e9
	c := compileOK(t, webReq(), e)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "web", got["ServiceName"])
	assert.Equal(t, "default", got["Namespace"])
	nodes := got["Nodes"].(map[string]any)
	assert.Equal(t, map[string]any{"Type": "resolver", "Name": "web.default.default.dc1",
		"Resolver": map[string]any{"ConnectTimeout": "2s", "RequestTimeout": 3e9, "Target": "web.default.default.dc1"}}, nodes["resolver:web.default.default.dc1"])
	split := nodes["splitter:api.default.default"].(map[string]any)["Splits"].([]any)[1]
	assert.Equal(t, map[string]any{"Definition": map[string]any{"Weight": 33.33, "ServiceSubset": "v2"}, "Weight": 3.33,
		"NextNode": "resolver:v2.api-next.default.default.dc1"}, split)
	target := got["Targets"].(map[string]any)["v1.api.default.default.dc1"]
	assert.Equal(t, map[string]any{"ID": "v1.api.default.default.dc1", "Service": "api", "ServiceSubset": "v1", "Namespace": "default",
		"Partition": "default", "Datacenter": "dc1", "ConnectTimeout": "5s", "Subset": map[string]any{},
		"SNI": "v1.api.default.dc1.internal." + td, "Name": "v1.api.default.dc1.internal." + td}, target)
}

// TestTooManySplits: splitters nested twenty deep, each splitting twice to the next, would
// flatten into a million splits; Compile refuses them instead.
func TestTooManySplits(t *testing.T) {
	var ss []ServiceSplitter
	for i := range 20 {
		next := fmt.Sprintf("s%d", i+1)
		ss = append(ss, ServiceSplitter{Name: fmt.Sprintf("s%d", i), Splits: []ServiceSplit{
			{Weight: 50, Service: next, RequestHeaders: &HTTPHeaderModifiers{}}, {Weight: 50, Service: next, ResponseHeaders: &HTTPHeaderModifiers{}}}})
	}
	_, err := Compile(Request{Service: exports.ServiceName{Name: "s0"}, Datacenter: "dc1", TrustDomain: td}, Entries{Splitters: ss, DefaultProtocol: "http"})
	assert.ErrorIs(t, err, errTooManySplits)
}

// TestPeerExportRouting: a route or split that leaves its entry's partition makes the chain
// unsafe to export to a peer, in Consul's words; one to the entry's own partition, spelt out,
// does not.
func TestPeerExportRouting(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Entries
		want string
	}{
		{"a route to another partition", Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{
			{Destination: &ServiceRouteDestination{Service: "api", Partition: "ap2"}}}}}},
			`peer exported service "web" contains cross-partition route destination`},
		{"a split to another partition, in a nested splitter", Entries{DefaultProtocol: "http", Splitters: []ServiceSplitter{
			{Name: "web", Splits: []ServiceSplit{{Weight: 100, Service: "api"}}},
			{Name: "api", Splits: []ServiceSplit{{Weight: 50}, {Weight: 50, Service: "api", Partition: "ap2"}}}}},
			`peer exported service "web" contains cross-partition split destination`},
		{"the default partition, spelt out", Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{
			{Destination: &ServiceRouteDestination{Service: "api", Partition: "default"}}}}}}, ""},
		{"a route checked before a resolver", Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{
			{Destination: &ServiceRouteDestination{Service: "api", Partition: "ap2"}}}}},
			Resolvers: []ServiceResolver{{Name: "web", Redirect: &Redirect{Datacenter: "dc2"}}}},
			`peer exported service "web" contains cross-partition route destination`},
		{"a resolver a split reaches", Entries{DefaultProtocol: "http", Splitters: []ServiceSplitter{{Name: "web", Splits: []ServiceSplit{{Weight: 100, Service: "api"}}}},
			Resolvers: []ServiceResolver{{Name: "api", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2"}}}}}},
			`peer exported service "web" contains cross-datacenter failover`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(webReq(), tc.e)
			require.NoError(t, err)
			got := ""
			if err := c.CheckPeerExport(); err != nil {
				got = err.Error()
				assert.ErrorIs(t, err, ErrPeerExport)
			}
			if tc.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tc.want)
			}
		})
	}
}

// TestRoutingChainIsTheCallers: changing a chain's nodes — route and split definitions,
// their header changes — or the entries given to NewCompiler changes no later chain, and
// chains compile concurrently from one Compiler.
func TestRoutingChainIsTheCallers(t *testing.T) {
	e := routed(t)
	e.Splitters[1].Splits[0].RequestHeaders = &HTTPHeaderModifiers{Add: map[string]string{"a": "1"}, Remove: []string{"r"}}
	e.Routers[0].Routes[0].Match.HTTP.Methods = []string{"get"}
	cc, err := NewCompiler(e)
	require.NoError(t, err)
	before := compileOK(t, webReq(), e)
	e.Splitters[1].Splits[0].RequestHeaders.Add["a"] = "evil"
	e.Routers[0].Routes[0].Match.HTTP.Methods[0] = "evil"
	e.Routers[0].Routes[0].Destination.Service = "evil"
	c, err := cc.Compile(webReq())
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(before, c, cmpopts.IgnoreUnexported(Chain{})), "changing the entries after NewCompiler changed the chain")
	for _, n := range c.Nodes {
		for _, r := range n.Routes {
			r.Definition.Destination.Service = "evil"
			if r.Definition.Match.HTTP.Methods != nil {
				r.Definition.Match.HTTP.Methods[0] = "evil"
			}
		}
		for _, s := range n.Splits {
			if h := s.Definition.RequestHeaders; h != nil {
				h.Add["a"], h.Remove[0] = "evil", "evil"
			}
			s.Definition.Weight = -1
		}
		if n.Resolver != nil {
			n.Resolver.Target = "evil"
		}
	}
	done := make(chan *Chain)
	for range 4 {
		go func() {
			c, err := cc.Compile(webReq())
			if err != nil {
				t.Error(err)
			}
			done <- c
		}()
	}
	for range 4 {
		again := <-done
		require.Empty(t, cmp.Diff(before, again, cmpopts.IgnoreUnexported(Chain{})), "changing a chain changed the next one")
	}
}

package chain

import (
	"encoding/json"
	"errors"
	"testing"
)

func FuzzLoadRouters(f *testing.F) {
	f.Add([]byte(`{"Kind":"service-router","Name":"web","Routes":[{"Match":{"HTTP":{"PathPrefix":"/api","Methods":["get"],"Header":[{"Name":"x","Regex":"a.*","Invert":true}],"QueryParam":[{"Name":"q","Present":true}]}},"Destination":{"Service":"api","RequestTimeout":"2s","IdleTimeout":5,"NumRetries":3,"RetryOn":["5xx"],"RetryOnStatusCodes":[503],"RequestHeaders":{"Add":{"a":"b"},"Remove":["c"]}}}]}`))
	f.Add([]byte(`[{"name":"w","routes":[{"match":{"http":{"path_exact":"x","path_regex":"("}},"destination":{"prefix_rewrite":"/","retry_on_connect_failure":true,"service_subset":"v1"}}]}] {"Name":"a"}`))
	f.Add([]byte(`{"Name":"w","Routes":[{"Match":{"HTTP":{"PathPrefix":"/","path_prefix":"/"}}},null,1,{"Match":{"HTTP":{"Methods":["FETCH","GET","get"]}}}],"Bogus":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := loadRouters(data)
		if err != nil {
			return
		}
		for i := range rs {
			if err := rs[i].Validate(); err != nil {
				t.Fatalf("accepted an invalid router: %v", err)
			}
			b, err := json.Marshal(rs[i])
			if err != nil {
				t.Fatal(err)
			}
			var back ServiceRouter
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("the router's own JSON does not read back: %v: %s", err, b)
			}
		}
	})
}

func FuzzLoadSplitters(f *testing.F) {
	f.Add([]byte(`{"Kind":"service-splitter","Name":"web","Splits":[{"Weight":33.335,"Service":"a"},{"Weight":66.665,"ServiceSubset":"v1","RequestHeaders":{"Set":{}},"ResponseHeaders":{"Remove":["x"]}}]}`))
	f.Add([]byte(`[{"name":"w","splits":[{"weight":100,"service_subset":"v1","request_headers":{"add":{"a":"1"}}}]},{"Name":"x","Splits":[]}]`))
	f.Add([]byte(`{"Name":"w","Splits":[{"Weight":"50"},{"Weight":1e39},{"Weight":-50,"Service":"b"},{"Weight":150}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ss, err := loadSplitters(data)
		if err != nil {
			return
		}
		for i := range ss {
			if err := ss[i].Validate(); err != nil {
				t.Fatalf("accepted an invalid splitter: %v", err)
			}
		}
	})
}

// FuzzExplainRequest holds ExplainRequest, on a chain with every kind of matcher, to a leg
// of weights summing to 100 for any request line ParseHTTPRequest accepts, and to an
// errHTTPRequest for any it refuses.
func FuzzExplainRequest(f *testing.F) {
	f.Add("GET /users/42?v=7", "x-env", "prod")
	f.Add("POST /api", "X-DEBUG", "")
	f.Add("GET /a?%zz", "", "")
	f.Add("GET", "", "")
	e := Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web", Routes: []ServiceRoute{
		{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathRegex: "/users/[0-9]+"}}, Destination: &ServiceRouteDestination{Service: "users"}},
		{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathPrefix: "/api", Header: []ServiceRouteHTTPMatchHeader{{Name: "x-env", Suffix: "od", Invert: true}}}}},
		{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{Methods: []string{"POST"}, QueryParam: []ServiceRouteHTTPMatchQueryParam{{Name: "v", Regex: "[0-9]"}}}}},
	}}}, Splitters: []ServiceSplitter{{Name: "users", Splits: []ServiceSplit{{Weight: 50, Service: "a"}, {Weight: 50, Service: "b"}}}}}
	c, err := Compile(webReq(), e)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line, name, value string) {
		r, err := ParseHTTPRequest(line)
		if err != nil {
			if !errors.Is(err, errHTTPRequest) {
				t.Fatalf("%q: %v", line, err)
			}
			return
		}
		if name != "" {
			r.Header = map[string]string{name: value}
		}
		x, err := c.ExplainRequest(r)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		sum := float32(0)
		for _, l := range x.Legs {
			sum += l.Weight
		}
		if sum != 100 || x.Route < 0 || !x.Routes[len(x.Routes)-1].Matched {
			t.Fatalf("%q: %s", line, x)
		}
	})
}

package chain_test

import (
	"encoding/json"
	"fmt"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// A router sends /api to the api service and requests with an x-canary header to web's canary
// subset; every other request takes the catch-all to web itself.
func ExampleCompile_router() {
	// `consul config read -kind service-router -name web` output unmarshals directly.
	var router chain.ServiceRouter
	err := json.Unmarshal([]byte(`{
		"Kind": "service-router",
		"Name": "web",
		"Routes": [
			{"Match": {"HTTP": {"PathPrefix": "/api", "Methods": ["get", "post"]}}, "Destination": {"Service": "api"}},
			{"Match": {"HTTP": {"Header": [{"Name": "x-canary", "Present": true}]}}, "Destination": {"ServiceSubset": "canary"}}
		]
	}`), &router)
	if err != nil {
		panic(err)
	}
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Routers: []chain.ServiceRouter{router}, Resolvers: []chain.ServiceResolver{{Name: "web", Subsets: map[string]chain.Subset{"canary": {}}}}, DefaultProtocol: "http"},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Graph())
	// Output:
	// chain default/default/web (http), start router:web.default.default
	// router:web.default.default
	//   Routes[0] PathPrefix /api, methods GET|POST -> resolver:api.default.default.dc1
	//   Routes[1] header x-canary present -> resolver:canary.web.default.default.dc1
	//   catch-all PathPrefix / -> resolver:web.default.default.dc1
	// resolver:api.default.default.dc1
	//   target api.default.default.dc1 (default resolver)
	// resolver:canary.web.default.default.dc1
	//   target canary.web.default.default.dc1
	// resolver:web.default.default.dc1
	//   target web.default.default.dc1
}

// A splitter that sends a tenth of api's requests to api-next, whose own splitter shares them
// between two subsets: the chain holds one splitter node, the nested weights multiplied and
// rounded again as Consul rounds them (10 × 33.33 / 100 is 3.33).
func ExampleCompile_nestedSplitter() {
	var splitters []chain.ServiceSplitter
	err := json.Unmarshal([]byte(`[
		{"Kind": "service-splitter", "Name": "api", "Splits": [
			{"Weight": 90},
			{"Weight": 10, "Service": "api-next", "RequestHeaders": {"Set": {"x-next": "1"}}}]},
		{"Kind": "service-splitter", "Name": "api-next", "Splits": [
			{"Weight": 33.33, "ServiceSubset": "blue"},
			{"Weight": 66.67, "ServiceSubset": "green"}]}
	]`), &splitters)
	if err != nil {
		panic(err)
	}
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "api"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Splitters: splitters, DefaultProtocol: "http",
			Resolvers: []chain.ServiceResolver{{Name: "api-next", Subsets: map[string]chain.Subset{"blue": {}, "green": {}}}}},
	)
	if err != nil {
		panic(err)
	}
	for _, s := range c.Nodes[c.StartNode].Splits {
		fmt.Printf("%5.2f%% %s %v\n", s.Weight, s.NextNode, s.Definition.RequestHeaders)
	}
	// Output:
	// 90.00% resolver:api.default.default.dc1 <nil>
	//  3.33% resolver:blue.api-next.default.default.dc1 &{map[] map[x-next:1] []}
	//  6.67% resolver:green.api-next.default.default.dc1 &{map[] map[x-next:1] []}
}

// Explaining a request: which route it takes, and where its shares go.
func ExampleChain_ExplainRequest() {
	var router chain.ServiceRouter
	err := json.Unmarshal([]byte(`{"Kind": "service-router", "Name": "web", "Routes": [
		{"Match": {"HTTP": {"PathExact": "/login"}}, "Destination": {"Service": "auth"}},
		{"Match": {"HTTP": {"PathRegex": "/api/v[0-9]+/.*", "Header": [{"Name": "x-env", "Exact": "prod", "Invert": true}]}}, "Destination": {"Service": "api"}}]}`), &router)
	if err != nil {
		panic(err)
	}
	e := chain.Entries{Routers: []chain.ServiceRouter{router}, DefaultProtocol: "http",
		Splitters: []chain.ServiceSplitter{{Name: "api", Splits: []chain.ServiceSplit{{Weight: 80}, {Weight: 20, Service: "api-next"}}}}}
	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain}, e)
	if err != nil {
		panic(err)
	}
	r, err := chain.ParseHTTPRequest("GET /api/v2/users?page=3", "X-Env: staging")
	if err != nil {
		panic(err)
	}
	x, err := c.ExplainRequest(r)
	if err != nil {
		panic(err)
	}
	fmt.Println(x)
	// Output:
	// GET /api/v2/users
	//   router:web.default.default
	//     Routes[0]: no: path "/api/v2/users" is not "/login"
	//     Routes[1]: matches (PathRegex /api/v[0-9]+/.*, header x-env not exact "prod")
	//   splitter:api.default.default
	//     80% -> api.default.default.dc1
	//     20% -> api-next.default.default.dc1
}

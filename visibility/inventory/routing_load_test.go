package inventory

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const routingList = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z", generation: 3}
  spec:
    hosts: [reviews, reviews.example.com]
    gateways: [mesh, istio-system/ingress]
    exportTo: [".", web]
    http:
    - name: v2-for-testers
      match:
      - name: testers
        sourceNamespace: web
        uri: {prefix: /api}
        scheme: {exact: https}
        method: {regex: "GET|HEAD"}
        authority: {exact: reviews.example.com}
        headers: {end-user: {exact: jason}}
        withoutHeaders: {x-debug: {regex: "*"}}
        queryParams: {v: {exact: "2"}}
        ignoreUriCase: true
        port: 9080
        sourceLabels: {app: web}
        gateways: [mesh]
        statPrefix: testers
      route:
      - destination: {host: reviews, subset: v2, port: {number: 9080}}
        weight: 75
        headers: {request: {set: {x-route: v2}}}
      - destination: {host: reviews, subset: v1}
        weight: 25
      mirror: {host: shadow.shop.svc.cluster.local}
      mirrorPercentage: {value: 10}
      timeout: 2s
      retries: {attempts: 3, perTryTimeout: 1s}
    - delegate: {name: reviews-legacy, namespace: legacy}
    tls:
    - match: [{sniHosts: [reviews.example.com], port: 443}]
      route: [{destination: {host: reviews.shop.svc.cluster.local, port: {number: 443}}}]
    tcp:
    - match: [{port: 3306}]
      route: [{destination: {host: db.shop.svc.cluster.local}, weight: 100}]
  status: {observedGeneration: 3, conditions: [{type: Reconciled, status: "True"}]}
- apiVersion: networking.istio.io/v1alpha3
  kind: VirtualService
  metadata: {name: reviews-legacy, namespace: legacy}
  spec:
    http:
    - route: [{destination: {host: reviews.legacy.svc.cluster.local}}]
      mirrors: [{destination: {host: a.example.com}, percentage: {value: 5}}, {destination: {host: b.example.com, subset: v1}}]
- apiVersion: networking.istio.io/v1beta1
  kind: DestinationRule
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-02T00:00:00Z"}
  spec:
    host: reviews
    exportTo: ["."]
    workloadSelector: {matchLabels: {app: web}}
    trafficPolicy: {connectionPool: {tcp: {maxConnections: 100}}, loadBalancer: {simple: ROUND_ROBIN}}
    subsets:
    - name: v1
      labels: {version: v1}
    - name: v2
      labels: {version: v2}
      trafficPolicy: {loadBalancer: {consistentHash: {httpHeaderName: x-user}}}
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: all, namespace: shop}
  spec: {host: "*.shop.svc.cluster.local", workloadSelector: {}}
- {apiVersion: example.com/v1, kind: VirtualService, metadata: {name: other, namespace: shop}, spec: {anything: goes}}
- {apiVersion: example.com/v1, kind: DestinationRule, metadata: {name: other, namespace: shop}, spec: {anything: goes}}
`

// TestLoadRouting: every field of a VirtualService and a DestinationRule that the
// inventory holds is read, the others accepted; a VirtualService or DestinationRule of
// another API group is skipped.
func TestLoadRouting(t *testing.T) {
	inv, err := Load([]byte(routingList), "")
	require.NoError(t, err)
	require.NoError(t, inv.Validate())
	assert.Equal(t, []VirtualService{
		{Namespace: "shop", Name: "reviews", CreationTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
			Hosts: []string{"reviews", "reviews.example.com"}, Gateways: []string{"mesh", "istio-system/ingress"}, ExportTo: []string{".", "web"},
			HTTP: []HTTPRoute{
				{Name: "v2-for-testers",
					Match: []HTTPMatch{{Name: "testers", SourceNamespace: "web", URI: &StringMatch{Prefix: "/api"}, Scheme: &StringMatch{Exact: "https"},
						Method: &StringMatch{Regex: "GET|HEAD"}, Authority: &StringMatch{Exact: "reviews.example.com"},
						Headers: map[string]StringMatch{"end-user": {Exact: "jason"}}, WithoutHeaders: map[string]StringMatch{"x-debug": {Regex: "*"}},
						QueryParams: map[string]StringMatch{"v": {Exact: "2"}}, IgnoreURICase: true, Port: 9080,
						SourceLabels: map[string]string{"app": "web"}, Gateways: []string{"mesh"}}},
					Route:  []Destination{{Host: "reviews", Subset: "v2", Port: 9080, Weight: 75}, {Host: "reviews", Subset: "v1", Weight: 25}},
					Mirror: &Destination{Host: "shadow.shop.svc.cluster.local"}},
				{Delegate: &Delegate{Name: "reviews-legacy", Namespace: "legacy"}},
			},
			TLS: []L4Route{{Route: []Destination{{Host: "reviews.shop.svc.cluster.local", Port: 443}}}},
			TCP: []L4Route{{Route: []Destination{{Host: "db.shop.svc.cluster.local", Weight: 100}}}}},
		{Namespace: "legacy", Name: "reviews-legacy", HTTP: []HTTPRoute{{Route: []Destination{{Host: "reviews.legacy.svc.cluster.local"}},
			Mirrors: []Destination{{Host: "a.example.com"}, {Host: "b.example.com", Subset: "v1"}}}}},
	}, inv.VirtualServices)
	require.Len(t, inv.DestinationRules, 2)
	dr := inv.DestinationRules[0]
	assert.JSONEq(t, `{"connectionPool": {"tcp": {"maxConnections": 100}}, "loadBalancer": {"simple": "ROUND_ROBIN"}}`, string(dr.TrafficPolicy))
	assert.JSONEq(t, `{"loadBalancer": {"consistentHash": {"httpHeaderName": "x-user"}}}`, string(dr.Subsets[1].TrafficPolicy))
	dr.TrafficPolicy, dr.Subsets[1].TrafficPolicy = nil, nil
	assert.Equal(t, DestinationRule{Namespace: "shop", Name: "reviews", CreationTime: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), Host: "reviews",
		ExportTo: []string{"."}, WorkloadSelector: map[string]string{"app": "web"},
		Subsets: []Subset{{Name: "v1", Labels: map[string]string{"version": "v1"}}, {Name: "v2", Labels: map[string]string{"version": "v2"}}}}, dr)
	assert.Equal(t, DestinationRule{Namespace: "shop", Name: "all", Host: "*.shop.svc.cluster.local", WorkloadSelector: map[string]string{}},
		inv.DestinationRules[1], "workloadSelector: {} is a selector without labels")
	assert.Equal(t, []string{"legacy", "shop"}, inv.NamespaceNames())
	var back DestinationRule
	b, err := json.Marshal(inv.DestinationRules[0])
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &back))
	assert.JSONEq(t, string(inv.DestinationRules[0].TrafficPolicy), string(back.TrafficPolicy), "a traffic policy is kept as JSON")
}

// routingRefusals: VirtualServices and DestinationRules Load refuses, each with every line
// of the error (the object is items[1], beside its namespace). FuzzLoad starts from them.
var routingRefusals = []struct {
	name, object string
	errs         []string
}{
	// VirtualService: Istio's rules.
	{"vs: exportTo ~", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], exportTo: ["~"], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`}},
	{"vs: exportTo twice", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], exportTo: [shop, "."], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.exportTo[1]: duplicate entries in exportTo: . and current namespace shop (it repeats spec.exportTo[0], "shop")`}},
	{"vs: host * for the mesh", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: ["*"], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.hosts[0]: wildcard host * is not allowed for virtual services bound to the mesh gateway`}},
	{"vs: hosts that overlap", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: ["*.foo.com", x.foo.com, "*.com"], tcp: [{route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.hosts[1]: duplicate hosts in virtual service: *.foo.com & x.foo.com`,
			`spec.hosts[2]: duplicate hosts in virtual service: *.foo.com & *.com`,
			`spec.hosts[2]: duplicate hosts in virtual service: x.foo.com & *.com`,
		}},
	{"vs: a host that is no domain", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [a_b.com, "x.*.com", a.b.9, 10.1.2.3], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.hosts[0]: domain name "a_b.com" invalid (label "a_b" invalid)`,
			`spec.hosts[1]: domain name "*.com" invalid (label "*" invalid)`,
			`spec.hosts[2]: domain name "b.9" invalid (top level domain "9" cannot be all-numeric)`,
		}},
	{"vs: no routes", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r]}}`,
		[]string{`spec: http, tcp or tls must be provided in virtual service`}},
	{"vs: a delegate with gateways and l4 routes", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {gateways: [mesh], tls: [{route: [{destination: {host: r}}]}], tcp: [{route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.gateways: delegate virtual service must have no gateways specified`,
			`spec.tls: delegate virtual service must have no tls route specified`,
			`spec.tcp: delegate virtual service must have no tcp route specified`,
		}},
	{"vs: a delegate delegating", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {http: [{delegate: {name: x}}]}}`,
		[]string{`spec.http[0].delegate: delegate HTTP route cannot contain delegate`}},
	{"vs: a root route with a route", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{name: root, delegate: {name: x}, route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.http[0].route: root HTTP route root must not specify route`}},
	{"vs: destinations", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{route: [{destination: {host: "*", subset: v_1, port: {number: 70000}}, weight: -5}, {destination: {host: ""}, weight: 5}], mirror: {host: "a..b"}, mirrors: [{destination: {host: c}}]}]}}`,
		[]string{
			`spec.http[0].mirrors: HTTP route cannot contain both mirror and mirrors`,
			`spec.http[0].mirror.host: domain name ".b" invalid (label "" invalid)`,
			`spec.http[0].route[0].destination.host: invalid destination host *`,
			`spec.http[0].route[0].destination.subset: subset name is invalid: v_1`,
			`spec.http[0].route[0].destination.port.number: port number 70000 must be in the range 1..65535`,
			`spec.http[0].route[0].weight: weight -5 < 0`,
			`spec.http[0].route[1].destination.host: empty domain name not allowed`,
			`spec.http[0].route: total destination weight = 0`,
		}},
	{"vs: weights that sum to 0", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], tcp: [{route: [{destination: {host: a}}, {destination: {host: b}}]}], tls: [{match: [{sniHosts: [r]}]}]}}`,
		[]string{
			`spec.tls[0].route: TLS route is required`,
			`spec.tcp[0].route: total destination weight = 0`,
		}},
	{"vs: matches", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{match: [{sourceNamespace: Web_1, port: 70000, uri: {regex: "a("}, headers: {"a b": {exact: x}, "@request.auth.claims.sub": {exact: y}}, sourceLabels: {"-a": "b"}, gateways: [a/B_c]}], route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.http[0].match[0].headers["@request.auth.claims.sub"]: JWT claim based routing (key: @request.auth.claims.sub) is only supported for gateway, found no gateways: []`,
			`spec.http[0].match[0].headers["a b"]: header name a b is not a valid header name`,
			"spec.http[0].match[0].uri.regex: \"uri\": error parsing regexp: missing closing ): `a(`; Istio uses RE2 style regex-based match (https://github.com/google/re2/wiki/Syntax)",
			`spec.http[0].match[0].port: port number 70000 must be in the range 1..65535`,
			`spec.http[0].match[0].sourceLabels["-a"]: invalid tag key: "-a"`,
			`spec.http[0].match[0].gateways[0]: invalid value for gateway name: "B_c"`,
			`spec.http[0].match[0].sourceNamespace: sourceNamespace match Web_1 is invalid`,
		}},
	{"vs: empty prefixes and regexes", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{match: [{uri: {prefix: ""}, method: {prefix: ""}, headers: {a: {regex: ""}, b: null}}], route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.http[0].match[0].method.prefix: "method": prefix string match should not be empty`,
			`spec.http[0].match[0].headers["a"].regex: "headers": regex string match should not be empty`,
			`spec.http[0].match[0].headers["b"]: header match b cannot be null`,
		}},
	{"vs: gateway names", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: ["*"], gateways: [/gw, ns/, mesh, "not checked/after mesh"], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{
			`spec.gateways[0]: config namespace and gateway name cannot be empty`,
			`spec.gateways[0]: invalid value for namespace: ""`,
			`spec.gateways[1]: config namespace and gateway name cannot be empty`,
			`spec.gateways[1]: invalid value for gateway name: ""`,
			`spec.hosts[0]: wildcard host * is not allowed for virtual services bound to the mesh gateway`,
		}},
	{"vs: a gateway's host * and JWT routes are fine", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: ["*", "*.example.com"], gateways: [istio-system/ingress], http: [{match: [{headers: {"@request.auth.claims.sub": {exact: y}}}], route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.hosts[1]: duplicate hosts in virtual service: * & *.example.com`}},
	{"vs: a route item without a destination", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: ["*"], http: [{route: [{weight: 5}, null]}, null], tls: [null]}}`,
		[]string{
			`spec.tls[0]: a tls route may not be null`,
			`spec.http[0].route[0]: destination is required`,
			`spec.http[0].route[1]: weight may not be nil`,
			`spec.http[1]: http route may not be null`,
		}},
	{"vs: a wrong type keeps Istio's rules for later", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: "*", http: [{route: [{destination: {host: r, port: {number: 0}}}]}]}}`,
		[]string{
			`spec.hosts: must be a list, got the string "*"`,
			`spec.http[0].route[0].destination.port.number: port number 0 must be in the range 1..65535`,
		}},
	{"vs: another version", `{apiVersion: networking.istio.io/v2, kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{`apiVersion: "networking.istio.io/v2" is not a version Istio serves VirtualServices in (networking.istio.io/v1, networking.istio.io/v1beta1, networking.istio.io/v1alpha3)`}},
	{"vs: a misspelt field", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {host: [r], http: [{route: [{destination: {host: r}}]}]}}`,
		[]string{`spec: unknown field "host" (did you mean "hosts"?)`}},
	{"vs: a misspelt field of a header match", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{match: [{headers: {a: {exct: b}}}], route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.http[0].match[0].headers["a"]: unknown field "exct" (did you mean "exact"?)`}},
	{"vs: a string match of two kinds", `{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], http: [{match: [{uri: {exact: /a, prefix: /b}}], route: [{destination: {host: r}}]}]}}`,
		[]string{`spec.http[0].match[0].uri: exact and prefix are one of exact, prefix and regex: only one may be set`}},
	{"vs: without a namespace", `{kind: VirtualService, metadata: {name: r}, spec: {hosts: [r]}}`,
		[]string{`metadata.namespace: must be set (dump with -A so that objects carry their namespace)`}},
	{"vs: without a name", `{kind: VirtualService, metadata: {namespace: shop}, spec: {hosts: [r]}}`,
		[]string{`metadata.name: must be set`}},
	// DestinationRule.
	{"dr: a selector exported beyond", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, workloadSelector: {matchLabels: {app: a}}, exportTo: [nowhere, istio-system]}}`,
		[]string{`spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace`}},
	{"dr: a selector exported to two", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, workloadSelector: {}, exportTo: [".", web]}}`,
		[]string{`spec.exportTo: destination rule with workload selector cannot have multiple entries in exportTo`}},
	{"dr: exportTo ~ and twice", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, exportTo: ["~", ".", shop]}}`,
		[]string{
			`spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects`,
			`spec.exportTo[2]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[1], ".")`,
		}},
	{"dr: subsets", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, subsets: [{name: v1, labels: {version: "v 1"}}, {name: v1}, {labels: {a: b}}, {name: V_2}]}}`,
		[]string{
			`spec.subsets[0].labels["version"]: invalid tag value: "v 1"`,
			`spec.subsets[1].name: duplicate subset names: v1 (it repeats spec.subsets[0].name)`,
			`spec.subsets[2].name: subset name cannot be empty`,
			`spec.subsets[3].name: subset name is invalid: V_2`,
		}},
	{"dr: a null subset", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, subsets: [null]}}`,
		[]string{`spec.subsets[0]: subset may not be null`}},
	{"dr: host", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: "*x*.com"}}`,
		[]string{`spec.host: domain name "*x*.com" invalid (label "*x*" invalid)`}},
	{"dr: no host", `{kind: DestinationRule, metadata: {name: d, namespace: shop}}`,
		[]string{`spec.host: empty domain name not allowed`}},
	{"dr: a selector's labels", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, workloadSelector: {matchLabels: {"": x, "a*": b}}}}`,
		[]string{
			`spec.workloadSelector.matchLabels[""]: empty key is not supported in selector: "=x"`,
			`spec.workloadSelector.matchLabels["a*"]: wildcard is not supported in selector: "a*=b"`,
		}},
	{"dr: a selector written as a Sidecar's", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, workloadSelector: {labels: {app: a}}}}`,
		[]string{
			`spec.workloadSelector: unknown field "labels"`,
			`spec.workloadSelector: a DestinationRule's workloadSelector holds the workload's labels under matchLabels (workloadSelector: {matchLabels: {app: web}})`,
		}},
	{"dr: a traffic policy that is not an object", `{kind: DestinationRule, metadata: {name: d, namespace: shop}, spec: {host: r, trafficPolicy: [a]}}`,
		[]string{`spec.trafficPolicy: must be an object, got a list`}},
}

func TestLoadRoutingRefuses(t *testing.T) {
	for _, tc := range routingRefusals {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(routingRefusalInput(tc.object)), "")
			require.Error(t, err)
			kind := "VirtualService"
			if strings.HasPrefix(tc.name, "dr:") {
				kind = "DestinationRule"
			}
			name := "shop/r"
			if kind == "DestinationRule" {
				name = "shop/d"
			}
			switch {
			case strings.Contains(tc.name, "without a namespace"):
				name = "r"
			case strings.Contains(tc.name, "without a name"):
				name = "shop/(no name)"
			}
			var want []string
			for _, e := range tc.errs {
				want = append(want, "items[1] ("+kind+" "+name+"): "+e)
			}
			assert.Equal(t, want, strings.Split(err.Error(), "\n"))
		})
	}
}

func routingRefusalInput(object string) string {
	return "kind: List\nitems:\n- {kind: Namespace, metadata: {name: shop}}\n- " + object + "\n"
}

// TestLoadRoutingDuplicates: two VirtualServices (or DestinationRules) with one namespace
// and name are refused, by Load naming both, by Validate naming both.
func TestLoadRoutingDuplicates(t *testing.T) {
	const vs = "{kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], tcp: [{route: [{destination: {host: r}}]}]}}"
	const dr = "{kind: DestinationRule, metadata: {name: r, namespace: shop}, spec: {host: r}}"
	_, err := Load([]byte("kind: List\nitems:\n- "+vs+"\n- "+dr+"\n- "+vs+"\n- "+dr+"\n"), "")
	assert.EqualError(t, err, strings.Join([]string{
		`items[2] (VirtualService shop/r): metadata.name: a second VirtualService shop/r (the first is items[0]); which one applies would depend on document order`,
		`items[3] (DestinationRule shop/r): metadata.name: a second DestinationRule shop/r (the first is items[1]); which one applies would depend on document order`,
	}, "\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
	inv := &Inventory{
		VirtualServices:  []VirtualService{{Namespace: "shop", Name: "r", Hosts: []string{"r"}, TCP: []L4Route{{Route: []Destination{{Host: "r"}}}}}, {Namespace: "shop", Name: "r", Hosts: []string{"r"}, TCP: []L4Route{{Route: []Destination{{Host: "r"}}}}}},
		DestinationRules: []DestinationRule{{Namespace: "shop", Name: "r", Host: "r"}, {Namespace: "web", Name: "r", Host: "r"}, {Namespace: "shop", Name: "r", Host: "r"}},
	}
	err = inv.Validate()
	assert.EqualError(t, err, strings.Join([]string{
		`VirtualServices[1] (VirtualService shop/r): a second VirtualService shop/r (the first is VirtualServices[0])`,
		`DestinationRules[2] (DestinationRule shop/r): a second DestinationRule shop/r (the first is DestinationRules[0])`,
	}, "\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
}

// TestLoadRoutingNoInventory: VirtualServices and DestinationRules alone are no inventory,
// and the hint names the command that dumps them with the rest.
func TestLoadRoutingNoInventory(t *testing.T) {
	_, err := Load([]byte("kind: List\nitems:\n- {kind: VirtualService, metadata: {name: r, namespace: shop}, spec: {hosts: [r], tcp: [{route: [{destination: {host: r}}]}]}}\n- {kind: DestinationRule, metadata: {name: r, namespace: shop}, spec: {host: r}}\n"), "")
	assert.EqualError(t, err, "no inventory: found 1 DestinationRule, 1 VirtualService"+noInventoryHint)
	assert.ErrorIs(t, err, ErrNoInventory)
	_, err = Load([]byte("kind: List\nitems:\n- {kind: VirtualServce, metadata: {name: r, namespace: shop}}\n"), "")
	assert.EqualError(t, err, `items[0]: kind: unknown kind "VirtualServce" (did you mean "VirtualService"? as written, the object would be skipped)`)
}

package inventory

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSchema(t *testing.T) {
	assert.Equal(t, schema{"a": nil, "b": {"c": nil, "d": {"e": nil}}, "f": nil}, parseSchema("a b{c d{e}}\n\tf"))
	for _, bad := range []string{"a{b", "a}", "a a", "@nope"} {
		assert.Panics(t, func() { parseSchema(bad) }, bad)
	}
}

// TestLoadUnknownFields: a field the object's API does not have is an error with
// the field it resembles, naming the item and the path; every field the API has is
// accepted, used or not; objects of other kinds are not judged.
func TestLoadUnknownFields(t *testing.T) {
	for _, tc := range []struct {
		name, item string
		want       string
	}{
		{"host", `{apiVersion: networking.istio.io/v1, kind: ServiceEntry, metadata: {name: github-mirror, namespace: shop}, spec: {host: [api.github.com]}}`,
			`items[1] (ServiceEntry shop/github-mirror): spec: unknown field "host" (did you mean "hosts"?)`},
		{"resolutoin", `{kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example], resolutoin: DNS}}`,
			`items[1] (ServiceEntry shop/a): spec: unknown field "resolutoin" (did you mean "resolution"?)`},
		{"adresses", `{kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example], adresses: [10.0.0.1]}}`,
			`items[1] (ServiceEntry shop/a): spec: unknown field "adresses" (did you mean "addresses"?)`},
		{"export_to", `{kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example], export_to: ["."]}}`,
			`items[1] (ServiceEntry shop/a): spec: unknown field "export_to" (did you mean "exportTo"?)`},
		{"lables", `{apiVersion: v1, kind: Namespace, metadata: {name: payments, lables: {team: a}}}`,
			`items[1] (Namespace payments): metadata: unknown field "lables" (did you mean "labels"?)`},
		{"nested in a list", `{kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example], ports: [{number: 80, protcol: HTTP}]}}`,
			`items[1] (ServiceEntry shop/a): spec.ports[0]: unknown field "protcol" (did you mean "protocol"?)`},
		{"a Service's spec", `{apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spec: {clusterIp: 10.0.0.1}}`,
			`items[1] (Service shop/web): spec: unknown field "clusterIp" (did you mean "clusterIP"?)`},
		{"a Sidecar's egress", `{apiVersion: networking.istio.io/v1, kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {egress: [{host: ["*/*"]}]}}`,
			`items[1] (Sidecar shop/s): spec.egress[0]: unknown field "host" (did you mean "hosts"?)` + "\n" +
				`items[1] (Sidecar shop/s): spec.egress[0].hosts: sidecar: egress listener must contain at least one host`},
		{"labels straight under a workloadSelector", `{apiVersion: networking.istio.io/v1, kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {workloadSelector: {app: web}, egress: [{hosts: ["./*"]}]}}`,
			`items[1] (Sidecar shop/s): spec.workloadSelector: unknown field "app"` + "\n" +
				`items[1] (Sidecar shop/s): spec.workloadSelector: a workloadSelector holds the workload's labels under labels (workloadSelector: {labels: {app: web}}); it is not a label selector`},
		{"a workloadSelector's matchLabels", `{apiVersion: networking.istio.io/v1, kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {workloadSelector: {matchLabels: {app: web}}, egress: [{hosts: ["./*"]}]}}`,
			`items[1] (Sidecar shop/s): spec.workloadSelector: unknown field "matchLabels"` + "\n" +
				`items[1] (Sidecar shop/s): spec.workloadSelector: a workloadSelector holds the workload's labels under labels (workloadSelector: {labels: {app: web}}); it is not a label selector`},
		{"the top level", `{apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spex: {}}`,
			`items[1] (Service shop/web): (top level): unknown field "spex" (did you mean "spec"?)`},
		{"status", `{kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example]}, status: {adresses: []}}`,
			`items[1] (ServiceEntry shop/a): status: unknown field "adresses" (did you mean "addresses"?)`},
		// An apiVersion decides how a Service or a Sidecar is read: one that is not a string
		// is not taken for none (core/v1, networking.istio.io).
		{"an apiVersion that is not a string", `{apiVersion: 1, kind: Service, metadata: {name: web, namespace: shop}}`,
			`items[1] (Service shop/web): apiVersion: must be a string, got the number 1`},
		{"a Sidecar's apiVersion that is not a string", `{apiVersion: [networking.istio.io/v1], kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {egress: [{hosts: ["./*"]}]}}`,
			`items[1] (Sidecar shop/s): apiVersion: must be a string, got a list`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte("kind: List\nitems:\n- {kind: Namespace, metadata: {name: shop}}\n- "+tc.item+"\n"), "")
			assert.EqualError(t, err, tc.want)
		})
	}
}

// TestLoadAcceptsEveryAPIField: objects using fields meshscope does not read, as
// the API server and controllers write them, load.
func TestLoadAcceptsEveryAPIField(t *testing.T) {
	_, err := Load([]byte(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: shop
    uid: 0b5e7c2a-1d2e-4f00-8000-000000000001
    resourceVersion: "12"
    managedFields: [{manager: kubectl, operation: Update, apiVersion: v1, time: "2026-01-01T00:00:00Z", fieldsType: FieldsV1, fieldsV1: {"f:metadata": {"f:labels": {".": {}}}}}]
    ownerReferences: [{apiVersion: v1, kind: Thing, name: x, uid: u, controller: true, blockOwnerDeletion: true}]
    finalizers: [example.com/keep]
  spec: {finalizers: [kubernetes]}
  status: {phase: Active, conditions: [{type: NamespaceDeletionContentFailure, status: "False", reason: r, message: m, lastTransitionTime: "2026-01-01T00:00:00Z"}]}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: a, namespace: shop, generation: 2}
  spec:
    hosts: [a.example]
    location: MESH_EXTERNAL
    ports: [{number: 443, name: https, protocol: TLS, targetPort: 8443}]
    endpoints: [{address: 10.0.0.1, labels: {zone: a}, ports: {https: 8443}, network: n, locality: l, weight: 1, serviceAccount: sa}]
    subjectAltNames: [spiffe://x]
    workloadSelector: {labels: {app: a}}
  status:
    conditions: [{type: Reconciled, status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", lastProbeTime: null, observedGeneration: "2"}]
    validationMessages: [{type: {code: IST0101, name: ReferencedResourceNotFound}, level: ERROR, documentationUrl: https://x}]
    observedGeneration: "2"
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec:
    type: LoadBalancer
    ports: [{name: http, port: 80, targetPort: http, nodePort: 30080, protocol: TCP, appProtocol: http}]
    sessionAffinityConfig: {clientIP: {timeoutSeconds: 10}}
    ipFamilies: [IPv4]
    ipFamilyPolicy: SingleStack
    internalTrafficPolicy: Cluster
    trafficDistribution: PreferClose
  status: {loadBalancer: {ingress: [{ip: 1.2.3.4, ipMode: VIP, ports: [{port: 80, protocol: TCP}]}]}}
- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: default, namespace: shop}
  spec:
    egress: [{port: {number: 9080, protocol: HTTP, name: egress-http}, bind: 127.0.0.1, captureMode: IPTABLES, hosts: ["./*"]}, {hosts: ["*/*"]}]
    ingress: [{port: {number: 9080, protocol: HTTP, name: http}, defaultEndpoint: "127.0.0.1:8080", connectionPool: {tcp: {maxConnections: 10}}}]
    outboundTrafficPolicy: {mode: REGISTRY_ONLY}
    inboundConnectionPool: {http: {http1MaxPendingRequests: 10}}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}, spec: {anything: [goes], replcas: 2}}
`), "")
	require.NoError(t, err)
}

func TestSchemaErrorsAreBounded(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		b.WriteString(" x" + strings.Repeat("y", i) + ": 1,")
	}
	_, err := Load([]byte("{kind: Namespace, metadata: {name: shop,"+b.String()+"}}"), "")
	require.Error(t, err)
	assert.Len(t, strings.Split(err.Error(), "\n"), 11, "ten unknown fields, then a count of the rest")
}

package inventory

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/release"
)

// applyBase is the dump the Apply tests apply files to.
const applyBase = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop, creationTimestamp: "2026-01-01T00:00:00Z"}}
- {apiVersion: v1, kind: Namespace, metadata: {name: default}}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1], ports: [{port: 9080}]}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: shop, creationTimestamp: "2026-01-01T00:00:02Z"}
  spec: {hosts: [a.example.com, b.example.com], resolution: DNS}
  status: {addresses: [{value: 240.240.0.1, host: a.example.com}, {value: 240.240.0.2, host: b.example.com}]}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-01T00:00:05Z"}
  spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}
- apiVersion: networking.istio.io/v1
  kind: Gateway
  metadata: {name: ingress, namespace: shop}
  spec: {servers: []}
- {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: shop}}
`

// TestApply: what kubectl apply -f would leave in the cluster, read by Load, is the dump
// written out by hand.
func TestApply(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		files     []File
		want      string // the objects the dump holds afterwards, but for the base's
		replaced  bool   // the object replaces the base's VirtualService
		applied   []Applied
	}{
		{"a new object takes kubectl's default namespace and is the youngest", "", []File{{"vs.yaml", []byte(
			"apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: ratings}\nspec: {hosts: [ratings], http: [{route: [{destination: {host: ratings}}]}]}\n")}},
			`- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: ratings, namespace: default, creationTimestamp: "2026-01-01T00:00:06Z"}
  spec: {hosts: [ratings], http: [{route: [{destination: {host: ratings}}]}]}
`, false, []Applied{{Kind: "VirtualService", Group: "networking.istio.io", Namespace: "default", Name: "ratings", File: "vs.yaml", Created: true}}},
		{"an object of the dump's identity replaces it, keeping its creation time", "shop", []File{{"vs.yaml", []byte(
			"apiVersion: networking.istio.io/v1beta1\nkind: VirtualService\nmetadata: {name: reviews, creationTimestamp: '2030-01-01T00:00:00Z'}\nspec: {hosts: [reviews], http: [{route: [{destination: {host: reviews, subset: v2}}]}]}\n")}},
			`- apiVersion: networking.istio.io/v1beta1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-01T00:00:05Z"}
  spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews, subset: v2}}]}]}
`, true, []Applied{{Kind: "VirtualService", Group: "networking.istio.io", Namespace: "shop", Name: "reviews", File: "vs.yaml"}}},
		{"the Gateway API's Gateway is not Istio's; a second document replaces the first", "", []File{{"gw.yaml", []byte(
			gwObject("v1", "Gateway", "ingress", "spec: {gatewayClassName: istio, listeners: [{name: http, port: 80, protocol: HTTP}]}\n---\n") +
				gwObject("v1", "Gateway", "ingress", "spec: {gatewayClassName: istio, listeners: [{name: http, port: 8080, protocol: HTTP}]}\n"))}},
			`- apiVersion: gateway.networking.k8s.io/v1
  kind: Gateway
  metadata: {name: ingress, namespace: shop, creationTimestamp: "2026-01-01T00:00:06Z"}
  spec: {gatewayClassName: istio, listeners: [{name: http, port: 8080, protocol: HTTP}]}
`, false, []Applied{
				{Kind: "Gateway", Group: GatewayAPIGroup, Namespace: "shop", Name: "ingress", File: "gw.yaml", Where: "document 1", Created: true},
				{Kind: "Gateway", Group: GatewayAPIGroup, Namespace: "shop", Name: "ingress", File: "gw.yaml", Where: "document 2"}}},
		{"a JSON List, and a kind no view reads applied as written", "", []File{{"list.json", []byte(
			`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "web", "labels": {"team": "web"}}}, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}]}`)}},
			`- {apiVersion: v1, kind: Namespace, metadata: {name: web, labels: {team: web}, creationTimestamp: "2026-01-01T00:00:06Z"}}
`, false, []Applied{
				{Kind: "Namespace", Namespace: "", Name: "web", File: "list.json", Where: "items[0]", Created: true},
				{Kind: "ConfigMap", Name: "c", File: "list.json", Where: "items[1]", Created: true}}},
		{"a typed List's items without a type are of its kind, as the API server writes them", "", []File{{"ns.json", []byte(
			`{"apiVersion": "v1", "kind": "NamespaceList", "items": [{"metadata": {"name": "web", "labels": {"team": "web"}}}]}`)}},
			`- {apiVersion: v1, kind: Namespace, metadata: {name: web, labels: {team: web}, creationTimestamp: "2026-01-01T00:00:06Z"}}
`, false, []Applied{{Kind: "Namespace", Name: "web", File: "ns.json", Where: "items[0]", Created: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			merged, applied, err := Apply(File{"dump.yaml", []byte(applyBase)}, tt.namespace, release.Release{}, tt.files...)
			require.NoError(t, err)
			assert.Equal(t, tt.applied, applied)
			got, err := Load(merged, "")
			require.NoError(t, err)
			base := applyBase
			if tt.replaced {
				vs, gw := strings.Index(applyBase, "- apiVersion: networking.istio.io/v1\n  kind: VirtualService"), strings.Index(applyBase, "- apiVersion: networking.istio.io/v1\n  kind: Gateway")
				base = applyBase[:vs] + tt.want + applyBase[gw:]
			} else {
				base += tt.want
			}
			want, err := Load([]byte(base), "")
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestApplyKeepsWhatTheClusterKeeps: a replaced ServiceEntry keeps the addresses Istio
// allocated to the hosts it still has, a replaced Service its cluster IPs; a new object has
// no status, whatever the file says.
func TestApplyKeepsWhatTheClusterKeeps(t *testing.T) {
	merged, _, err := Apply(File{"dump.yaml", []byte(applyBase)}, "shop", release.Release{}, File{"se.yaml", []byte(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api}
spec: {hosts: [b.example.com, c.example.com], resolution: DNS}
status: {addresses: [{value: 240.240.0.9, host: c.example.com}]}
---
apiVersion: v1
kind: Service
metadata: {name: reviews}
spec: {ports: [{port: 9080}, {port: 9090}]}
---
apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: new}
spec: {hosts: [d.example.com], resolution: DNS}
status: {addresses: [{value: 240.240.0.9, host: d.example.com}]}
`)})
	require.NoError(t, err)
	inv, err := Load(merged, "")
	require.NoError(t, err)
	byName := map[string]Service{}
	for _, s := range inv.Services {
		byName[s.Name] = s
	}
	assert.Equal(t, map[string][]netip.Prefix{"b.example.com": pfx("240.240.0.2")}, byName["api"].AutoAddresses)
	assert.Equal(t, "2026-01-01T00:00:02Z", byName["api"].CreationTime.Format("2006-01-02T15:04:05Z07:00"))
	assert.Equal(t, pfx("10.0.0.1"), byName["reviews"].Addresses)
	assert.Equal(t, []uint32{9080, 9090}, byName["reviews"].Ports)
	assert.Empty(t, byName["new"].AutoAddresses, "a new object's status is the cluster's to write")
}

// TestApplyRefuses: what kubectl, the API server or Istio's webhook refuses, each problem
// named by its file, document and item, every one at once.
func TestApplyRefuses(t *testing.T) {
	tests := []struct {
		name      string
		namespace string
		release   string
		files     []File
		want      []string
	}{
		{"a problem of each kind, by file, document and item", "", "", []File{
			{"a.yaml", []byte("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: ok}\nspec: {hosts: [ok], http: [{route: [{destination: {host: ok}}]}]}\n---\nkind: VirtualService\napiVersion: networking.istio.io/v1\nmetadata: {name: bad}\nspec: {host: [x]}\n")},
			{"b.yaml", []byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: x}}\n- {metadata: {name: y}}\n- {apiVersion: v1, kind: Servcie, metadata: {name: z}}\n")},
			{"empty.yaml", []byte("---\n")},
		}, []string{
			`a.yaml: document 2 (VirtualService default/bad): spec: unknown field "host" (did you mean "hosts"?)`,
			`a.yaml: document 2 (VirtualService default/bad): spec: http, tcp or tls must be provided in virtual service`,
			`b.yaml: items[1]: apiVersion: error validating data: apiVersion not set`,
			`b.yaml: items[1]: kind: error validating data: kind not set`,
			`b.yaml: items[2]: kind: unknown kind "Servcie" (did you mean "Service"? as written, the object would be skipped)`,
			`empty.yaml: no objects passed to apply`,
		}},
		{"what kubectl's check of each document's type refuses", "", "", []File{
			{"sc.yaml", []byte("kind: Sidecar\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['./*']}]}\n")},
			{"list.yaml", []byte("kind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: x}}\n")},
			{"types.yaml", []byte("apiVersion: 1\nkind: Foo\nmetadata: {name: a}\n---\napiVersion: a/b/c\nkind: Foo\nmetadata: {name: b}\n---\napiVersion: ''\nkind: Foo\nmetadata: {name: c}\n")},
		}, []string{
			`sc.yaml: apiVersion: error validating data: apiVersion not set`,
			`list.yaml: apiVersion: error validating data: apiVersion not set`,
			`types.yaml: document 1: apiVersion: error validating data: apiVersion isn't string type`,
			`types.yaml: document 2: apiVersion: error validating data: unexpected GroupVersion string: a/b/c`,
			`types.yaml: document 3: apiVersion: names no API version: kubectl finds no API serving kind "Foo" in it`,
		}},
		{"an object of another namespace than -n", "web", "", []File{{"vs.yaml", []byte("kind: VirtualService\napiVersion: networking.istio.io/v1\nmetadata: {name: r, namespace: shop}\nspec: {hosts: [r], http: [{route: [{destination: {host: r}}]}]}\n")}}, []string{
			`vs.yaml: VirtualService shop/r: metadata.namespace: the namespace from the provided object "shop" does not match the namespace "web". You must pass '--namespace=shop' to perform this operation.`,
		}},
		{"a Sidecar the release's webhook refuses", "shop", "1.30.3", []File{{"sc.yaml", []byte("kind: Sidecar\napiVersion: networking.istio.io/v1\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['*/*', '~payments/*']}]}\n")}}, []string{
			`sc.yaml: Sidecar shop/narrow: spec.egress[0].hosts[1]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~payments" in sidecar (a namespace after "~" excludes from 1.31 on; before, only "~/host", the literal namespace "~", is accepted)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			merged, applied, err := Apply(File{"dump.yaml", []byte(applyBase)}, tt.namespace, release.Make(tt.release, "", nil), tt.files...)
			require.Error(t, err)
			assert.Nil(t, merged)
			assert.Nil(t, applied)
			got := istiotest.ErrorTexts(err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, _, err := Apply(File{"dump.yaml", []byte(applyBase)}, "shop", release.Make("1.31", "", nil),
		File{"sc.yaml", []byte("kind: Sidecar\napiVersion: networking.istio.io/v1\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['*/*', '~payments/*']}]}\n")})
	assert.NoError(t, err, "1.31 accepts the exclusion")
}

// TestApplyNothing: applying no file gives back the dump, as Load reads it.
func TestApplyNothing(t *testing.T) {
	for _, s := range seeds(t) {
		want, err := Load(s, "")
		if err != nil {
			continue
		}
		merged, applied, err := Apply(File{"seed", s}, "", release.Release{})
		require.NoError(t, err)
		assert.Empty(t, applied)
		got, err := Load(merged, "")
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// TestApplyRealisticDump: a dump as kubectl prints it, in YAML and in JSON, goes through
// Apply unchanged for Load, and one object applied changes that object alone.
func TestApplyRealisticDump(t *testing.T) {
	yamlData, jsonData := realisticDump(200)
	for name, data := range map[string][]byte{"yaml": yamlData, "json": jsonData} {
		t.Run(name, func(t *testing.T) {
			want, err := Load(data, "")
			require.NoError(t, err)
			merged, _, err := Apply(File{"dump", data}, "", release.Release{})
			require.NoError(t, err)
			got, err := Load(merged, "")
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

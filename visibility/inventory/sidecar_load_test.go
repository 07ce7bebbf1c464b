package inventory

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
)

func TestLoadSidecars(t *testing.T) {
	inv, err := Load([]byte(istiotest.SidecarList), "")
	require.NoError(t, err)
	assert.Equal(t, []Sidecar{
		{Namespace: "shop", Name: "default", CreationTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Egress: []Egress{
			{Hosts: []string{"./*"}, Port: 8080, Protocol: "HTTP"},
			{Hosts: []string{"./*", "istio-system/*", "~/*.internal.example.com"}},
		}},
		{Namespace: "shop", Name: "web", WorkloadSelector: map[string]string{"app": "web"}, Egress: []Egress{{Hosts: []string{"*/api.example.com"}}}},
		{Namespace: "shop", Name: "all", WorkloadSelector: map[string]string{}},
	}, inv.Sidecars, "a Sidecar of another API group is skipped; workloadSelector: {} selects every workload")
}

func TestLoadSidecarRefuses(t *testing.T) {
	const head = "kind: Namespace\nmetadata: {name: shop}\n---\napiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: s, namespace: shop}\n"
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"empty", "spec: {}", []string{`document 2 (Sidecar shop/s): spec: a Sidecar without egress, ingress, outboundTrafficPolicy or inboundConnectionPool is empty, which Istio refuses`}},
		{"no spec", "", []string{`document 2 (Sidecar shop/s): spec: a Sidecar without a spec is empty, which Istio refuses`}},
		{"no slash", `spec: {egress: [{hosts: [api.example.com]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts[0]: host must be of form namespace/dnsName`}},
		{"two slashes", `spec: {egress: [{hosts: [a/b/c.example]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts[0]: domain name "b/c.example" invalid (label "b/c" invalid)`}},
		{"short name", `spec: {egress: [{hosts: [./api]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts[0]: short names (non FQDN) are not allowed`}},
		{"partial wildcard", `spec: {egress: [{hosts: ["*/*x.example.com"]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts[0]: partial wildcard "*x.example.com" not allowed`}},
		{"bad namespace", `spec: {egress: [{hosts: [sh_op/a.example]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts[0]: invalid namespace value "sh_op" in sidecar`}},
		{"no hosts", `spec: {egress: [{port: {number: 80, protocol: HTTP}}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].hosts: sidecar: egress listener must contain at least one host`}},
		{"unix socket without bind", `spec: {egress: [{port: {number: 0}, hosts: ["*/*"]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].port: a port numbered 0 is for a unix domain socket listener, whose bind must start with unix:// (bind is "")`}},
		{"port 0 bound to an address", `spec: {egress: [{port: {number: 0}, bind: 127.0.0.1, hosts: ["*/*"]}]}`, []string{`document 2 (Sidecar shop/s): spec.egress[0].port: a port numbered 0 is for a unix domain socket listener, whose bind must start with unix:// (bind is "127.0.0.1")`}},
		{"a listener without a port before another", `spec: {egress: [{hosts: ["./*"]}, {port: {number: 80, protocol: HTTP}, hosts: ["./*"]}]}`,
			[]string{`document 2 (Sidecar shop/s): spec.egress[0]: sidecar: the egress listener with empty port should be the last listener in the list`}},
		{"two listeners without a port", `spec: {egress: [{hosts: ["./*"]}, {hosts: ["*/*"]}, {hosts: ["istio-system/*"]}]}`, []string{
			`document 2 (Sidecar shop/s): spec.egress[0]: sidecar: the egress listener with empty port should be the last listener in the list`,
			`document 2 (Sidecar shop/s): spec.egress[1]: sidecar: the egress listener with empty port should be the last listener in the list`,
		}},
		{"a port twice", `spec: {egress: [{port: {number: 80, protocol: HTTP}, hosts: ["./*"]}, {port: {number: 80, protocol: TCP}, bind: 127.0.0.2, hosts: ["*/*"]}]}`,
			[]string{`document 2 (Sidecar shop/s): spec.egress[1].port.number: sidecar: ports on IP bound listeners must be unique (it repeats spec.egress[0].port.number)`}},
		{"a socket twice", `spec: {egress: [{port: {number: 0, protocol: HTTP}, bind: "unix:///a.sock", hosts: ["./*"]}, {port: {number: 0, protocol: HTTP}, bind: "unix:///a.sock", hosts: ["*/*"]}]}`,
			[]string{`document 2 (Sidecar shop/s): spec.egress[1].bind: sidecar: unix domain socket values for listeners must be unique (it repeats spec.egress[0].bind)`}},
		{"an unknown version", "spec: {egress: [{hosts: ['*/*']}]}\n", nil},
		{"a bad selector label", `spec: {workloadSelector: {labels: {"a b": x}}, egress: [{hosts: ["*/*"]}]}`, []string{`document 2 (Sidecar shop/s): spec.workloadSelector.labels: Invalid value: "a b": name part must consist of alphanumeric characters`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := head + tc.spec + "\n"
			if tc.name == "an unknown version" {
				doc = strings.Replace(doc, "networking.istio.io/v1", "networking.istio.io/v2", 1)
				tc.want = []string{`document 2 (Sidecar shop/s): apiVersion: "networking.istio.io/v2" is not a version Istio serves Sidecars in (networking.istio.io/v1, networking.istio.io/v1beta1, networking.istio.io/v1alpha3)`}
			}
			_, err := Load([]byte(doc), "")
			require.Error(t, err)
			got := strings.Split(err.Error(), "\n")
			require.Len(t, got, len(tc.want), "%v", err)
			for i := range got {
				assert.True(t, strings.HasPrefix(got[i], tc.want[i]), "got  %s\nwant %s…", got[i], tc.want[i])
			}
		})
	}
}

func TestLoadPorts(t *testing.T) {
	inv, err := Load([]byte(`kind: List
items:
- kind: ServiceEntry
  metadata: {name: a, namespace: shop}
  spec: {hosts: [a.example], ports: [{number: 443, name: https}, {number: 80, name: http}], workloadSelector: {labels: {app: a}}}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec: {ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}], selector: {app: web}}
`), "")
	require.NoError(t, err)
	assert.Equal(t, []uint32{443, 80}, inv.Services[0].Ports)
	assert.Equal(t, map[string]string{"app": "a"}, inv.Services[0].Selector)
	assert.Equal(t, []uint32{53, 53}, inv.Services[1].Ports, "a Service gives a number once per protocol")
	assert.Equal(t, map[string]string{"app": "web"}, inv.Services[1].Selector)

	_, err = Load([]byte(`kind: ServiceEntry
metadata: {name: a, namespace: shop}
spec: {hosts: [a.example], ports: [{number: 443}, {number: 443}, {number: 70000}, {name: x}]}
`), "")
	assert.EqualError(t, err, strings.Join([]string{
		`ServiceEntry shop/a: spec.ports[2].number: port 70000 is out of range (1 to 65535)`,
		`ServiceEntry shop/a: spec.ports[3]: number must be set`,
		`ServiceEntry shop/a: spec.ports[1].number: port 443 repeats spec.ports[0].number; Istio requires a ServiceEntry's port numbers unique`,
	}, "\n"))

	err = (&Inventory{Services: []Service{{Kind: ServiceEntry, Namespace: "shop", Name: "a", Hosts: []string{"a.example"}, Ports: []uint32{0, 80, 80}}}}).Validate()
	assert.EqualError(t, err, strings.Join([]string{
		`Services[0] (ServiceEntry shop/a): Ports[0]: port 0 is out of range (1 to 65535)`,
		`Services[0] (ServiceEntry shop/a): Ports[2]: port 80 repeats Ports[1]; Istio requires a ServiceEntry's port numbers unique`,
	}, "\n"))
}

// TestExportToAnnotationRepeats: Istio reads a Service's exportTo annotation as a set without
// validating it, so repeats there are accepted; a ServiceEntry's spec.exportTo is validated.
func TestExportToAnnotationRepeats(t *testing.T) {
	for _, ann := range []string{"ext,ext", ".,shop", "shop, ., ext"} {
		t.Run(ann, func(t *testing.T) {
			inv, err := Load([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, annotations: {networking.istio.io/exportTo: '"+ann+"'}}\n"), "")
			require.NoError(t, err)
			require.NoError(t, inv.Validate())
		})
	}
	_, err := Load([]byte("kind: ServiceEntry\nmetadata: {name: a, namespace: shop}\nspec: {hosts: [a.example], exportTo: [., shop]}\n"), "")
	assert.ErrorContains(t, err, `spec.exportTo[1]: duplicate entries in exportTo for entry shop (it repeats spec.exportTo[0], ".")`)
}

// TestSidecarSocketListeners: a listener with a port numbered 0 is a unix domain socket
// listener, which may come before the listener without a port; its Bind tells it from one.
func TestSidecarSocketListeners(t *testing.T) {
	inv, err := Load([]byte(`kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: s, namespace: shop}
  spec:
    egress:
    - {port: {number: 0, protocol: HTTP, name: uds}, bind: "unix:///var/run/app.sock", hosts: ["./*"]}
    - {port: {number: 9080, protocol: HTTP}, bind: 127.0.0.1, hosts: ["./*"]}
    - {bind: "unix:///not/read", hosts: ["*/*"]}
`), "")
	require.NoError(t, err)
	assert.Equal(t, []Egress{
		{Hosts: []string{"./*"}, Protocol: "HTTP", Bind: "unix:///var/run/app.sock"},
		{Hosts: []string{"./*"}, Port: 9080, Protocol: "HTTP", Bind: "127.0.0.1"},
		{Hosts: []string{"*/*"}},
	}, inv.Sidecars[0].Egress, "what a listener without a port binds is left out")
	require.NoError(t, inv.Validate())
	bad := &Inventory{Sidecars: []Sidecar{{Namespace: "shop", Name: "s", Egress: []Egress{{Hosts: []string{"*/*"}, Bind: "10.0.0.1"}, {Hosts: []string{"*/*"}, Port: 80}, {Hosts: []string{"./*"}, Port: 80}}}}}
	assert.EqualError(t, bad.Validate(), strings.Join([]string{
		`Sidecars[0] (Sidecar shop/s): Egress[0].Bind: "10.0.0.1": a listener with Port 0 is either a unix domain socket listener, whose Bind starts with unix://, or a listener without a port, which has no Bind`,
		`Sidecars[0] (Sidecar shop/s): Egress[0]: sidecar: the egress listener with empty port should be the last listener in the list`,
		`Sidecars[0] (Sidecar shop/s): Egress[2].Port: sidecar: ports on IP bound listeners must be unique (it repeats Egress[1].Port)`,
	}, "\n"))
}

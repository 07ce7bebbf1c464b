package peermeta

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
)

func checks(statuses ...HealthStatus) []*HealthCheck {
	var out []*HealthCheck
	for i, s := range statuses {
		id := []string{"serfHealth", "gw-alive", "gw-port", "extra"}[i%4]
		out = append(out, &HealthCheck{Node: "n1", CheckID: id, Name: id, Status: s})
	}
	return out
}

func TestFlatten(t *testing.T) {
	tests := []struct {
		name   string
		checks []*HealthCheck
		want   HealthStatus // "" for no check
	}{
		{"no checks", nil, ""},
		{"all passing", checks("passing", "passing"), StatusPassing},
		{"warning", checks("passing", "warning"), StatusWarning},
		{"critical beats warning", checks("warning", "critical", "passing"), StatusCritical},
		{"unknown counts as critical", checks("passing", "whatever"), StatusCritical},
		{"empty status counts as critical", checks(""), StatusCritical},
		{"node maintenance", append(checks("passing"), &HealthCheck{CheckID: nodeMaintenanceCheckID, Status: "critical"}), StatusMaintenance},
		{"service maintenance", append(checks("critical"), &HealthCheck{CheckID: "_service_maintenance:gw-1", Status: "critical"}), StatusMaintenance},
		{"maintenance-like name is not maintenance", append(checks("passing"), &HealthCheck{CheckID: "_service_maintenance", Status: "warning"}), StatusWarning},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := flatten(tt.checks, "n1", "web-sidecar-proxy-instance-0", "web-sidecar-proxy")
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			require.Len(t, got, 1)
			c := got[0]
			assert.Equal(t, tt.want, c.Status)
			assert.Equal(t, "web-sidecar-proxy-instance-0:overall-check", c.CheckID)
			assert.Equal(t, "overall-check", c.Name)
			assert.Equal(t, "n1", c.Node)
			assert.Equal(t, "web-sidecar-proxy-instance-0", c.ServiceID)
			assert.Equal(t, "web-sidecar-proxy", c.ServiceName)
		})
	}
	got := flatten(checks("passing", "critical"), "n1", "x", "y")
	assert.Equal(t, `critical: 2 checks of the mesh gateway; "gw-alive" decided`, got[0].Output)
}

// mesh-gateway instances as /v1/health/service/mesh-gateway returns them (trimmed).
const gatewaysJSON = `[
  {
    "Node": {"ID": "a1", "Node": "gw-node-b", "Address": "10.0.0.2", "Datacenter": "dc1", "TaggedAddresses": {"lan": "10.0.0.2", "wan": "198.51.100.2"}},
    "Service": {"Kind": "mesh-gateway", "ID": "mesh-gateway-2", "Service": "mesh-gateway", "Address": "10.0.0.2", "Port": 8443,
      "TaggedAddresses": {"lan": {"Address": "10.0.0.2", "Port": 8443}, "wan": {"Address": "198.51.100.2", "Port": 443}},
      "Weights": {"Passing": 1, "Warning": 1}, "EnableTagOverride": false},
    "Checks": [
      {"Node": "gw-node-b", "CheckID": "serfHealth", "Name": "Serf Health Status", "Status": "passing", "ServiceID": ""},
      {"Node": "gw-node-b", "CheckID": "mesh-gateway-2:tcp", "Name": "Mesh Gateway Listening", "Status": "warning", "ServiceID": "mesh-gateway-2"}
    ]
  },
  {
    "Node": {"Node": "gw-node-a", "Address": "10.0.0.1"},
    "Service": {"Kind": "mesh-gateway", "ID": "mesh-gateway-1", "Service": "mesh-gateway", "Address": "10.0.0.1", "Port": 8443},
    "Checks": []
  }
]`

func TestSynthesize(t *testing.T) {
	var gws []CheckServiceNode
	require.NoError(t, json.Unmarshal([]byte(gatewaysJSON), &gws))
	meta := PeerMeta{SNI: []string{"web.default.default.east.external." + td}, Protocol: "http"}
	got := synthesize(exports.ServiceName{Name: "web"}, meta, gws)
	require.Len(t, got, 2)
	first := got[0]
	assert.Equal(t, gws[0].Node, first.Node)
	assert.Equal(t, &NodeService{
		Kind: KindConnectProxy, ID: "web-sidecar-proxy-instance-0", Service: "web-sidecar-proxy",
		Address: "10.0.0.2", Port: 8443, TaggedAddresses: gws[0].Service.TaggedAddresses,
		Proxy:     &ProxyConfig{DestinationServiceName: "web", DestinationServiceID: "web-instance-0"},
		Connect:   &ServiceConnect{PeerMeta: &meta},
		Namespace: "default", Partition: "default",
	}, first.Service)
	require.Len(t, first.Checks, 1)
	assert.Equal(t, StatusWarning, first.Checks[0].Status)
	assert.Equal(t, "web-sidecar-proxy-instance-1", got[1].Service.ID)
	assert.Nil(t, got[1].Checks, "a gateway without checks gives an instance without checks")

	noID := []CheckServiceNode{{Node: &Node{Node: "n"}, Service: &NodeService{Service: "mesh-gateway", Port: 443}}}
	one := synthesize(exports.ServiceName{Name: "web"}, meta, noID)
	assert.Equal(t, "web-sidecar-proxy", one[0].Service.ID)
	assert.Equal(t, "web", one[0].Service.Proxy.DestinationServiceID)

	broken := []CheckServiceNode{{Node: &Node{Node: "n"}}}
	assert.Empty(t, synthesize(exports.ServiceName{Name: "web"}, meta, broken), "an instance without a service is skipped")

	b, err := json.Marshal(first)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Connect":{"PeerMeta":{"SNI":["web.default.default.east.external.`)
}

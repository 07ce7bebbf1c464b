package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func defaults() options {
	return options{clusterID: "1234", service: "web", subset: "v2", namespace: "default", partition: "retail",
		datacenter: "dc1", peer: "east", query: "q", agent: "node-1", k8sNamespace: "shop", serviceAccount: "cart"}
}

func TestRunTour(t *testing.T) {
	var out strings.Builder
	require.NoError(t, run(&out, defaults()))
	s := out.String()
	assert.Contains(t, s, "web.default.retail.east.external.1234.consul")
	assert.Contains(t, s, "spiffe://1234.consul/ap/retail/ns/default/dc/dc1/svc/web")
	assert.NotContains(t, s, "no:")
}

func TestRunInvalidFlags(t *testing.T) {
	o := defaults()
	o.peer = "East"
	var out strings.Builder
	err := run(&out, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `peered service: Peer: "East" must be lower case`)
}

func TestRunParse(t *testing.T) {
	o := defaults()
	o.parse = "spiffe://1234.consul/gateway/mesh/dc/dc1"
	var out strings.Builder
	require.NoError(t, run(&out, o))
	assert.Equal(t, "spiffe.MeshGateway{TrustDomain:\"1234.consul\", Partition:\"default\", Datacenter:\"dc1\"}\n", out.String())

	o.parse = "dc1.internal.1234.consul"
	out.Reset()
	require.NoError(t, run(&out, o))
	assert.Equal(t, "sni.Gateway{Partition:\"default\", Datacenter:\"dc1\", TrustDomain:\"1234.consul\"}\n", out.String())

	o.parse = "spiffe://1234.consul/ns/a%2Fb/sa/x"
	require.Error(t, run(&out, o))
}

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/clitest"
)

func TestTour(t *testing.T) {
	out := clitest.OK(t, run, "-trust-domain", "1234.consul")
	assert.Contains(t, out, "peered service             web.default.retail.east.external.1234.consul")
	assert.Contains(t, out, "peering servers            server.dc1.peering.1234.consul")
	assert.Contains(t, out, "CA signing            spiffe://1234.consul")
	assert.Contains(t, out, "spiffe://1234.consul/ap/retail/ns/default/dc/dc1/svc/web")
	assert.NotContains(t, out, "  no\n")

	rep := clitest.JSON[tourReport](t, run, "-trust-domain", "1234.consul")
	assert.Equal(t, "1234.consul", rep.TrustDomain)
	assert.Equal(t, row{Kind: "service", Value: "web.default.dc1.internal.1234.consul", ParsesBack: true}, rep.SNI[0])
}

func TestInvalidFlags(t *testing.T) {
	code, _, errOut := clitest.Call(run, "-peer", "East")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `peered service: Peer: "East" must be lower case`)
}

func TestParse(t *testing.T) {
	assert.Equal(t, "spiffe://1234.consul/gateway/mesh/dc/dc1\nSPIFFE ID: a mesh gateway\n  TrustDomain  1234.consul\n  Partition    default\n  Datacenter   dc1\n",
		clitest.OK(t, run, "-parse", "spiffe://1234.consul/gateway/mesh/dc/dc1"))

	p := clitest.JSON[parsed](t, run, "-parse", "dc1.internal.1234.consul", "-trust-domain", "1234.consul")
	assert.Equal(t, "SNI name: a mesh gateway", p.Kind)
	assert.Equal(t, map[string]string{"Partition": "default", "Datacenter": "dc1", "TrustDomain": "1234.consul"}, p.Components)

	code, _, errOut := clitest.Call(run, "-parse", "spiffe://1234.consul/ns/a%2Fb/sa/x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "malformed SPIFFE ID")
}

func TestHelpAndArguments(t *testing.T) {
	code, out, _ := clitest.Call(run, "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "names: build every kind of SNI name and SPIFFE ID")
	code, _, errOut := clitest.Call(run, "web")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unexpected argument "web"`)
	code, _, _ = clitest.Call(run, "-o", "yaml")
	assert.Equal(t, 2, code)
	code, out, _ = clitest.Call(run, "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "\nExit status:\n  0  the report was printed\n")
	assert.Less(t, strings.Index(out, "Flags:"), strings.Index(out, "Exit status:"), "the exit statuses come after the flags")
	assert.NotContains(t, out, "  3  ", "names has no -fail-on")
}

// TestEmptyParse: -parse "" (an unset variable in a script) is a usage error, not the tour.
func TestEmptyParse(t *testing.T) {
	code, out, errOut := clitest.Call(run, "-parse", "")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "-parse needs an SNI name or a SPIFFE ID")
}

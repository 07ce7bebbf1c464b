package inventory

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// gammaVectors are the cases of ../sidecar/testdata/istio-gamma.json (see the README there),
// of which this test reads the Gateway API objects: routes, ReferenceGrants and Gateways as
// the API server stores them, every default written out.
type gammaVectors struct {
	Cases []istiotest.Objects `json:"cases"`
}

// TestGammaVectorsLoad: Load reads every route, ReferenceGrant and Gateway istiod was given,
// each with its defaults as the API server writes them: the value it reads, spelt back as the
// Gateway API spells it, is the object as stored. Validate accepts each inventory.
func TestGammaVectorsLoad(t *testing.T) {
	data, err := os.ReadFile("../sidecar/testdata/istio-gamma.json")
	require.NoError(t, err)
	var vs gammaVectors
	require.NoError(t, json.Unmarshal(data, &vs))
	require.Len(t, vs.Cases, 80)
	counts := map[string]int{}
	for _, c := range vs.Cases {
		gatewayAPI := istiotest.Objects{Routes: c.Routes, ReferenceGrants: c.ReferenceGrants, Gateways: c.Gateways}
		items := append([]any{istiotest.KubectlObject("v1", "Namespace", "", "default", "2026-01-01T00:00:00Z", nil)}, gatewayAPI.Items()...)
		inv, err := Load(marshalList(t, items, c.ID%2 == 1), "")
		require.NoError(t, err, "case %d", c.ID)
		require.NoError(t, inv.Validate(), "case %d", c.ID)
		require.Len(t, inv.Routes, len(c.Routes), "case %d", c.ID)
		for i, r := range c.Routes {
			got := inv.Routes[i]
			require.Equal(t, []string{r.Kind, r.Namespace, r.Name, r.CreationTime}, []string{string(got.Kind), got.Namespace, got.Name, got.CreationTime.Format(timeRFC3339)}, "case %d", c.ID)
			requireSameJSON(t, r.Spec, routeSpecJSON(&got), "case %d: %s %s/%s", c.ID, r.Kind, r.Namespace, r.Name)
			counts[r.Kind]++
		}
		require.Len(t, inv.ReferenceGrants, len(c.ReferenceGrants), "case %d", c.ID)
		for i, g := range c.ReferenceGrants {
			requireSameJSON(t, g.Spec, grantSpecJSON(&inv.ReferenceGrants[i]), "case %d: ReferenceGrant %s/%s", c.ID, g.Namespace, g.Name)
			counts["ReferenceGrant"]++
		}
		require.Len(t, inv.Gateways, len(c.Gateways), "case %d", c.ID)
		for i, g := range c.Gateways {
			requireSameJSON(t, g.Spec, gatewaySpecJSON(&inv.Gateways[i]), "case %d: Gateway %s/%s", c.ID, g.Namespace, g.Name)
			counts["Gateway"]++
		}
	}
	t.Logf("read as stored: %v", counts)
	require.Equal(t, map[string]int{"HTTPRoute": 233, "GRPCRoute": 62, "TCPRoute": 75, "TLSRoute": 69, "ReferenceGrant": 78, "Gateway": 37}, counts)
}

const timeRFC3339 = "2006-01-02T15:04:05Z07:00"

func requireSameJSON(t *testing.T, want, got any, msgAndArgs ...any) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	require.JSONEq(t, string(w), string(g), msgAndArgs...)
}

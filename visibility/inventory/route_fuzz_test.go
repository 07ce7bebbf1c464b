package inventory

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// FuzzLoadRoutes: whatever Load accepts of the Gateway API kinds, Validate accepts, and each
// route spelt back as the API server stores it reads as the same route (the defaults Load
// writes out are those the API server writes: writing them again changes nothing).
func FuzzLoadRoutes(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "seeds", "gateway-api.yaml"))
	require.NoError(f, err)
	f.Add(seed)
	for _, tc := range gwDefaults {
		f.Add(gwDump(tc.object))
	}
	for _, tc := range gwRefusals {
		f.Add(gwDump(tc.object))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv := loadValid(t, data)
		if inv == nil {
			return
		}
		for i := range inv.Routes {
			r := &inv.Routes[i]
			obj := istiotest.KubectlObject(GatewayAPIGroup+"/v1", string(r.Kind), r.Namespace, r.Name, "", routeSpecJSON(r))
			again, err := Load(marshalList(t, []any{istiotest.KubectlObject("v1", "Namespace", "", r.Namespace, "", nil), obj}, false), "")
			require.NoError(t, err, "route %d spelt back", i)
			require.Len(t, again.Routes, 1)
			got := again.Routes[0]
			got.CreationTime = r.CreationTime
			require.Equal(t, *r, got, "route %d spelt back", i)
		}
	})
}

package sidecar

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// FuzzGammaConvert: whatever inventory Load accepts, the conversion gives an answer (it never
// panics), the same answer twice, a record entry for every entry, one name per VirtualService
// of a namespace, and a status for every route.
func FuzzGammaConvert(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("..", "inventory", "testdata", "seeds", "gateway-api.yaml"))
	require.NoError(f, err)
	f.Add(seed)
	f.Add([]byte(gammaBaseInventory))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := inventory.Load(data, "")
		if err != nil {
			return
		}
		g := convertRoutes(inv, everyNamespace)
		require.Equal(t, gammaAnswers(t, inv, g), gammaAnswers(t, inv, convertRoutes(inv, everyNamespace)))
		require.Len(t, g.status, len(inv.Routes))
		names := map[[2]string]bool{}
		for _, v := range g.vss {
			k := [2]string{v.vs.Namespace, v.vs.Name}
			require.False(t, names[k], "%s/%s twice", v.vs.Namespace, v.vs.Name)
			names[k] = true
			require.Len(t, v.http, len(v.vs.HTTP))
			require.Len(t, v.tcp, len(v.vs.TCP))
			require.Len(t, v.tls, len(v.vs.TLS))
			require.Len(t, v.vs.Hosts, 1)
			require.NotEmpty(t, v.routes)
		}
	})
}

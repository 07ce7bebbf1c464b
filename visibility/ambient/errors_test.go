package ambient

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestErrZtunnelReleases: Diff's refusal of releases whose ztunnels differ is told apart
// from a problem of the configurations; a pair it compares, and a bad configuration, are
// not it.
func TestErrZtunnelReleases(t *testing.T) {
	inv := releaseInventory()
	for _, tt := range []struct {
		name          string
		before, after string
		is            bool
	}{
		{"1.29 to 1.31: ztunnel ranks addresses from 1.30", "1.29", "1.31", true},
		{"1.28 to 1.29: ztunnel's canonical host from 1.29", "1.28", "1.29", true},
		{"1.31 to 1.29, a rollback", "1.31", "1.29", true},
		{"1.30 to 1.31: compared", "1.30", "1.31", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Diff(&mesh.Config{Istio: tt.before}, &mesh.Config{Istio: tt.after}, inv)
			assert.Equal(t, tt.is, err != nil)
			assert.Equal(t, tt.is, errors.Is(err, ErrZtunnelReleases))
		})
	}
	_, err := Diff(&mesh.Config{Istio: "1.30", RootNamespace: "Bad_Root"}, &mesh.Config{Istio: "1.31"}, inv)
	assert.Error(t, err)
	assert.NotErrorIs(t, err, ErrZtunnelReleases, "a configuration's problem is not a release pair's")
}

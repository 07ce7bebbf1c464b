package ambient_test

import (
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Diff refuses two releases whose ztunnels answer otherwise, with ErrZtunnelReleases: an
// upgrade's dry run tells that apart from a problem of its configurations, and compares what
// it can (the sidecars' views, for example).
func ExampleErrZtunnelReleases() {
	_, err := ambient.Diff(&mesh.Config{Istio: "1.29"}, &mesh.Config{Istio: "1.31"}, &inventory.Inventory{})
	fmt.Println(errors.Is(err, ambient.ErrZtunnelReleases))
	_, err = ambient.Diff(&mesh.Config{Istio: "1.30"}, &mesh.Config{Istio: "1.31"}, &inventory.Inventory{})
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

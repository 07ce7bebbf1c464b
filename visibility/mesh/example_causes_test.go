package mesh_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// What an upgrade from 1.30.3 to 1.31 can change, as a dry run's header says it.
func ExampleFormatCauses() {
	from, to := (&mesh.Config{Istio: "1.30.3"}).Release(), (&mesh.Config{Istio: "1.31"}).Release()
	fmt.Printf("%s -> %s: %s\n", from, to, mesh.FormatCauses(mesh.Differences(from, to)))
	// Output:
	// Istio 1.30.3 -> Istio 1.31: SidecarExclusions (from 1.31.0), ServiceEntryVisibility (from 1.31.0), ExactHostListeners (from 1.31.0)
}

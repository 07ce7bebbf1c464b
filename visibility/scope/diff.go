package scope

import (
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Change is a Kubernetes Service (Key) whose scope differs from before (Before) to after
// (After), in the one shape every dry run of meshscope reports. Before is "" when the
// service is not in before's inventory, After "" when it is not in after's: a Scoper gives
// every service it has LOCAL or GLOBAL, so "" always means absent.
type Change = report.Change[inventory.ServiceRef, mesh.Scope, struct{}]

// Diff compares the scopes two Scopers give the Kubernetes Services of their inventories —
// typically one inventory under two mesh configurations, before and after a change — and
// returns every service whose scope differs: a service that becomes shared with the other
// clusters (LOCAL to GLOBAL) or stops being shared, and, when the inventories differ, every
// service that is in one of them only (its scope on the other side ""), sorted by namespace
// and name. A service is the same on both sides when its namespace and name are (whatever
// its labels, or the cluster domain, on each side). A nil Scoper has no services. The work
// is linear in the number of services.
func Diff(before, after *Scoper) []Change {
	var b, a []Scoped
	if before != nil {
		b = before.services
	}
	if after != nil {
		a = after.services
	}
	var out []Change
	for len(b) > 0 || len(a) > 0 {
		var c int
		switch {
		case len(b) == 0:
			c = 1
		case len(a) == 0:
			c = -1
		default:
			c = compareRefs(b[0].Service, a[0].Service)
		}
		switch {
		case c < 0:
			out = append(out, Change{Key: b[0].Service, Before: b[0].Scope})
			b = b[1:]
		case c > 0:
			out = append(out, Change{Key: a[0].Service, After: a[0].Scope})
			a = a[1:]
		default:
			if b[0].Scope != a[0].Scope {
				out = append(out, Change{Key: a[0].Service, Before: b[0].Scope, After: a[0].Scope})
			}
			b, a = b[1:], a[1:]
		}
	}
	return out
}

package sidecar

import (
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// FieldError is the one structured error type of meshscope's packages: every error this
// package returns is a *FieldError or several joined.
type FieldError = fielderr.Error

// Finding is one result of a lint, in the one shape every lint of meshscope reports: Path,
// Code, Level (the code's) and Message.
type Finding = report.Finding

// Verdict is what became of a candidate at one step of an explanation; Candidate is one
// service claiming a host (Service, with its visibility Decision: visibility policies apply
// to ServiceEntries only, so a Kubernetes Service's is PUBLIC and String does not show it),
// or a VirtualService or DestinationRule whose host (as resolved: Host) matches it
// (Object, "namespace/name"), and what became of it; Step is one step the candidates go
// through — discovery, each egress listener in order, a VirtualService's destinations —
// named by Key. They are the one shape every explanation of meshscope's views is in
// (visibility/inventory's).
type (
	Verdict   = inventory.Verdict
	Candidate = inventory.Candidate
	Step      = inventory.Step
)

// The verdicts of an explanation: Chosen, the service the proxy gets for the host (the
// VirtualService that routes it, the DestinationRule it gets: the first of those merged);
// Hidden, the service (VirtualService, DestinationRule) is not exported to the proxy's
// namespace — its exportTo, or the mesh default, narrowed by visibility when
// applyToSidecars is set — or applies to other proxies only; Outranked, another is
// preferred, and the reason says which and why; NotDiscovered, its namespace is not
// discovered (discoverySelectors), so for istiod it does not exist; Excluded, an exclusion
// of the listener ("~ns/host") covers the service (the VirtualService's host); NotImported,
// no import of the listener covers the service (or the listener's port is not among its
// ports) or matches a host of the VirtualService; Merged, the service is kept beside the
// chosen one, of the same namespace, and its ports join the chosen one's (the rule is
// merged into the chosen one).
const (
	Chosen        = inventory.Chosen
	Hidden        = inventory.Hidden
	Outranked     = inventory.Outranked
	NotDiscovered = inventory.NotDiscovered
	Excluded      = inventory.Excluded
	NotImported   = inventory.NotImported
	Merged        = inventory.Merged
)

// writeSteps writes each step and its candidates, a line each, with each ServiceEntry's
// visibility decision when decisions is set (a Kubernetes Service has none to show).
func writeSteps(b *strings.Builder, steps []Step, indent string, decisions bool) {
	for _, l := range steps {
		fmt.Fprintf(b, "\n%s%s:", indent, l.Key)
		for _, c := range l.Candidates {
			if decisions && c.Service.Kind == inventory.ServiceEntry {
				fmt.Fprintf(b, "\n%s  %s %s: %s: %s", indent, c.Service, c.Decision, c.Verdict, c.Reason)
			} else {
				fmt.Fprintf(b, "\n%s  %s: %s: %s", indent, c.Service, c.Verdict, c.Reason)
			}
		}
	}
}

package sidecar

import (
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// FieldError is the one structured error type of meshscope's packages: every error this
// package returns is a *FieldError or several joined.
type FieldError = fielderr.Error

// Finding is one result of a lint, in the one shape every lint of meshscope reports: Path,
// Code, Level (the code's) and Message.
type Finding = report.Finding

// Verdict is what became of a candidate service for a host, at one step of an explanation.
type Verdict string

// The verdicts of an explanation.
const (
	// Chosen: the service the proxy gets for the host.
	Chosen Verdict = "chosen"
	// Hidden: the service is not exported to the proxy's namespace (its exportTo, or the
	// mesh default, narrowed by visibility when applyToSidecars is set).
	Hidden Verdict = "hidden"
	// Outranked: another service of the host is preferred (the reason says which, and why).
	Outranked Verdict = "outranked"
	// NotDiscovered: the service's namespace is not discovered (discoverySelectors), so for
	// istiod the service does not exist.
	NotDiscovered Verdict = "not discovered"
	// Excluded: an exclusion of the listener ("~ns/host") covers the service.
	Excluded Verdict = "excluded"
	// NotImported: no import of the listener covers the service (or the listener's port is
	// not among its ports).
	NotImported Verdict = "not imported"
	// Merged: the service is kept beside the chosen one, of the same namespace, and its ports
	// join the chosen one's.
	Merged Verdict = "merged"
)

// Candidate is one service claiming a host, and what became of it at one step.
type Candidate struct {
	Service inventory.ServiceRef `json:"service"`
	// Decision is the service's visibility. Visibility policies apply to ServiceEntries
	// only: a Kubernetes Service's decision is PUBLIC, and String does not show it.
	Decision visibility.Decision `json:"decision"`
	Verdict  Verdict             `json:"verdict"`
	Reason   string              `json:"reason"`
}

// Step is one step the candidates of a host go through — discovery, then each egress
// listener in order — with every service claiming the host.
type Step struct {
	Key        string      `json:"key"`
	Candidates []Candidate `json:"candidates"`
}

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

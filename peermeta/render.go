package peermeta

import (
	"fmt"
	"strings"
)

// String says where the SPIFFE ID comes from: "service", "mesh-gateway", or "target
// inventory.default.ap2.dc1 by Failover["*"] of default/default/inventory".
func (o Origin) String() string {
	if o.From != FromTarget {
		return string(o.From)
	}
	via := ""
	if n := len(o.Via); n > 0 && o.Via[n-1].Resolver != "" {
		via = " by " + o.Via[n-1].Field + " of " + o.Via[n-1].Resolver
	}
	return "target " + strings.Join(o.Targets, ", ") + via
}

// noChecks is the status of an instance without checks, as Status and Health say it.
const noChecks HealthStatus = "no checks"

// Status is the instance's status: that of its first check (a synthetic instance's one
// flattened check), "no checks" when it has none.
func (n CheckServiceNode) Status() HealthStatus {
	if len(n.Checks) == 0 {
		return noChecks
	}
	return n.Checks[0].Status
}

// String says the instance on one line: "inventory-sidecar-proxy-instance-0 on gw-1
// 10.0.1.10:8443, passing".
func (n CheckServiceNode) String() string {
	s := NodeService{}
	if n.Service != nil {
		s = *n.Service
	}
	return fmt.Sprintf("%s on %s %s:%d, %s", s.ID, nodeName(n), s.Address, s.Port, n.Status())
}

// Health counts instances by status: "2 (1 passing, 1 warning)", "0".
func Health(nodes []CheckServiceNode) string {
	if len(nodes) == 0 {
		return "0"
	}
	counts := map[HealthStatus]int{}
	for _, n := range nodes {
		counts[n.Status()]++
	}
	var parts []string
	for _, st := range []HealthStatus{StatusPassing, StatusWarning, StatusCritical, StatusMaintenance, noChecks} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return fmt.Sprintf("%d (%s)", len(nodes), strings.Join(parts, ", "))
}

// Lines renders the replication changes, without Refused: a line per service — added,
// removed, or its state before and after — then a line per SPIFFE ID gained (+) or lost (-),
// the start target and protocol when they change on a service replicated with a chain on
// both sides, and why the service is not replicated after the change.
func (d ReplicationDiff) Lines() []string {
	if len(d.Services) == 0 {
		return []string{"no replication changes"}
	}
	var out []string
	for _, s := range d.Services {
		b, a := s.Before, s.After
		state := fmt.Sprintf("%s → %s", b.As, a.As)
		switch {
		case !b.received() && a.received():
			state = fmt.Sprintf("added (%s)", a.As)
		case b.received() && !a.received():
			state = fmt.Sprintf("removed (was %s)", b.As)
		}
		out = append(out, fmt.Sprintf("%s: %s", s.Key, state))
		for _, id := range s.Gained {
			out = append(out, "  + accepts "+id)
		}
		for _, id := range s.Lost {
			out = append(out, "  - accepts "+id)
		}
		if b.Start != a.Start && b.Start != "" && a.Start != "" {
			out = append(out, fmt.Sprintf("  start target %s → %s", b.Start, a.Start))
		}
		if b.Protocol != a.Protocol && b.Protocol != "" && a.Protocol != "" {
			out = append(out, fmt.Sprintf("  protocol %s → %s", b.Protocol, a.Protocol))
		}
		if a.Reason != "" {
			out = append(out, fmt.Sprintf("  %s after the change: %s", a.As, a.Reason))
		}
	}
	return out
}

// received reports whether the peer receives a service in state s: with a chain or as a
// plain service (a failed or excluded one is exported but not received).
func (s ServiceState) received() bool { return s.As == AsChain || s.As == AsPlain }

package intentions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Intention is one source→destination rule, as Consul lists intentions (and as a sidecar
// receives them): one source of a service-intentions entry with the entry's destination.
type Intention struct {
	SourceName      string `json:"SourceName"`
	SourcePeer      string `json:"SourcePeer,omitempty"`
	DestinationName string `json:"DestinationName"`
	// Precedence is Precedence(SourceName, DestinationName): 9, 8, 6 or 5.
	Precedence  int          `json:"Precedence"`
	Action      Action       `json:"Action,omitempty"`
	Permissions []Permission `json:"Permissions,omitempty"`
	// JWT is the entry's requirement (not modelled; see ConfigEntry.JWT).
	JWT *JWTRequirement `json:"JWT,omitempty"`
}

// Precedence returns the precedence Consul gives an intention from source to destination (each a
// service name or "*") in Consul CE, where every namespace is "default": 9 for a→b, 8 for *→b,
// 6 for a→*, 5 for *→*. A source's peer does not count. Higher is more precedent.
func Precedence(source, destination string) int {
	p := 9
	if destination == Wildcard {
		p = 6
	}
	if source == Wildcard {
		p--
	}
	return p
}

// Compare orders intentions as Consul does (its precedence sorter): by Precedence, highest
// first; ties by source peer, source name, then destination name, each in byte order (the
// source and destination namespaces and partitions, which come between, are all "default" in
// Consul CE). It is a total order on intentions with distinct sources and destinations.
func Compare(a, b Intention) int {
	return cmp.Or(
		cmp.Compare(b.Precedence, a.Precedence),
		strings.Compare(a.SourcePeer, b.SourcePeer),
		strings.Compare(a.SourceName, b.SourceName),
		strings.Compare(a.DestinationName, b.DestinationName),
	)
}

// Sort puts intentions in Consul's order (Compare), in place.
func Sort(list []Intention) { slices.SortStableFunc(list, Compare) }

// Intentions returns the entry's intentions as Consul stores them, one per source in the order
// of Sources, whether or not the entry is normalized: each with its precedence computed and its
// permissions' methods upper-cased (in copies).
func (e *ConfigEntry) Intentions() []Intention {
	out := make([]Intention, len(e.Sources))
	for i, s := range e.Sources {
		perms := clonePermissions(s.Permissions)
		upperMethods(perms)
		out[i] = Intention{
			SourceName:      s.Name,
			SourcePeer:      s.Peer,
			DestinationName: e.Name,
			Precedence:      Precedence(s.Name, e.Name),
			Action:          s.Action,
			Permissions:     perms,
			JWT:             e.JWT.clone(),
		}
	}
	return out
}

// ForDestination returns the intentions a destination service's sidecar receives from the
// stored entries: those of the entry named after the service and of the entry named "*", in
// Consul's order (Compare). entries are the stored service-intentions entries, at most one per
// name (as a store holds them).
func ForDestination(destination string, entries []ConfigEntry) []Intention {
	var out []Intention
	for i := range entries {
		if n := entries[i].Name; n == destination || n == Wildcard {
			out = append(out, entries[i].Intentions()...)
		}
	}
	Sort(out)
	return out
}

// Source returns the intention's source as meshscope writes it: "web", "*", "web@east" (a
// service of the peer east).
func (x Intention) Source() string {
	if x.SourcePeer == "" {
		return x.SourceName
	}
	return x.SourceName + "@" + x.SourcePeer
}

// L7 reports whether the intention has permissions.
func (x Intention) L7() bool { return len(x.Permissions) > 0 }

// String renders the intention on one line: "web@east → api (9, allow)", or with
// "2 permissions" in place of the action.
func (x Intention) String() string {
	what := string(x.Action)
	if x.L7() {
		what = fmt.Sprintf("%d permission", len(x.Permissions))
		if len(x.Permissions) > 1 {
			what += "s"
		}
	}
	return fmt.Sprintf("%s → %s (%d, %s)", x.Source(), x.DestinationName, x.Precedence, what)
}

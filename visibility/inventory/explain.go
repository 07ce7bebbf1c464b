package inventory

import "github.com/meshscope/meshscope/visibility"

// The one shape every view of an inventory explains a decision in (ambient's lookups,
// sidecar's hosts, routes and rules): the steps a decision went through, every candidate at
// each, and what became of it. The views export these types under their own names.

// Verdict is what became of a candidate at one step of an explanation. Each view says which
// verdicts it gives and what each means there.
type Verdict string

// The verdicts of the views' explanations.
const (
	// Chosen: the candidate is the answer.
	Chosen Verdict = "chosen"
	// Hidden: the candidate does not exist for the one asking (its visibility, its exportTo).
	Hidden Verdict = "hidden"
	// Outranked: the candidate stands, but another comes first.
	Outranked Verdict = "outranked"
	// NotReached: an earlier step answered.
	NotReached Verdict = "not reached"
	// NoAddress: the candidate has no address, so a DNS proxy does not answer for it.
	NoAddress Verdict = "no address"
	// Undetermined: the candidate may be the answer: which one of those so marked is, the
	// inventory does not determine (the release leaves it to the order things arrive in).
	Undetermined Verdict = "undetermined"
	// NotDiscovered: the candidate's namespace is not discovered (discoverySelectors).
	NotDiscovered Verdict = "not discovered"
	// Excluded: an exclusion covers the candidate.
	Excluded Verdict = "excluded"
	// NotImported: nothing imports the candidate.
	NotImported Verdict = "not imported"
	// Merged: the candidate joins the chosen one.
	Merged Verdict = "merged"
)

// Candidate is one thing that claims what is explained, and what became of it at one step:
// a service claiming a host or an address (Service, with its visibility Decision), or an
// object whose host matches it — a VirtualService or a DestinationRule (Object, with that
// Host).
type Candidate struct {
	// Service is the service; zero for an object.
	Service ServiceRef `json:"service,omitzero"`
	// Object is the VirtualService or DestinationRule, "namespace/name"; "" for a service.
	Object string `json:"object,omitempty"`
	// Host is the object's host that matches, as the view resolved it; "" for a service.
	Host string `json:"host,omitempty"`
	// Decision is a service's visibility decision; zero for an object.
	Decision visibility.Decision `json:"decision,omitzero"`
	Verdict  Verdict             `json:"verdict"`
	// Reason says why, in words.
	Reason string `json:"reason"`
}

// Step is one step of an explanation — a level of a lookup, an egress listener, a pool of
// rules — named by Key, with its candidates in the order the step considers them.
type Step struct {
	Key        string      `json:"key"`
	Candidates []Candidate `json:"candidates"`
}

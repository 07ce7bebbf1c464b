package peermeta

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/intentions"
)

// CallChange is a call whose answer a change of configuration changes: a caller, a
// destination and a request, and the answer on each side.
type CallChange struct {
	Caller  intentions.Caller
	Service string
	Request intentions.Request
	Before  CallState
	After   CallState
}

// CallState is the answer to one call on one side of a change.
type CallState struct {
	// Allowed: the call arrives and Envoy lets it through.
	Allowed bool
	// Why says what decided: the decision (intentions.Decision.String), "unreachable: …",
	// or the error that left no answer.
	Why string
}

// DiffCalls is the dry run of a change of intentions (and of anything else a call depends
// on: exports, protocols, chains, peerings) for the callers it can name: for every
// destination whose sidecar receives intentions on either side (Calls.Destinations), each
// caller an intention of its sidecar names (a service, or a peer's service; a "*" source
// names none), asked with probe ("GET /" when it says none) and with one request fitting each permission of the
// intentions naming that caller or "*" on either side, under acl. It returns each call whose
// answer — allowed or not — differs, sorted by destination, caller and request.
func DiffCalls(before, after *Calls, acl intentions.ACL, probe intentions.Request) []CallChange {
	probe.Method, probe.Path = cmp.Or(probe.Method, "GET"), cmp.Or(probe.Path, "/")
	var out []CallChange
	dests := slices.Compact(slices.Sorted(slices.Values(slices.Concat(before.Destinations(), after.Destinations()))))
	for _, dest := range dests {
		lists := [2][]intentions.Intention{before.intentionsOf(dest), after.intentionsOf(dest)}
		for _, caller := range namedCallers(lists) {
			for _, r := range probes(lists, caller, probe) {
				b, a := before.state(caller, dest, r, acl), after.state(caller, dest, r, acl)
				if b.Allowed != a.Allowed {
					out = append(out, CallChange{Caller: caller, Service: dest, Request: r, Before: b, After: a})
				}
			}
		}
	}
	return out
}

// intentionsOf returns the intentions the sidecar of dest receives, in Consul's order; none
// when its inputs do not compile.
func (c *Calls) intentionsOf(dest string) []intentions.Intention {
	d, err := c.sidecars.Destination(dest)
	if err != nil {
		return nil
	}
	return d.Intentions()
}

// state is the answer to one call.
func (c *Calls) state(caller intentions.Caller, dest string, r intentions.Request, acl intentions.ACL) CallState {
	call, err := c.May(caller, dest, r, acl)
	switch {
	case err != nil:
		return CallState{Why: "no answer: " + err.Error()}
	case !call.Reachable:
		return CallState{Why: "unreachable: " + strings.Join(call.Notes, "; ")}
	}
	return CallState{Allowed: call.Allowed, Why: call.Explanation.Decision.String()}
}

// namedCallers returns the callers the intentions of both sides name, sorted by peer and
// service.
func namedCallers(lists [2][]intentions.Intention) []intentions.Caller {
	var out []intentions.Caller
	for _, list := range lists {
		for _, x := range list {
			if x.SourceName != intentions.Wildcard {
				out = append(out, intentions.Caller{Service: x.SourceName, Peer: x.SourcePeer})
			}
		}
	}
	slices.SortFunc(out, func(a, b intentions.Caller) int {
		return cmp.Or(strings.Compare(a.Peer, b.Peer), strings.Compare(a.Service, b.Service))
	})
	return slices.Compact(out)
}

// probes returns the requests a caller is asked with: probe, then one fitting each permission
// of the intentions of both sides naming the caller or "*" of its peer, each once.
func probes(lists [2][]intentions.Intention, caller intentions.Caller, probe intentions.Request) []intentions.Request {
	out := []intentions.Request{probe}
	seen := map[string]bool{requestKey(probe): true}
	for _, list := range lists {
		for _, x := range list {
			if x.SourcePeer != caller.Peer || x.SourceName != caller.Service && x.SourceName != intentions.Wildcard {
				continue
			}
			for _, p := range x.Permissions {
				if r := fitting(p, probe); !seen[requestKey(r)] {
					seen[requestKey(r)] = true
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// fitting returns a request that fits the permission's HTTP match where it can (a regular
// expression is not inverted), the rest taken from probe.
func fitting(p intentions.Permission, probe intentions.Request) intentions.Request {
	r := intentions.Request{Method: probe.Method, Path: probe.Path, Headers: maps.Clone(probe.Headers)}
	h := p.HTTP
	if h == nil {
		return r
	}
	if len(h.Methods) > 0 {
		r.Method = strings.ToUpper(h.Methods[0])
	}
	r.Path = cmp.Or(h.PathExact, h.PathPrefix, r.Path)
	for _, m := range h.Header {
		v := cmp.Or(m.Exact, m.Prefix, m.Suffix)
		if m.Invert || m.Regex != "" || v == "" && !m.Present {
			continue
		}
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		r.Headers[strings.ToLower(m.Name)] = cmp.Or(v, "present")
	}
	return r
}

// requestKey says a request in one string.
func requestKey(r intentions.Request) string {
	var b strings.Builder
	b.WriteString(r.Method + " " + r.Path)
	for _, k := range slices.Sorted(maps.Keys(r.Headers)) {
		b.WriteString("\n" + k + ": " + r.Headers[k])
	}
	return b.String()
}

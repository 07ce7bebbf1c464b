package store

import (
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// readEntries returns the entries Consul's server reads to compile the chain of start: its
// router; the splitters of the services the router names (its own included) — without a
// router, start's — and of the services those splitters' splits name; from each of those
// services, the resolver of each service reached and the services it names
// (chain.ServiceResolver.Related), its own service in each partition member of a sameness group it names
// (looked up in start's partition), and for a service without a resolver its name in the
// partition members of its partition's DefaultForFailover group; the protocol of every
// service read; the proxy-defaults protocol; and the groups read. Package chain compiles
// from them what the server compiles. When rec is not nil, the key of every entry looked up,
// present or not, is appended to it (a partition's DefaultForFailover group as its
// groupsOf key): the chain of start changes only with a write of one of them.
func (st *Store) readEntries(start exports.ServiceName, rec *[]key) chain.Entries {
	live := func(k key) *entry {
		if rec != nil {
			*rec = append(*rec, k)
		}
		return st.live(k)
	}
	var e chain.Entries
	seen := map[exports.ServiceName]bool{}
	var groups []key
	start = start.Canonical()
	todo := []exports.ServiceName{start}
	if r := live(key{kindServiceRouter, start}); r != nil {
		e.Routers = append(e.Routers, *r.router())
		todo = r.router().Related()
	}
	for _, s := range todo {
		seen[s] = true
	}
	for i := 0; i < len(todo); i++ { // the splitters read: todo gains the services they name
		if sp := live(key{kindServiceSplitter, todo[i]}); sp != nil {
			e.Splitters = append(e.Splitters, *sp.splitter())
			for _, t := range sp.splitter().Related() {
				if !seen[t] {
					seen[t] = true
					todo = append(todo, t)
				}
			}
		}
	}
	clear(seen)
	members := func(g *entry, s exports.ServiceName) {
		if !slices.Contains(groups, g.key) {
			groups = append(groups, g.key)
		}
		for _, m := range g.group().OrderedMembers() {
			if m.Peer == "" {
				todo = append(todo, exports.ServiceName{Partition: m.Partition, Namespace: s.Namespace, Name: s.Name}.Canonical())
			}
		}
	}
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		if d := live(key{kindServiceDefaults, s}); d != nil {
			if e.Protocols == nil {
				e.Protocols = map[exports.ServiceName]string{}
			}
			e.Protocols[s] = d.protocol()
		}
		r := live(key{kindServiceResolver, s})
		if r == nil {
			if rec != nil {
				*rec = append(*rec, groupsOf(s.Partition))
			}
			if g := st.defaultGroup(s.Partition); g != nil {
				members(g, s)
			}
			continue
		}
		e.Resolvers = append(e.Resolvers, *r.resolver())
		todo = append(todo, r.resolver().Related()...)
		for _, name := range r.resolver().SamenessGroups() {
			if g := live(key{kindSamenessGroup, exports.ServiceName{Partition: start.Canonical().Partition, Name: name}.Canonical()}); g != nil {
				members(g, s)
			}
		}
	}
	if pd := live(key{kindProxyDefaults, exports.ServiceName{}.Canonical()}); pd != nil {
		e.DefaultProtocol = pd.protocol()
	}
	for _, k := range groups {
		e.SamenessGroups = append(e.SamenessGroups, *st.entries[k].group())
	}
	return e
}

package peermeta

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/strict"
)

// store is what a Consul server holds, as the write path works on it: each config entry of
// the kinds replication reads, by kind and name, in the order first read or written, with
// the indexes its checks read — which resolvers, routers and splitters name each service
// (Consul's link index), the sameness groups of each partition, and what each partition
// exports to peers.
type store struct {
	entries map[entryKey]*entry
	order   []entryKey
	naming  map[exports.ServiceName]map[entryKey]bool // service -> the resolvers, routers and splitters that name it
	groups  map[string][]entryKey                     // partition -> its sameness groups' keys, in order
	peers   map[string]*peerExports                   // partition -> what it exports to peers, built on first use
}

// newStore returns a store holding c's entries (shared with c: the write path replaces
// entries, it never changes one). Two entries of one kind and name are an error.
func newStore(c *Config) (*store, error) {
	st := &store{entries: map[entryKey]*entry{}, naming: map[exports.ServiceName]map[entryKey]bool{},
		groups: map[string][]entryKey{}, peers: map[string]*peerExports{}}
	var dups []error
	for _, list := range []struct {
		path    string
		entries []*entry
	}{
		{"Exports", exportEntries(c.Exports)}, {"Entries.SamenessGroups", groupEntries(c.Entries.SamenessGroups)},
		{"Entries.Resolvers", resolverEntries(c.Entries.Resolvers)}, {"Entries.Routers", routerEntries(c.Entries.Routers)},
		{"Entries.Splitters", splitterEntries(c.Entries.Splitters)}, {"Entries.Protocols", protocolEntries(c.Entries.Protocols)},
	} {
		for i, e := range list.entries {
			if _, dup := st.entries[e.key]; dup {
				dups = append(dups, duplicate(list.path, i, e))
				continue
			}
			st.set(e)
		}
	}
	if c.proxyDefaults || c.Entries.DefaultProtocol != "" {
		st.set(&entry{key: entryKey{kindProxyDefaults, exports.ServiceName{}.Canonical()}, name: "global", protocol: c.Entries.DefaultProtocol})
	}
	if len(dups) > 0 {
		return nil, fmt.Errorf("the configuration holds an entry twice: %w", errors.Join(dups...))
	}
	return st, nil
}

// duplicate is the error for e, entry i of the list at path in a Config, when an entry of its
// kind and name comes before it. Its Where is the entry and its Field the Name repeated; for
// the Protocols map, Where is the map and Field the key, as written.
func duplicate(path string, i int, e *entry) *FieldError {
	where, field := fmt.Sprintf("%s (%s %s)", strict.Index(path, i), e.key.kind, e.name), "Name"
	if e.key.kind == kindServiceDefaults {
		where, field = path, strict.Key("", e.partition+"/"+e.namespace+"/"+e.name)
	}
	return &FieldError{Where: where, Field: field, Value: e.key.name.String(), Detail: fmt.Sprintf("a second %s entry for %s", e.key.kind, e.key.name.Short())}
}

// live returns the stored entry of key, nil when there is none.
func (st *store) live(key entryKey) *entry {
	if e := st.entries[key]; e != nil && !e.deleted {
		return e
	}
	return nil
}

// set stores e in place of the entry of its key (a deleted e removes it) and returns what
// was stored before: nil for nothing.
func (st *store) set(e *entry) (prev *entry) {
	prev = st.live(e.key)
	if _, known := st.entries[e.key]; !known {
		st.order = append(st.order, e.key)
		if e.key.kind == kindSamenessGroup {
			p := e.key.name.Partition
			st.groups[p] = append(st.groups[p], e.key)
		}
	}
	st.entries[e.key] = e
	switch e.key.kind {
	case kindServiceResolver, kindServiceRouter, kindServiceSplitter:
		if prev != nil {
			for _, t := range prev.links() {
				delete(st.naming[t], e.key)
			}
		}
		if !e.deleted {
			for _, t := range e.links() {
				if st.naming[t] == nil {
					st.naming[t] = map[entryKey]bool{}
				}
				st.naming[t][e.key] = true
			}
		}
	case kindExportedServices, kindSamenessGroup:
		delete(st.peers, e.key.name.Partition)
	}
	return prev
}

// restore puts back what set returned for key.
func (st *store) restore(key entryKey, prev *entry) {
	if prev == nil {
		prev = &entry{key: key, deleted: true}
	}
	st.set(prev)
}

// forget drops key, set last for the first time and refused, as if it had never been set.
func (st *store) forget(key entryKey) {
	delete(st.entries, key)
	st.order = st.order[:len(st.order)-1]
	if key.kind == kindSamenessGroup {
		p := key.name.Partition
		st.groups[p] = st.groups[p][:len(st.groups[p])-1]
	}
}

// config returns the entries stored as a Config: each kind's entries in the order first read
// or written.
func (st *store) config() Config {
	var c Config
	for _, k := range st.order {
		if e := st.live(k); e != nil {
			c.put(e)
		}
	}
	return c
}

// resolvers returns the services with a resolver entry, in partition (all when ""), in the
// order stored.
func (st *store) resolvers(partition string) []exports.ServiceName {
	return st.named(partition, kindServiceResolver)
}

// chains returns the services with a resolver, router or splitter entry — Consul's
// discovery chain names — in partition (all when ""), once each, in the order stored.
func (st *store) chains(partition string) []exports.ServiceName {
	return st.named(partition, kindServiceResolver, kindServiceRouter, kindServiceSplitter)
}

// named returns the services with an entry of one of kinds in partition (all when ""),
// once each, in the order stored.
func (st *store) named(partition string, kinds ...string) []exports.ServiceName {
	var out []exports.ServiceName
	seen := map[exports.ServiceName]bool{}
	for _, k := range st.order {
		if slices.Contains(kinds, k.kind) && (partition == "" || k.name.Partition == partition) && !seen[k.name] && st.live(k) != nil {
			seen[k.name] = true
			out = append(out, k.name)
		}
	}
	return out
}

// hasChain reports whether s (canonical) has a resolver, router or splitter entry.
func (st *store) hasChain(s exports.ServiceName) bool {
	return st.live(entryKey{kindServiceResolver, s}) != nil || st.live(entryKey{kindServiceRouter, s}) != nil ||
		st.live(entryKey{kindServiceSplitter, s}) != nil
}

// links returns the services a resolver, router or splitter entry names — Consul's link
// index, which says what a write of one of them recompiles e's chain for.
func (e *entry) links() []exports.ServiceName {
	switch {
	case e.resolver != nil:
		return resolverLinks(e.resolver)
	case e.router != nil:
		return e.router.Related()
	case e.splitter != nil:
		return e.splitter.Related()
	}
	return nil
}

// resolverLinks returns the local services Consul's server links the resolver r to — the
// services it reads next when it reads r, and the chains a write of one of them recompiles
// r's for: its redirect's service (a redirect to a peer included), each failover section's
// Service (its own, for a section of datacenters or a sameness group), and each failover
// target not on a peer; in r's namespace and partition unless they give others; r's own
// service left out; canonical.
func resolverLinks(r *chain.ServiceResolver) []exports.ServiceName {
	own := r.ServiceName()
	var out []exports.ServiceName
	add := func(partition, namespace, name string) {
		if s := (exports.ServiceName{Partition: partition, Namespace: namespace, Name: name}).Canonical(); s != own && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if rd := r.Redirect; rd != nil {
		add(cmp.Or(rd.Partition, r.Partition), cmp.Or(rd.Namespace, r.Namespace), cmp.Or(rd.Service, r.Name))
	}
	for _, key := range slices.Sorted(maps.Keys(r.Failover)) {
		f := r.Failover[key]
		if len(f.Targets) == 0 {
			add(r.Partition, cmp.Or(f.Namespace, r.Namespace), cmp.Or(f.Service, r.Name))
			continue
		}
		for _, t := range f.Targets {
			if t.Peer == "" {
				add(cmp.Or(t.Partition, r.Partition), cmp.Or(t.Namespace, f.Namespace, r.Namespace), cmp.Or(t.Service, r.Name))
			}
		}
	}
	return out
}

// groupNames returns the sameness groups r's redirect and failover sections name.
func groupNames(r *chain.ServiceResolver) []string {
	var out []string
	if r.Redirect != nil && r.Redirect.SamenessGroup != "" {
		out = append(out, r.Redirect.SamenessGroup)
	}
	for _, key := range slices.Sorted(maps.Keys(r.Failover)) {
		if g := r.Failover[key].SamenessGroup; g != "" {
			out = append(out, g)
		}
	}
	return out
}

// defaultGroup returns the DefaultForFailover sameness group of partition, nil for none.
func (st *store) defaultGroup(partition string) *entry {
	for _, k := range st.groups[partition] {
		if g := st.live(k); g != nil && g.group.DefaultForFailover {
			return g
		}
	}
	return nil
}

// readEntries returns the entries Consul's server reads to compile the chain of start: its
// router; the splitters of the services the router names (its own included) — without a
// router, start's — and of the services those splitters' splits name; from each of those
// services, the resolver of each service reached and the services it names
// (resolverLinks), its own service in each partition member of a sameness group it names
// (looked up in start's partition), and for a service without a resolver its name in the
// partition members of its partition's DefaultForFailover group; the protocol of every
// service read; the proxy-defaults protocol; and the groups read. Package chain compiles
// from them what the server compiles.
func (st *store) readEntries(start exports.ServiceName) chain.Entries {
	var e chain.Entries
	seen := map[exports.ServiceName]bool{}
	var groups []entryKey
	start = start.Canonical()
	todo := []exports.ServiceName{start}
	if r := st.live(entryKey{kindServiceRouter, start}); r != nil {
		e.Routers = append(e.Routers, *r.router)
		todo = r.router.Related()
	}
	for _, s := range todo {
		seen[s] = true
	}
	for i := 0; i < len(todo); i++ { // the splitters read: todo gains the services they name
		if sp := st.live(entryKey{kindServiceSplitter, todo[i]}); sp != nil {
			e.Splitters = append(e.Splitters, *sp.splitter)
			for _, t := range sp.splitter.Related() {
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
		for _, m := range g.group.OrderedMembers() {
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
		if d := st.live(entryKey{kindServiceDefaults, s}); d != nil {
			if e.Protocols == nil {
				e.Protocols = map[exports.ServiceName]string{}
			}
			e.Protocols[s] = d.protocol
		}
		r := st.live(entryKey{kindServiceResolver, s})
		if r == nil {
			if g := st.defaultGroup(s.Partition); g != nil {
				members(g, s)
			}
			continue
		}
		e.Resolvers = append(e.Resolvers, *r.resolver)
		todo = append(todo, resolverLinks(r.resolver)...)
		for _, name := range groupNames(r.resolver) {
			if g := st.live(entryKey{kindSamenessGroup, exports.ServiceName{Partition: start.Canonical().Partition, Name: name}.Canonical()}); g != nil {
				members(g, s)
			}
		}
	}
	if pd := st.live(entryKey{kindProxyDefaults, exports.ServiceName{}.Canonical()}); pd != nil {
		e.DefaultProtocol = pd.protocol
	}
	for _, k := range groups {
		e.SamenessGroups = append(e.SamenessGroups, *st.entries[k].group)
	}
	return e
}

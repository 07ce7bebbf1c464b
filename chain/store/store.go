package store

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
)

// Store is what a Consul server holds, as its write path works on it: each config entry of
// the kinds the store models, by kind and name, in the order first read or written, with the
// indexes its checks read — which resolvers, routers and splitters name each service
// (Consul's link index), the sameness groups of each partition, and what each partition
// exports to peers. Its Apply judges each write as a live server does, at the cost of the
// entries the write touches, not the size of the Store. A Store is not safe for concurrent
// use; the Config it gives is a copy.
type Store struct {
	entries map[key]*entry
	order   []key
	naming  map[exports.ServiceName]map[key]bool // service -> the resolvers, routers and splitters that name it
	groups  map[string][]key                     // partition -> its sameness groups' keys, in order
	peers   map[string]*peerExports              // partition -> what it exports to peers, built on first use
	reads   reads                                // what the chains of the intentions' destinations read
	view    view                                 // the Config its entries make, kept as writes are stored
	gen     atomic.Uint64                        // which of its views a Config holds is current (see Config.store)
}

// New returns a Store holding c's entries and findings. It keeps the entries (shared with c:
// the write path replaces entries, it never changes one): do not change them while the Store
// is in use. Two entries of one kind and name in c are an error, naming where each is.
func New(c Config) (*Store, error) {
	held := make([][]any, len(kinds))
	n := 0
	for i, k := range kinds {
		held[i] = k.values(&c)
		n += len(held[i])
	}
	st := &Store{entries: make(map[key]*entry, n), order: make([]key, 0, n), naming: map[exports.ServiceName]map[key]bool{},
		groups: map[string][]key{}, peers: map[string]*peerExports{}}
	var dups []error
	for j, k := range kinds {
		for i, v := range held[j] {
			e := newEntry(k, v)
			e.pos = i
			if _, dup := st.entries[e.key]; dup {
				dups = append(dups, duplicate(e))
				continue
			}
			st.set(e)
		}
	}
	if len(dups) > 0 {
		return nil, fmt.Errorf("the configuration holds an entry twice: %w", errors.Join(dups...))
	}
	for _, k := range st.order {
		if e := st.entries[k]; k.kind == kindServiceIntentions && e.name != intentions.Wildcard {
			st.index(k.name)
		}
	}
	st.view.c = c.clipped()
	st.view.c.st = nil
	st.view.shareAll() // c's lists and map are c's: the first change copies them
	return st, nil
}

// duplicate is the error for e, an entry of a Config, when an entry of its kind and name comes
// before it: Where and Field are its place.
func duplicate(e *entry) *FieldError {
	where, field := e.place()
	return &FieldError{Where: where, Field: field, Value: e.key.name.String(), Detail: fmt.Sprintf("a second %s entry for %s", e.key.kind, e.key.name.Short())}
}

// live returns the stored entry of key, nil when there is none.
func (st *Store) live(k key) *entry {
	if e := st.entries[k]; e != nil && !e.deleted {
		return e
	}
	return nil
}

// set stores e in place of the entry of its key (a deleted e removes it) and returns what
// was stored before: nil for nothing.
func (st *Store) set(e *entry) (prev *entry) {
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
					st.naming[t] = map[key]bool{}
				}
				st.naming[t][e.key] = true
			}
		}
	case kindExportedServices, kindSamenessGroup:
		delete(st.peers, e.key.name.Partition)
	}
	return prev
}

// restore puts back prev, what set returned for e's key.
func (st *Store) restore(e, prev *entry) {
	if prev == nil {
		prev = e.deletion()
	}
	st.set(prev)
}

// forget drops k, set last for the first time and refused, as if it had never been set.
func (st *Store) forget(k key) {
	delete(st.entries, k)
	st.order = st.order[:len(st.order)-1]
	if k.kind == kindSamenessGroup {
		p := k.name.Partition
		st.groups[p] = st.groups[p][:len(st.groups[p])-1]
	}
}

// resolvers returns the services with a resolver entry, in partition (all when ""), in the
// order stored.
func (st *Store) resolvers(partition string) []exports.ServiceName {
	return st.named(partition, kindServiceResolver)
}

// chains returns the services with a resolver, router or splitter entry — Consul's
// discovery chain names — in partition (all when ""), once each, in the order stored.
func (st *Store) chains(partition string) []exports.ServiceName {
	return st.named(partition, kindServiceResolver, kindServiceRouter, kindServiceSplitter)
}

// named returns the services with an entry of one of the kinds of in partition (all when ""),
// once each, in the order stored.
func (st *Store) named(partition string, of ...string) []exports.ServiceName {
	var out []exports.ServiceName
	seen := map[exports.ServiceName]bool{}
	for _, k := range st.order {
		if slices.Contains(of, k.kind) && (partition == "" || k.name.Partition == partition) && !seen[k.name] && st.live(k) != nil {
			seen[k.name] = true
			out = append(out, k.name)
		}
	}
	return out
}

// hasChain reports whether s (canonical) has a resolver, router or splitter entry.
func (st *Store) hasChain(s exports.ServiceName) bool {
	return st.live(key{kindServiceResolver, s}) != nil || st.live(key{kindServiceRouter, s}) != nil ||
		st.live(key{kindServiceSplitter, s}) != nil
}

// defaultGroup returns the DefaultForFailover sameness group of partition, nil for none.
func (st *Store) defaultGroup(partition string) *entry {
	for _, k := range st.groups[partition] {
		if g := st.live(k); g != nil && g.group().DefaultForFailover {
			return g
		}
	}
	return nil
}

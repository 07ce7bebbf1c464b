package store

import (
	"cmp"
	"reflect"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
)

// kindServiceIntentions is the kind of a service-intentions entry.
const kindServiceIntentions = intentions.Kind

// intentionsKind is the row of service-intentions: entries decoded by package intentions'
// strict decoder and validated by its Validate, kept as written (package intentions reads an
// entry as Consul stores it, normalized or not). Consul's server compiles the chain of the
// entry's destination when it is written, and refuses the entry when it gives permissions to
// a destination whose chain is not HTTP-like (l7Reasons).
func intentionsKind() *kind {
	k := listed(kindServiceIntentions, "Intentions", func(c *Config) *[]intentions.ConfigEntry { return &c.Intentions },
		func(x *intentions.ConfigEntry) (string, string, string) { return x.Name, "", "" }, serviceNamed,
		(*intentions.ConfigEntry).Validate, ownDestination, nil)
	k.same = func(a, b any) bool { return sameIntentions(a.(*intentions.ConfigEntry), b.(*intentions.ConfigEntry)) }
	return k
}

// ownDestination: writing a service-intentions entry, Consul's server compiles its
// destination's chain (not the "*" destination's, which no entry can break); deleting one it
// does not judge.
func ownDestination(_ *Store, e *entry) []exports.ServiceName {
	if e.deleted || e.name == intentions.Wildcard {
		return nil
	}
	return []exports.ServiceName{e.key.name}
}

// sameIntentions reports whether two entries are the same once Consul has normalized them,
// for the dry run: an entry read from Consul (normalized) and the same entry as a user wrote
// it are one entry.
func sameIntentions(a, b *intentions.ConfigEntry) bool {
	x, y := a.Normalized(), b.Normalized()
	x.CreateIndex, x.ModifyIndex, y.CreateIndex, y.ModifyIndex = 0, 0, 0, 0
	return reflect.DeepEqual(x, y)
}

func (e *entry) intentions() *intentions.ConfigEntry {
	v, _ := e.value.(*intentions.ConfigEntry)
	return v
}

// groupsOf is the key a chain's reads name a partition's DefaultForFailover group by: the
// chain of a service without a resolver reads every sameness group of its partition.
func groupsOf(partition string) key {
	return key{kindSamenessGroup + " (all)", exports.ServiceName{Partition: partition}.Canonical()}
}

// Consul's server judges the intentions with every write that can change a chain's
// protocol: writing a service-resolver, service-router, service-splitter, service-defaults
// or proxy-defaults entry (or deleting one), it compiles the chain of every destination of a
// service-intentions entry and refuses the write when an entry giving permissions — the
// written entry's own name first, then every other by name — would name a chain that is not
// HTTP-like, or when one of those chains does not compile or is no longer safe to export. A
// chain changes only with a write of an entry it reads, so the Store keeps, for the chain of
// each destination of a stored service-intentions entry, the keys of the entries it reads
// (readEntries), and such a write judges only the chains that read its key: the others
// compile as they did before the write, and gave no reason then.

// reads is the index of what intention destinations' chains read.
type reads struct {
	of map[exports.ServiceName][]key        // destination -> the keys its chain reads
	by map[key]map[exports.ServiceName]bool // key -> the destinations whose chain reads it
}

// destinations returns the destinations of service-intentions entries whose chain the write
// of e (a key of a kind that rechecks intentions, or a sameness group) changes.
func (st *Store) destinations(e *entry) []exports.ServiceName {
	var out []exports.ServiceName
	for d := range st.reads.by[e.key] {
		out = append(out, d)
	}
	if e.key.kind == kindSamenessGroup {
		for d := range st.reads.by[groupsOf(e.key.name.Partition)] {
			out = append(out, d)
		}
	}
	return out
}

// recheck returns the chains the write of e recompiles for the intentions: those of the
// destinations it changes, when its kind is one whose write Consul judges the intentions with.
func (st *Store) recheck(e *entry) []exports.ServiceName {
	if !e.kind.rechecks {
		return nil
	}
	return st.destinations(e)
}

// reindex brings the index up to date after the write of e was stored: the reads of every
// destination whose chain the write changes, and of the destination of a service-intentions
// entry written (or deleted).
func (st *Store) reindex(e *entry) {
	todo := st.destinations(e)
	if e.key.kind == kindServiceIntentions && e.name != intentions.Wildcard {
		todo = append(todo, e.key.name)
	}
	for _, d := range todo {
		st.unindex(d)
		if st.live(key{kindServiceIntentions, d}) != nil {
			st.index(d)
		}
	}
}

// index records what the chain of destination d reads.
func (st *Store) index(d exports.ServiceName) {
	var keys []key
	st.readEntries(d, &keys)
	slices.SortFunc(keys, compareKeys)
	keys = slices.Compact(keys)
	if st.reads.of == nil {
		st.reads = reads{of: map[exports.ServiceName][]key{}, by: map[key]map[exports.ServiceName]bool{}}
	}
	st.reads.of[d] = keys
	for _, k := range keys {
		if st.reads.by[k] == nil {
			st.reads.by[k] = map[exports.ServiceName]bool{}
		}
		st.reads.by[k][d] = true
	}
}

// unindex forgets what the chain of destination d reads.
func (st *Store) unindex(d exports.ServiceName) {
	for _, k := range st.reads.of[d] {
		delete(st.reads.by[k], d)
		if len(st.reads.by[k]) == 0 {
			delete(st.reads.by, k)
		}
	}
	delete(st.reads.of, d)
}

func compareKeys(a, b key) int {
	return cmp.Or(strings.Compare(a.kind, b.kind), a.name.Compare(b.name))
}

// l7Reasons are Consul's refusals of the write of e for intentions giving permissions to a
// destination whose chain, with e in place, is not HTTP-like: for a service-intentions entry,
// its own; for a write that rechecks the intentions, each stored entry it changes the chain
// of, the one of the written entry's name first, then the others by name. protocols holds the
// protocol of every chain the write recompiled that compiled; a destination whose chain did
// not is left out (its reason is given).
func (st *Store) l7Reasons(e *entry, protocols map[exports.ServiceName]string) []string {
	refuse := func(x *intentions.ConfigEntry, d exports.ServiceName, prefix string) []string {
		p, ok := protocols[d]
		if !ok || !x.RequiresHTTP() {
			return nil
		}
		if err := x.CheckProtocol(p); err != nil {
			return []string{prefix + consulWords(err)[0]}
		}
		return nil
	}
	if x := e.intentions(); x != nil {
		return refuse(x, e.key.name, "")
	}
	if !e.kind.rechecks {
		return nil
	}
	var out []string
	own := key{kindServiceIntentions, e.key.name}
	if x := st.live(own); x != nil && x.intentions() != nil {
		out = append(out, refuse(x.intentions(), own.name, "service-intentions "+x.name+": ")...)
	}
	others := st.destinations(e)
	slices.SortFunc(others, func(a, b exports.ServiceName) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), a.Compare(b))
	})
	for _, d := range others {
		if x := st.live(key{kindServiceIntentions, d}); x != nil && d != own.name {
			out = append(out, refuse(x.intentions(), d, "service-intentions "+x.name+": ")...)
		}
	}
	return out
}

// protocolOf records the protocol of a compiled chain, for l7Reasons.
func protocolOf(protocols map[exports.ServiceName]string, s exports.ServiceName, c *chain.Chain) {
	if c != nil {
		protocols[s] = c.Protocol
	}
}

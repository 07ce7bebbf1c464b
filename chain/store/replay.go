package store

import (
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/entryhead"
)

// Replay is the dry run of a change: it writes to a Store holding before's entries each entry
// after holds differently — new, changed or gone — as Apply writes, and returns the outcome of
// every write, in the order written, and the Config the accepted writes leave (before's
// entries, with the accepted writes in place of theirs).
//
// The order of the writes matters to Consul, and two configurations do not say it: Replay
// first deletes the service-intentions entries after no longer holds and writes those that
// give no permissions to a named destination (intentions.ConfigEntry.RequiresHTTP), which no
// chain can refuse; then writes proxy-defaults, service-defaults, sameness groups, resolvers
// (a resolver after the resolvers, among those written, of the services it names; a cycle is
// broken where it is entered), splitters, routers, exported-services, the mesh entry and the
// service-intentions entries that give permissions — each kind in its order in after —; and
// then deletes the other entries after no longer holds, in the reverse order of kinds. So a
// change that takes permissions away from a destination and makes it tcp, or makes it http
// and gives it permissions, is written in the order Consul accepts. A change of the default
// protocol is a write of proxy-defaults, never its deletion. The order is fixed whatever the
// order of the input. The error is for a before that holds an entry twice.
func Replay(before, after Config) ([]WriteOutcome, Config, error) {
	st, err := New(before)
	if err != nil {
		return nil, Config{}, fmt.Errorf("before: %w", err)
	}
	var out []WriteOutcome
	for _, e := range changes(&before, &after) {
		o := WriteOutcome{Kind: e.key.kind, Name: e.name, Namespace: e.namespace, Partition: e.partition, Delete: e.deleted}
		o.Stage, o.Reasons = st.write(e)
		if o.Accepted = len(o.Reasons) == 0; o.Accepted {
			o.Stage = ""
		}
		out = append(out, o)
	}
	return out, st.Config(), nil
}

// replayOrder is the order of kinds Replay writes in (and deletes in, reversed).
var replayOrder = [...]*kind{proxyDefaultsKind, serviceDefaultsKind, kindNamed(kindSamenessGroup), kindNamed(kindServiceResolver),
	kindNamed(kindServiceSplitter), kindNamed(kindServiceRouter), kindNamed(kindExportedServices), meshKind, kindNamed(kindServiceIntentions)}

// changes returns the writes that take before's entries to after's, in Replay's order.
func changes(before, after *Config) []*entry {
	var puts, deletes [len(replayOrder)][]*entry
	for i, k := range replayOrder {
		if k == proxyDefaultsKind {
			if before.Entries.DefaultProtocol != after.Entries.DefaultProtocol {
				puts[i] = append(puts[i], newEntry(k, &defaults{Head: entryhead.Head{Kind: kindProxyDefaults, Name: "global"}, protocol: after.Entries.DefaultProtocol}))
			}
			continue
		}
		was := map[key]*entry{}
		for _, v := range k.values(before) {
			e := newEntry(k, v)
			was[e.key] = e
		}
		kept := map[key]bool{}
		for _, v := range k.values(after) {
			e := newEntry(k, v)
			kept[e.key] = true
			if prev, ok := was[e.key]; !ok || !k.same(prev.value, e.value) {
				puts[i] = append(puts[i], e)
			}
		}
		for _, v := range k.values(before) {
			if e := newEntry(k, v); !kept[e.key] {
				deletes[i] = append(deletes[i], e.deletion())
			}
		}
		if k.name == kindServiceResolver {
			puts[i] = dependenciesFirst(puts[i])
		}
	}
	// The intentions no chain can refuse come first, the others after every chain entry.
	last := len(replayOrder) - 1
	first := deletes[last]
	deletes[last] = nil
	puts[last] = slices.DeleteFunc(puts[last], func(e *entry) bool {
		if !e.intentions().RequiresHTTP() {
			first = append(first, e)
			return true
		}
		return false
	})
	out := first
	for _, p := range puts {
		out = append(out, p...)
	}
	for i := len(deletes) - 1; i >= 0; i-- {
		out = append(out, deletes[i]...)
	}
	return out
}

// dependenciesFirst orders resolver writes so that a resolver comes after the resolvers,
// among them, of the services it names (a cycle is broken where it is entered), otherwise
// in the order given.
func dependenciesFirst(writes []*entry) []*entry {
	at := make(map[exports.ServiceName]*entry, len(writes))
	for _, e := range writes {
		at[e.key.name] = e
	}
	done := make(map[exports.ServiceName]bool, len(writes))
	out := make([]*entry, 0, len(writes))
	var visit func(e *entry)
	visit = func(e *entry) { // depth first; the depth is at most the number of writes
		if done[e.key.name] {
			return
		}
		done[e.key.name] = true
		for _, s := range e.links() {
			if d, ok := at[s]; ok {
				visit(d)
			}
		}
		out = append(out, e)
	}
	for _, e := range writes {
		visit(e)
	}
	return out
}

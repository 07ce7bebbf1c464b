package peermeta

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// changes returns the writes that take before's configuration to after's, in the order Diff
// writes them: the entries after holds and before does not hold as they are — proxy-defaults,
// service-defaults, sameness groups, resolvers (each after the resolvers of the services it
// names), splitters, routers, exported-services — then the deletions of the entries after no
// longer holds, in the reverse order of kinds.
func changes(before, after Input) []*entry {
	var puts, deletes [7][]*entry // by kind, in the order above
	diff := func(kind int, b, a []*entry) {
		in := make(map[entryKey]*entry, len(b))
		for _, e := range b {
			in[e.key] = e
		}
		kept := make(map[entryKey]bool, len(a))
		for _, e := range a {
			kept[e.key] = true
			if prev, ok := in[e.key]; !ok || !sameEntry(prev, e) {
				puts[kind] = append(puts[kind], e)
			}
		}
		for _, e := range b {
			if !kept[e.key] {
				deletes[kind] = append(deletes[kind], &entry{key: e.key, name: e.name, namespace: e.namespace, partition: e.partition, deleted: true})
			}
		}
	}
	if before.Entries.DefaultProtocol != after.Entries.DefaultProtocol {
		puts[0] = append(puts[0], &entry{key: entryKey{kindProxyDefaults, exports.ServiceName{}.Canonical()}, name: "global", protocol: after.Entries.DefaultProtocol})
	}
	diff(1, protocolEntries(before.Entries.Protocols), protocolEntries(after.Entries.Protocols))
	diff(2, groupEntries(before.Entries.SamenessGroups), groupEntries(after.Entries.SamenessGroups))
	diff(3, resolverEntries(before.Entries.Resolvers), resolverEntries(after.Entries.Resolvers))
	diff(4, splitterEntries(before.Entries.Splitters), splitterEntries(after.Entries.Splitters))
	diff(5, routerEntries(before.Entries.Routers), routerEntries(after.Entries.Routers))
	diff(6, exportEntries(entriesOf(before.Exports)), exportEntries(entriesOf(after.Exports)))
	puts[3] = dependenciesFirst(puts[3])
	var out []*entry
	for _, p := range puts {
		out = append(out, p...)
	}
	for i := len(deletes) - 1; i >= 0; i-- {
		out = append(out, deletes[i]...)
	}
	return out
}

// sameEntry reports whether a and b, of one key, hold the same entry.
func sameEntry(a, b *entry) bool {
	switch {
	case a.resolver != nil:
		return reflect.DeepEqual(a.resolver, b.resolver)
	case a.router != nil:
		return reflect.DeepEqual(a.router, b.router)
	case a.splitter != nil:
		return reflect.DeepEqual(a.splitter, b.splitter)
	case a.group != nil:
		return reflect.DeepEqual(a.group, b.group)
	case a.export != nil:
		return reflect.DeepEqual(a.export, b.export)
	}
	return a.protocol == b.protocol
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
		for _, s := range resolverLinks(e.resolver) {
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

// protocolEntries returns a service-defaults entry per key of m, in canonical order; keys
// that are one service spelt two ways ("" and "default") in the order of their spelling.
func protocolEntries(m map[exports.ServiceName]string) []*entry {
	out := make([]*entry, 0, len(m))
	for _, s := range slices.SortedFunc(maps.Keys(m), func(a, b exports.ServiceName) int {
		return cmp.Or(a.Compare(b), strings.Compare(a.Partition, b.Partition), strings.Compare(a.Namespace, b.Namespace))
	}) {
		out = append(out, &entry{key: entryKey{kindServiceDefaults, s.Canonical()}, name: s.Name, namespace: s.Namespace, partition: s.Partition, protocol: m[s]})
	}
	return out
}

func groupEntries(groups []exports.SamenessGroup) []*entry {
	out := make([]*entry, len(groups))
	for i := range groups {
		g := &groups[i]
		out[i] = &entry{key: entryKey{kindSamenessGroup, exports.ServiceName{Partition: g.Partition, Name: g.Name}.Canonical()}, name: g.Name, partition: g.Partition, group: g}
	}
	return out
}

func routerEntries(rs []chain.ServiceRouter) []*entry {
	out := make([]*entry, len(rs))
	for i := range rs {
		r := &rs[i]
		out[i] = &entry{key: entryKey{kindServiceRouter, r.ServiceName()}, name: r.Name, namespace: r.Namespace, partition: r.Partition, router: r}
	}
	return out
}

func splitterEntries(ss []chain.ServiceSplitter) []*entry {
	out := make([]*entry, len(ss))
	for i := range ss {
		s := &ss[i]
		out[i] = &entry{key: entryKey{kindServiceSplitter, s.ServiceName()}, name: s.Name, namespace: s.Namespace, partition: s.Partition, splitter: s}
	}
	return out
}

func resolverEntries(rs []chain.ServiceResolver) []*entry {
	out := make([]*entry, len(rs))
	for i := range rs {
		r := &rs[i]
		out[i] = &entry{key: entryKey{kindServiceResolver, r.ServiceName()}, name: r.Name, namespace: r.Namespace, partition: r.Partition, resolver: r}
	}
	return out
}

func exportEntries(es []exports.ConfigEntry) []*entry {
	out := make([]*entry, len(es))
	for i := range es {
		x := &es[i]
		out[i] = &entry{key: entryKey{kindExportedServices, exports.ServiceName{Partition: x.Name}.Canonical()}, name: x.Name, partition: x.Partition, export: x}
	}
	return out
}

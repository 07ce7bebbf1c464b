package peermeta

import (
	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/strict"
)

// entry is one config entry of a kind replication reads, decoded: its kind and key (what
// Consul stores it under), the name, namespace and partition as written, and the value of
// its kind. A nil value of an entry that is not deleted cannot be: a deleted entry (a dry
// run's removal) has none.
type entry struct {
	key                        entryKey
	name, namespace, partition string
	deleted                    bool

	resolver *chain.ServiceResolver // service-resolver
	router   *chain.ServiceRouter   // service-router
	splitter *chain.ServiceSplitter // service-splitter
	group    *exports.SamenessGroup // sameness-group
	export   *exports.ConfigEntry   // exported-services
	protocol string                 // service-defaults' Protocol, proxy-defaults' Config.protocol
}

// kindRule is how a live Consul server takes a write of one kind of config entry, a row of
// the table kindRules. Each kind the write path models has one; a kind added to the
// discovery chain adds its row.
type kindRule struct {
	// decode reads the entry strictly from its JSON (raw) and the same as an object (o):
	// the problems Consul's decoder refuses (an unknown field, a wrong type) are decode
	// problems, recorded in d or returned.
	decode func(d *strict.Decoder, o strict.Object, raw []byte) (entry, error)
	// validate is Consul's validation of the entry alone (meshscope's for what it words).
	validate func(e *entry) error
	// recompiles lists the chains Consul's server recompiles to judge a write of e (or its
	// deletion), in st as it is before the write: each must still compile, and each that is
	// exported to a peer must stay safe to export.
	recompiles func(st *store, e *entry) []exports.ServiceName
	// check is what the server checks of e before it recompiles any chain, with e in place
	// in st (nil when nothing): the reasons it refuses the write.
	check func(st *store, e *entry) []string
}

// kindRules is the write path's table, by kind.
var kindRules = map[string]kindRule{
	kindServiceResolver: {decode: decodeResolverEntry, validate: validateResolver, recompiles: ownAndNaming},
	kindServiceRouter:   {decode: decodeRouterEntry, validate: func(e *entry) error { return e.router.Validate() }, recompiles: ownAndNaming},
	kindServiceSplitter: {decode: decodeSplitterEntry, validate: func(e *entry) error { return e.splitter.Validate() }, recompiles: ownAndNaming},
	kindServiceDefaults: {decode: decodeServiceDefaults, validate: validateServiceDefaults, recompiles: ownAndNaming},
	kindProxyDefaults:   {decode: decodeProxyDefaults, validate: validateProxyDefaults, recompiles: everyChain},
	kindSamenessGroup:   {decode: decodeGroupEntry, validate: validateGroup, recompiles: chainsOfPartition, check: checkGroups},
	kindExportedServices: {decode: decodeExportsEntry, validate: validateExports,
		recompiles: func(*store, *entry) []exports.ServiceName { return nil }, check: checkExported},
}

func decodeResolverEntry(_ *strict.Decoder, _ strict.Object, raw []byte) (entry, error) {
	var r chain.ServiceResolver
	if err := r.UnmarshalJSON(raw); err != nil {
		return entry{}, err
	}
	return entry{key: entryKey{kindServiceResolver, r.ServiceName()}, name: r.Name, namespace: r.Namespace, partition: r.Partition, resolver: &r}, nil
}

func validateResolver(e *entry) error { return e.resolver.Validate() }

// decodeRouterEntry reads a router. It is kept as written: package chain judges and
// compiles it as Consul's server normalises it (methods upper-cased).
func decodeRouterEntry(_ *strict.Decoder, _ strict.Object, raw []byte) (entry, error) {
	var r chain.ServiceRouter
	if err := r.UnmarshalJSON(raw); err != nil {
		return entry{}, err
	}
	return entry{key: entryKey{kindServiceRouter, r.ServiceName()}, name: r.Name, namespace: r.Namespace, partition: r.Partition, router: &r}, nil
}

// decodeSplitterEntry reads a splitter. It is kept as written (its weights as given): package
// chain judges and compiles it with its weights rounded, as Consul's server stores them, and
// says when they sum to 100 only once rounded.
func decodeSplitterEntry(_ *strict.Decoder, _ strict.Object, raw []byte) (entry, error) {
	var s chain.ServiceSplitter
	if err := s.UnmarshalJSON(raw); err != nil {
		return entry{}, err
	}
	return entry{key: entryKey{kindServiceSplitter, s.ServiceName()}, name: s.Name, namespace: s.Namespace, partition: s.Partition, splitter: &s}, nil
}

func decodeGroupEntry(_ *strict.Decoder, _ strict.Object, raw []byte) (entry, error) {
	var g exports.SamenessGroup
	if err := g.UnmarshalJSON(raw); err != nil {
		return entry{}, err
	}
	return entry{key: entryKey{kindSamenessGroup, exports.ServiceName{Partition: g.Partition, Name: g.Name}.Canonical()},
		name: g.Name, partition: g.Partition, group: &g}, nil
}

func validateGroup(e *entry) error { return e.group.Validate() }

func decodeExportsEntry(_ *strict.Decoder, _ strict.Object, raw []byte) (entry, error) {
	var x exports.ConfigEntry
	if err := x.UnmarshalJSON(raw); err != nil {
		return entry{}, err
	}
	return entry{key: entryKey{kindExportedServices, exports.ServiceName{Partition: x.Name}.Canonical()}, name: x.Name, partition: x.Partition, export: &x}, nil
}

func validateExports(e *entry) error { return e.export.Validate() }

package store

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// The kinds of config entry the store models.
const (
	kindExportedServices = exports.Kind
	kindSamenessGroup    = exports.SamenessGroupKind
	kindServiceResolver  = names.KindServiceResolver
	kindServiceRouter    = names.KindServiceRouter
	kindServiceSplitter  = names.KindServiceSplitter
	kindServiceDefaults  = "service-defaults"
	kindProxyDefaults    = "proxy-defaults"
)

// kind is how the store reads, holds and judges the writes of one kind of config entry: a row
// of the table kinds. Every step of the store — Add, Apply, New, Config, Replace and the dry
// run — reads an entry's kind from its row, so a kind the store comes to model is added here
// (with the Config field that holds its entries) and nowhere else.
type kind struct {
	name string
	// field is where a Config holds the kind's entries, for messages: "Entries.Resolvers".
	field string
	// decode reads a value of the kind from one entry, strictly: the entry as an object (o, in
	// d) and as JSON (raw). Problems Consul's decoder refuses (an unknown field, a wrong type)
	// are recorded in d or returned; the value is nil only when it could not be read at all.
	decode func(d *strict.Decoder, o strict.Object, raw []byte) (any, error)
	// names returns a value's Name, Namespace and Partition as written, and key the canonical
	// name Consul stores an entry of those names under.
	names func(v any) (name, namespace, partition string)
	key   func(name, namespace, partition string) exports.ServiceName
	// validate is Consul's validation of the entry alone (meshscope's for what it words).
	validate func(v any) error
	// values returns the values c holds of the kind, in order, and add appends v to them (or,
	// for a kind held in a map or a field, puts it there). put puts v in place of the value at
	// pos, and own gives c its own copy of the list or map that holds the kind's values. size
	// is how many values c holds of a kind held in a list; nil for the others.
	values func(c *Config) []any
	add    func(c *Config, v any)
	put    func(c *Config, pos int, v any)
	own    func(c *Config)
	size   func(c *Config) int
	// clip clips c's list of the kind to its length, so that appending to it copies; shares
	// reports whether a holds b's list (map, field) of the kind, as b handed it out: the same
	// elements, clipped (the same map; the same value).
	clip   func(c *Config)
	shares func(a, b *Config) bool
	// same reports whether two values of one key are the same entry, for the dry run.
	same func(a, b any) bool
	// recompiles lists the chains Consul's server recompiles to judge a write of e (or its
	// deletion), in st as it is before the write: each must still compile, and each that is
	// exported to a peer must stay safe to export.
	recompiles func(st *Store, e *entry) []exports.ServiceName
	// check is what the server checks of e before it recompiles any chain, with e in place
	// in st (nil when nothing): the reasons it refuses the write.
	check func(st *Store, e *entry) []string
	// rechecks: a write of the kind (or its deletion) makes the server judge the intentions
	// anew (see l7Reasons).
	rechecks bool
}

// modelled is how many kinds the store models: the rows of kinds (TestKinds finds a row
// missing).
const modelled = 9

// kinds is the store's table: every kind it models, in the order a Config lists them.
var kinds = [modelled]*kind{
	listed(kindExportedServices, "Exports", func(c *Config) *[]exports.ConfigEntry { return &c.Exports },
		func(x *exports.ConfigEntry) (string, string, string) { return x.Name, "", x.Partition }, partitionNamed,
		(*exports.ConfigEntry).Validate, noChains, checkExported),
	intentionsKind(),
	meshKind,
	listed(kindSamenessGroup, "Entries.SamenessGroups", func(c *Config) *[]exports.SamenessGroup { return &c.Entries.SamenessGroups },
		func(g *exports.SamenessGroup) (string, string, string) { return g.Name, "", g.Partition }, groupNamed,
		(*exports.SamenessGroup).Validate, chainsOfPartition, checkGroups),
	rechecking(listed(kindServiceResolver, "Entries.Resolvers", func(c *Config) *[]chain.ServiceResolver { return &c.Entries.Resolvers },
		func(r *chain.ServiceResolver) (string, string, string) { return r.Name, r.Namespace, r.Partition }, serviceNamed,
		(*chain.ServiceResolver).Validate, ownAndNaming, nil)),
	// A router or splitter is kept as written: package chain judges and compiles it as
	// Consul's server normalises it (methods upper-cased, weights rounded), and says when
	// weights sum to 100 only once rounded.
	rechecking(listed(kindServiceRouter, "Entries.Routers", func(c *Config) *[]chain.ServiceRouter { return &c.Entries.Routers },
		func(r *chain.ServiceRouter) (string, string, string) { return r.Name, r.Namespace, r.Partition }, serviceNamed,
		(*chain.ServiceRouter).Validate, ownAndNaming, nil)),
	rechecking(listed(kindServiceSplitter, "Entries.Splitters", func(c *Config) *[]chain.ServiceSplitter { return &c.Entries.Splitters },
		func(s *chain.ServiceSplitter) (string, string, string) { return s.Name, s.Namespace, s.Partition }, serviceNamed,
		(*chain.ServiceSplitter).Validate, ownAndNaming, nil)),
	serviceDefaultsKind,
	proxyDefaultsKind,
}

// rechecking marks k as a kind whose writes make the server judge the intentions anew.
func rechecking(k *kind) *kind {
	k.rechecks = true
	return k
}

// index returns k's place in kinds.
func (k *kind) index() int {
	for i, o := range kinds {
		if o == k {
			return i
		}
	}
	panic("store: a kind not in the table: " + k.name) // (every row is in kinds)
}

// kindNamed returns the row of the kind named name, nil when the store does not model it.
func kindNamed(name string) *kind {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// listed returns the row of a kind whose values are *T, decoded by T's strict UnmarshalJSON,
// held in the slice of a Config that list points to.
func listed[T any, P interface {
	*T
	json.Unmarshaler
}](name, field string, list func(*Config) *[]T, names func(*T) (string, string, string),
	key func(name, namespace, partition string) exports.ServiceName, validate func(*T) error,
	recompiles func(*Store, *entry) []exports.ServiceName, check func(*Store, *entry) []string) *kind {
	return &kind{name: name, field: field, key: key, recompiles: recompiles, check: check,
		decode: func(_ *strict.Decoder, _ strict.Object, raw []byte) (any, error) {
			v := new(T)
			if err := P(v).UnmarshalJSON(raw); err != nil {
				return nil, err
			}
			return v, nil
		},
		names:    func(v any) (string, string, string) { return names(v.(*T)) },
		validate: func(v any) error { return validate(v.(*T)) },
		values: func(c *Config) []any {
			l := *list(c)
			out := make([]any, len(l))
			for i := range l {
				out[i] = &l[i]
			}
			return out
		},
		add:    func(c *Config, v any) { l := list(c); *l = append(*l, *v.(*T)) },
		put:    func(c *Config, pos int, v any) { (*list(c))[pos] = *v.(*T) },
		own:    func(c *Config) { l := list(c); *l = append([]T(nil), *l...) },
		size:   func(c *Config) int { return len(*list(c)) },
		clip:   func(c *Config) { l := list(c); *l = slices.Clip(*l) },
		shares: func(a, b *Config) bool { return same(*list(a), *list(b)) },
		same:   reflect.DeepEqual,
	}
}

// The canonical names Consul stores entries under: a service's; an exported-services entry's
// partition, which its Name is; a sameness group's partition and name; a partition's alone.

func serviceNamed(name, namespace, partition string) exports.ServiceName {
	return exports.ServiceName{Partition: partition, Namespace: namespace, Name: name}.Canonical()
}

func partitionNamed(name, _, _ string) exports.ServiceName {
	return exports.ServiceName{Partition: name}.Canonical()
}

func groupNamed(name, _, partition string) exports.ServiceName {
	return exports.ServiceName{Partition: partition, Name: name}.Canonical()
}

func partitionOnly(_, _, partition string) exports.ServiceName {
	return exports.ServiceName{Partition: partition}.Canonical()
}

// skippedKinds are Consul's other kinds — every kind a Consul CE or Enterprise server up to
// 2.x stores — with why replication does not depend on each. The store reads them as entries
// (their names must be strings) and names each in a finding.
var skippedKinds = map[string]string{
	"terminating-gateway":         "the services behind a terminating gateway are connect services; they are read from the catalog (/v1/catalog/gateway-services), not from this entry",
	"ingress-gateway":             "an ingress gateway does not change what is replicated to peers",
	"api-gateway":                 "an API gateway does not change what is replicated to peers",
	"bound-api-gateway":           "an API gateway does not change what is replicated to peers",
	"http-route":                  "an API gateway's routes do not change what is replicated to peers",
	"tcp-route":                   "an API gateway's routes do not change what is replicated to peers",
	"inline-certificate":          "a gateway certificate does not change what is replicated to peers",
	"file-system-certificate":     "a gateway certificate does not change what is replicated to peers",
	"jwt-provider":                "a JWT provider does not change what is replicated to peers",
	"control-plane-request-limit": "a request limit does not change what is replicated to peers",
}

// unknownKind is the error for a Kind Consul does not have, with the one it most likely
// misspells.
func unknownKind(name string) error {
	known := make([]string, 0, len(kinds)+len(skippedKinds))
	for _, k := range kinds {
		known = append(known, k.name)
	}
	known = append(known, slices.Sorted(maps.Keys(skippedKinds))...)
	hint := ""
	if s := strict.Suggest(name, known); s != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", s)
	}
	return &FieldError{Field: "Kind", Value: name, Detail: fmt.Sprintf("%q is not a kind of Consul config entry%s", name, hint)}
}

package store

import (
	"fmt"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// key names a config entry as Consul stores it: its kind and canonical name.
type key struct {
	kind string
	// name is the entry's service; the partition alone for exported-services and
	// proxy-defaults; the group's partition and name for a sameness group.
	name exports.ServiceName
}

// entry is one config entry of a kind the store models, as the store holds it: its kind, its
// key, its name, namespace and partition as written, and its value — what its kind decodes,
// such as a *chain.ServiceResolver. A deleted entry (a dry run's removal) has no value. Every
// entry is made by newEntry (or deletion), wherever it comes from: a write, a Config's lists,
// a dry run's change.
type entry struct {
	kind                       *kind
	key                        key
	name, namespace, partition string
	deleted                    bool
	value                      any
	pos                        int    // its place in its kind's list, in the Store's view
	where                      string // where it was read or written ("a.json: value 2 (…)"), if the Store was told
}

// at says where e is, for a message: where it was read or written, else its place in a
// Config.
func (e *entry) at() string {
	if e.where != "" {
		return e.where
	}
	where, field := e.place()
	if field != "Name" {
		return where + field
	}
	return where
}

// place is where e is in a Config: the entry and the field that names it, its Name; for a
// service-defaults entry, the Protocols map and the key, as written.
func (e *entry) place() (where, field string) {
	if e.kind == serviceDefaultsKind {
		return e.kind.field, strict.Key("", e.partition+"/"+e.namespace+"/"+e.name)
	}
	return fmt.Sprintf("%s (%s %s)", strict.Index(e.kind.field, e.pos), e.key.kind, e.name), "Name"
}

// newEntry returns the entry of kind k holding v.
func newEntry(k *kind, v any) *entry {
	name, namespace, partition := k.names(v)
	return &entry{kind: k, key: key{k.name, k.key(name, namespace, partition)}, name: name, namespace: namespace, partition: partition, value: v}
}

// deletion returns the deletion of e: its kind, key and names, without a value.
func (e *entry) deletion() *entry {
	return &entry{kind: e.kind, key: e.key, name: e.name, namespace: e.namespace, partition: e.partition, deleted: true}
}

// The value of an entry of each kind, nil when e is of another kind (or deleted).

func (e *entry) resolver() *chain.ServiceResolver { v, _ := e.value.(*chain.ServiceResolver); return v }
func (e *entry) router() *chain.ServiceRouter     { v, _ := e.value.(*chain.ServiceRouter); return v }
func (e *entry) splitter() *chain.ServiceSplitter { v, _ := e.value.(*chain.ServiceSplitter); return v }
func (e *entry) group() *exports.SamenessGroup    { v, _ := e.value.(*exports.SamenessGroup); return v }
func (e *entry) export() *exports.ConfigEntry     { v, _ := e.value.(*exports.ConfigEntry); return v }

// protocol is the protocol a service-defaults or proxy-defaults entry gives.
func (e *entry) protocol() string {
	if d, ok := e.value.(*defaults); ok {
		return d.protocol
	}
	return ""
}

// defaults is a service-defaults or proxy-defaults entry, as the store holds it: its head and
// the protocol it gives (service-defaults' Protocol, proxy-defaults' Config.protocol).
type defaults struct {
	entryhead.Head
	protocol string
}

// links returns the services a resolver, router or splitter entry names — Consul's link
// index, which says what a write of one of them recompiles e's chain for.
func (e *entry) links() []exports.ServiceName {
	switch v := e.value.(type) {
	case *chain.ServiceResolver:
		return v.Related()
	case *chain.ServiceRouter:
		return v.Related()
	case *chain.ServiceSplitter:
		return v.Related()
	}
	return nil
}

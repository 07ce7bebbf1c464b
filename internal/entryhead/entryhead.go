// Package entryhead reads what every Consul config entry has, whatever its kind: its Kind,
// Name, Namespace and Partition, its Meta, and the Raft indexes `consul config read` prints
// (CreateIndex, ModifyIndex). The decoders of each kind (package chain's resolvers, routers
// and splitters; the store's service-defaults and proxy-defaults) read their head here, so
// that the head is read one way for every kind:
//
//	o.Check(entryhead.With("Routes")...)
//	h := entryhead.Read(d, o)
//	r.Kind, r.Name, r.Namespace, r.Partition = h.Kind, h.Name, h.Namespace, h.Partition
//
// Names reads the four strings alone: what identifies an entry before its kind is known.
package entryhead

import (
	"slices"

	"github.com/meshscope/meshscope/internal/strict"
)

// Head is what every config entry has.
type Head struct {
	Kind, Name, Namespace, Partition string
	Meta                             map[string]string
	CreateIndex, ModifyIndex         uint64
}

// fields are the fields of a Head, as Consul spells them.
var fields = [...]string{"Kind", "Name", "Namespace", "Partition", "Meta", "CreateIndex", "ModifyIndex"}

// With returns the fields of a head followed by own: the fields an entry of a kind may have,
// for strict.Object.Check.
func With(own ...string) []string {
	return slices.Concat(fields[:], own)
}

// Read reads the head of the entry o, recording in d every field of the wrong type: the
// names must be strings, Meta an object of strings and the indexes whole numbers.
func Read(d *strict.Decoder, o strict.Object) Head {
	h := Names(o)
	if v, p, ok := o.Get("Meta"); ok {
		h.Meta = d.StringMap(v, p)
	}
	if v, p, ok := o.Get("CreateIndex"); ok {
		h.CreateIndex = d.Uint(v, p)
	}
	if v, p, ok := o.Get("ModifyIndex"); ok {
		h.ModifyIndex = d.Uint(v, p)
	}
	return h
}

// Names reads the Kind, Name, Namespace and Partition of the entry o, recording in o's
// decoder each that is not a string.
func Names(o strict.Object) Head {
	var h Head
	o.String(&h.Kind, "Kind")
	o.String(&h.Name, "Name")
	o.String(&h.Namespace, "Namespace")
	o.String(&h.Partition, "Partition")
	return h
}

// Package entryhead reads what every Consul config entry has, whatever its kind: its Kind,
// Name, Namespace and Partition, its Meta, and the Raft indexes `consul config read` prints
// (CreateIndex, ModifyIndex). The decoders of each kind (package chain's resolvers, routers
// and splitters; package exports' exported-services and sameness groups; the store's
// service-defaults, proxy-defaults and mesh entries) read their head here, so that the head is
// read one way for every kind:
//
//	o.Check(entryhead.With("Routes")...)
//	h := entryhead.Read(d, o)
//	r.Kind, r.Name, r.Namespace, r.Partition = h.Kind, h.Name, h.Namespace, h.Partition
//
// Unmarshal is every kind's UnmarshalJSON (service-intentions' too): the entry decoded
// strictly, its field names in any case as Consul's decoder reads them. Field reads one field
// with its decoder when the entry has it; List reads a field that is a list of objects (a
// router's Routes, an exported-services entry's Services), each with its kind's decoder.
//
// A kind Consul keeps per partition (exported-services, sameness-group) has no Namespace:
// its decoder checks its fields against PartitionWith and reads its names with
// PartitionNames, its Meta and indexes with Rest. Names reads the four strings alone: what
// identifies an entry before its kind is known.
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

// fields are the fields of a Head, as Consul spells them; partitionFields those of the head
// of a kind without a namespace.
var (
	fields          = [...]string{"Kind", "Name", "Namespace", "Partition", "Meta", "CreateIndex", "ModifyIndex"}
	partitionFields = [...]string{"Kind", "Name", "Partition", "Meta", "CreateIndex", "ModifyIndex"}
)

// With returns the fields of a head followed by own: the fields an entry of a kind may have,
// for strict.Object.Check.
func With(own ...string) []string {
	return slices.Concat(fields[:], own)
}

// PartitionWith is With for a kind Consul keeps per partition, whose entries have no
// Namespace.
func PartitionWith(own ...string) []string {
	return slices.Concat(partitionFields[:], own)
}

// Read reads the head of the entry o, recording in d every field of the wrong type: the
// names must be strings, Meta an object of strings and the indexes whole numbers.
func Read(d *strict.Decoder, o strict.Object) Head {
	h := Names(o)
	Rest(d, o, &h)
	return h
}

// Rest reads the Meta and the indexes of the entry o into h, recording in d each of the
// wrong type. Read reads them after the names; a decoder that reads its kind's own fields
// between the two calls Rest itself.
func Rest(d *strict.Decoder, o strict.Object, h *Head) {
	Field(d, o, &h.Meta, (*strict.Decoder).StringMap, "Meta")
	Field(d, o, &h.CreateIndex, (*strict.Decoder).Uint, "CreateIndex")
	Field(d, o, &h.ModifyIndex, (*strict.Decoder).Uint, "ModifyIndex")
}

// Names reads the Kind, Name, Namespace and Partition of the entry o, recording in o's
// decoder each that is not a string.
func Names(o strict.Object) Head { return names(o, true) }

// PartitionNames is Names for a kind without a namespace: it reads the Kind, Name and
// Partition of the entry o.
func PartitionNames(o strict.Object) Head { return names(o, false) }

func names(o strict.Object, namespace bool) Head {
	var h Head
	o.String(&h.Kind, "Kind")
	o.String(&h.Name, "Name")
	if namespace {
		o.String(&h.Namespace, "Namespace")
	}
	o.String(&h.Partition, "Partition")
	return h
}

// Unmarshal decodes the entry b with decode into *dst, as Consul's decoder reads every kind of
// entry — field names in any case — but strictly (strict.Unmarshal): every problem is
// reported, and *dst is left as it was when there is one.
func Unmarshal[T any](b []byte, dst *T, decode func(d *strict.Decoder, x any, path string) T) error {
	got, err := strict.Unmarshal(b, true, decode)
	if err != nil {
		return err
	}
	*dst = got
	return nil
}

// Field sets *dst to decode's reading of the field of o spelt as any of names, at its path,
// and leaves *dst as it was when the field is absent. The plain types are read with the
// decoder's own methods, which record a value of the wrong type in d:
//
//	entryhead.Field(d, o, &s.OnlyPassing, (*strict.Decoder).Bool, "OnlyPassing", "only_passing")
func Field[T any](d *strict.Decoder, o strict.Object, dst *T, decode func(d *strict.Decoder, x any, path string) T, names ...string) {
	if v, p, ok := o.Get(names...); ok {
		*dst = decode(d, v, p)
	}
}

// List decodes the field of o spelt as any of names, a list, each element with decode at its
// path; nil when the field is absent or empty, and for a value that is not a list (a problem
// recorded in d).
func List[T any](d *strict.Decoder, o strict.Object, decode func(d *strict.Decoder, x any, path string) T, names ...string) []T {
	v, p, ok := o.Get(names...)
	if !ok {
		return nil
	}
	var out []T
	for i, item := range d.List(v, p) {
		out = append(out, decode(d, item, strict.Index(p, i)))
	}
	return out
}

// Object decodes x at path, which must be an object, with read, which checks the object's
// fields and reads them; the zero T when x is not an object (a problem recorded in d):
//
//	return entryhead.Object(d, x, path, func(o strict.Object) (r ServiceRouter) {
//		o.Check(entryhead.With("Routes")...)
//		r.Routes = entryhead.List(d, o, decodeRoute, "Routes")
//		return r
//	})
func Object[T any](d *strict.Decoder, x any, path string, read func(o strict.Object) T) T {
	o, ok := d.Object(x, path)
	if !ok {
		var zero T
		return zero
	}
	return read(o)
}

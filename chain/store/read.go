package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// item is one value of `consul config read` output, and where it is: "value 2", or
// "value 2, [1]" for an element of a JSON array.
type item struct {
	where string
	x     any
}

// readItems parses data — one JSON value, a stream of values or JSON arrays of them,
// optionally after a UTF-8 byte-order mark — into its items, in order.
func readItems(data []byte) ([]item, error) {
	values, err := strict.ParseJSONStream(bytes.TrimPrefix(data, []byte("\uFEFF")))
	if err != nil {
		return nil, err
	}
	var items []item
	for n, v := range values {
		where := fmt.Sprintf("value %d", n+1)
		if list, ok := v.([]any); ok {
			for i, x := range list {
				items = append(items, item{fmt.Sprintf("%s, [%d]", where, i), x})
			}
			continue
		}
		items = append(items, item{where, v})
	}
	return items, nil
}

// decoded is an item read as a config entry, the one way Add and Apply read every entry: its
// names first (Kind, Name, Namespace, Partition: the head that says what it is), then, for a
// kind the store models, its value, decoded strictly by its kind (the rest of the head
// included).
type decoded struct {
	item
	object bool           // the item is an object
	head   entryhead.Head // its names, those that are strings
	kind   *kind          // its kind's row; nil for a kind the store does not model
	skip   bool           // one of Consul's kinds the store does not model (skippedKinds)
	e      *entry         // the entry, when its value was decoded, perhaps with problems
	err    error          // the problems: of its names, its kind (none, or one Consul does not have) or its value
}

// read reads the item as a config entry. It does not validate the entry.
func (it item) read() decoded {
	r := decoded{item: it}
	d := &strict.Decoder{Fold: true}
	o, ok := d.Object(it.x, "")
	if !ok {
		r.err = fmt.Errorf("a config entry must be an object, got %s", strict.Describe(it.x))
		return r
	}
	r.object, r.head = true, entryhead.Names(o)
	r.kind = kindNamed(r.head.Kind)
	_, r.skip = skippedKinds[r.head.Kind]
	switch err := d.Err(); {
	case err != nil:
		r.err = err
	case r.head.Kind == "":
		r.err = noKind()
	case r.kind == nil && !r.skip:
		r.err = unknownKind(r.head.Kind)
	}
	if r.err != nil {
		r.kind, r.skip = nil, false
	}
	if r.kind == nil {
		return r
	}
	raw, err := it.x.(strict.Fields).MarshalJSON()
	if err != nil {
		r.err = err
		return r
	}
	v, err := r.kind.decode(d, o, raw)
	r.err = errors.Join(append(d.Errs(), err)...)
	if v != nil {
		r.e = newEntry(r.kind, v)
	}
	return r
}

// noKind is the problem of an entry without a Kind.
func noKind() error {
	return &FieldError{Field: "Kind", Detail: "is required: every entry `consul config read` prints has one"}
}

// label names the entry for a message: where it is, then its kind and name.
func (r decoded) label() string {
	switch {
	case !r.object:
		return r.where
	case r.head.Kind != "":
		return fmt.Sprintf("%s (%s)", r.where, strings.TrimSpace(r.head.Kind+" "+r.head.Name))
	case r.head.Name != "":
		return fmt.Sprintf("%s (no Kind: %s)", r.where, r.head.Name)
	}
	return r.where + " (no Kind)"
}

// in puts the entry's file and label before err.
func (r decoded) in(file string, err error) error {
	return fielderr.In(file, fielderr.In(r.label(), err))
}

package strict

import (
	"encoding/json"
	"slices"
	"strings"
)

// Fields is a decoded object: its fields in the order the document gives them, each key
// once. The parsers give objects as Fields rather than as maps because a small Go map costs
// more, in memory and in time to build, than a slice of its fields, and a cluster dump holds
// hundreds of thousands of small objects. An empty object is an empty, non-nil Fields.
//
// Lookups scan the fields. A decoder looks up a fixed number of known names per object, so
// an object of n fields costs O(n) however hostile; whatever walks every key of an object
// with lookups must use a map instead.
type Fields []Member

// Member is one field of an object: a key and its value.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key, and whether the object has it.
func (f Fields) Get(key string) (any, bool) {
	for i := range f {
		if f[i].Key == key {
			return f[i].Value, true
		}
	}
	return nil, false
}

// Value returns the value of key: nil when the object does not have it.
func (f Fields) Value(key string) any {
	v, _ := f.Get(key)
	return v
}

// Has reports whether the object has key.
func (f Fields) Has(key string) bool {
	_, ok := f.Get(key)
	return ok
}

// Sorted returns the object's fields sorted by key, in a new slice.
func (f Fields) Sorted() Fields {
	return slices.SortedFunc(slices.Values(f), func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
}

// SortedKeys returns the object's keys, sorted.
func (f Fields) SortedKeys() []string {
	keys := make([]string, len(f))
	for i := range f {
		keys[i] = f[i].Key
	}
	slices.Sort(keys)
	return keys
}

// builder collects an object's fields, finding a key given twice in O(1) per field: a scan
// of the fields while they are few, a map once they are many.
type builder struct {
	f    Fields
	seen map[string]struct{}
}

// scanLimit is how many fields a builder scans for a repeated key before it keeps a map.
const scanLimit = 16

// add appends the field unless its key is there already; it reports whether it added it.
func (b *builder) add(key string, v any) bool {
	if b.has(key) {
		return false
	}
	if b.seen != nil {
		b.seen[key] = struct{}{}
	} else if len(b.f) == scanLimit {
		b.seen = make(map[string]struct{}, 2*scanLimit)
		for _, f := range b.f {
			b.seen[f.Key] = struct{}{}
		}
		b.seen[key] = struct{}{}
	}
	b.f = append(b.f, Member{key, v})
	return true
}

func (b *builder) has(key string) bool {
	if b.seen != nil {
		_, ok := b.seen[key]
		return ok
	}
	return b.f.Has(key)
}

// fields returns the object: non-nil, and without spare capacity (a caller appending to it
// would otherwise write into another's array).
func (b *builder) fields() Fields {
	if b.f == nil {
		return Fields{}
	}
	return slices.Clip(b.f)
}

// MarshalJSON writes the object as a JSON object, its fields in order.
func (f Fields) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, m := range f {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

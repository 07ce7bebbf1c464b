// Package strict reads configuration strictly. Its readers turn JSON (ParseJSON) and YAML
// (ParseYAML: a direct reader of what kubectl, Helm and people write, block YAML and JSON,
// which hands yaml.v3 a document only the full reader reads — anchors, aliases, tags,
// complex keys — with the same answers either way) into generic values — Fields for an object, in document order,
// []any, string, bool, nil and json.Number — refusing a key given twice. Its Decoder walks
// those values and reports, with the path of each, the unknown fields (with the known field
// each resembles; at most MaxUnknownFields per object, then a count of the rest), every
// field given twice under two spellings, and every value of the wrong type. Upstream
// decoders drop unknown fields silently; meshscope's packages use this one so that a
// misspelt field is an error instead of a default.
package strict

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// Decoder collects the problems found while decoding one document.
type Decoder struct {
	// Fold makes field names match case-insensitively, as Consul's decoder does.
	Fold bool
	errs []error
	// suggestions caches Suggest's answer per unknown key and set of known fields: a
	// document repeating one misspelling in every object pays for it once.
	suggestions map[[2]string]string
}

// Err returns every problem found, joined; nil if there were none.
func (d *Decoder) Err() error { return errors.Join(d.errs...) }

// Errs returns the problems found so far.
func (d *Decoder) Errs() []error { return d.errs }

// Errorf records a problem at path.
func (d *Decoder) Errorf(path, format string, args ...any) {
	d.errs = append(d.errs, fielderr.New(Display(path), nil, fmt.Sprintf(format, args...), nil))
}

// Fail records a problem with value at path.
func (d *Decoder) Fail(path string, value any, format string, args ...any) {
	d.errs = append(d.errs, fielderr.New(Display(path), value, fmt.Sprintf(format, args...), nil))
}

// Add records an error that already names its path; nil is ignored.
func (d *Decoder) Add(err error) {
	if err != nil {
		d.errs = append(d.errs, err)
	}
}

// At returns path followed by ": " to put before a message; "" for the root.
func At(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// Display returns path for a message, "(top level)" for the root.
func Display(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

// Child returns the path of field name under path.
func Child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Index returns the path of element i of the list at path.
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// Key returns the path of key k of the map at path.
func Key(path, k string) string { return path + "[" + strconv.Quote(k) + "]" }

// Object is a JSON object being decoded.
type Object struct {
	d      *Decoder
	path   string
	fields Fields
}

// Object returns x as an object. A null is an absent object (false, no problem); any other
// non-object is a problem.
func (d *Decoder) Object(x any, path string) (Object, bool) {
	m, ok := x.(Fields)
	if !ok {
		if x != nil {
			d.wrongType(path, "an object", x)
		}
		return Object{}, false
	}
	return Object{d: d, path: path, fields: m}, true
}

// Path returns the object's path.
func (o Object) Path() string { return o.path }

func (o Object) matches(key, name string) bool {
	if o.d.Fold {
		return strings.EqualFold(key, name)
	}
	return key == name
}

// Get returns the value of the field spelt as any of names (the first is the canonical
// spelling, used in the returned path). A null value counts as absent. A field given under
// two spellings is a problem.
func (o Object) Get(names ...string) (any, string, bool) {
	if o.d == nil {
		return nil, "", false
	}
	// The spellings present, with their values, reported in key order.
	var hits [4]Member
	got := hits[:0]
	if o.d.Fold {
		for _, f := range o.fields { // case-insensitive: every key is compared
			if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(f.Key, n) }) {
				got = append(got, f)
			}
		}
	} else {
		for _, n := range names {
			if v, ok := o.fields.Get(n); ok && !slices.ContainsFunc(got, func(m Member) bool { return m.Key == n }) {
				got = append(got, Member{n, v})
			}
		}
	}
	if len(got) == 0 {
		return nil, "", false
	}
	slices.SortFunc(got, func(a, b Member) int { return strings.Compare(a.Key, b.Key) })
	for _, m := range got[1:] {
		o.d.Errorf(o.path, "field given twice, as %q and %q", got[0].Key, m.Key)
	}
	if got[0].Value == nil {
		return nil, "", false
	}
	return got[0].Value, Child(o.path, names[0]), true
}

// MaxUnknownFields is how many unknown fields Check reports in one object; the rest are
// counted in one more problem.
const MaxUnknownFields = 10

// Check reports the fields that are none of known, in key order, suggesting the known field
// each resembles: the first MaxUnknownFields of them, then how many more there are.
func (o Object) Check(known ...string) {
	var unknown []string
	for _, f := range o.fields {
		if !slices.ContainsFunc(known, func(n string) bool { return o.matches(f.Key, n) }) {
			unknown = append(unknown, f.Key)
		}
	}
	slices.Sort(unknown)
	for i, k := range unknown {
		if i == MaxUnknownFields {
			o.d.Errorf(o.path, "%d more unknown fields (the first %d are reported)", len(unknown)-i, MaxUnknownFields)
			break
		}
		hint := ""
		if s := o.d.suggest(k, known); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		o.d.Errorf(o.path, "unknown field %q%s", k, hint)
	}
}

// suggest is Suggest, remembered per key and set of known fields.
func (d *Decoder) suggest(key string, known []string) string {
	ck := [2]string{key, strings.Join(known, "\x00")}
	if s, ok := d.suggestions[ck]; ok {
		return s
	}
	s := Suggest(key, known)
	if d.suggestions == nil {
		d.suggestions = map[[2]string]string{}
	}
	d.suggestions[ck] = s
	return s
}

// Suggest returns the candidate that key most plausibly misspells: Close's answer, else one
// that key abbreviates (four letters or more, such as "Proto" for "Protocol").
func Suggest(key string, candidates []string) string {
	if c := Close(key, candidates); c != "" {
		return c
	}
	a := fold(key)
	for _, c := range candidates {
		if len(a) >= 4 && strings.HasPrefix(fold(c), a) {
			return c
		}
	}
	return ""
}

// Close returns the candidate key is a near miss of: the same but for case and the
// separators "_" and "-", else one edit away (for names of three or more letters), else two
// edits away (for names of five or more); "" when none is. An exact match is not a near miss.
func Close(key string, candidates []string) string {
	a := fold(key)
	for _, c := range candidates {
		if c != key && fold(c) == a {
			return c
		}
	}
	for _, maxEdits := range []int{1, 2} {
		for _, c := range candidates {
			if b := fold(c); c != key && len(b) >= 2*maxEdits+1 && EditDistance(a, b) <= maxEdits {
				return c
			}
		}
	}
	return ""
}

// fold returns s in lower case without the separators "_" and "-".
func fold(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// EditDistance is the Levenshtein distance between a and b.
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// String returns x as a string, recording a problem if it is not one.
func (d *Decoder) String(x any, path string) string {
	s, ok := x.(string)
	if !ok && x != nil {
		d.wrongType(path, "a string", x)
	}
	return s
}

// Bool returns x as a boolean, recording a problem if it is not one.
func (d *Decoder) Bool(x any, path string) bool {
	b, ok := x.(bool)
	if !ok && x != nil {
		d.wrongType(path, "a boolean", x)
	}
	return b
}

// Uint returns x as a non-negative whole number up to 2^64-1, read exactly, recording a
// problem if it is not one.
func (d *Decoder) Uint(x any, path string) uint64 {
	n, ok := x.(json.Number)
	if !ok {
		if x != nil {
			d.wrongType(path, "a non-negative whole number", x)
		}
		return 0
	}
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		d.Fail(path, n, "%s", numberProblem(n, "a non-negative whole number", 0, math.MaxUint64))
		return 0
	}
	return u
}

// Int returns x as a whole number in [lo, hi], recording a problem if it is not one.
func (d *Decoder) Int(x any, path string, lo, hi int64) (int64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		d.wrongType(path, "a whole number", x)
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i < lo || i > hi {
		d.Fail(path, n, "%s", numberProblem(n, "a whole number", lo, uint64(hi)))
		return 0, false
	}
	return i, true
}

// numberProblem says why n is not a whole number in [lo, hi]: a fraction or exponent, or out
// of range.
func numberProblem(n json.Number, want string, lo int64, hi uint64) string {
	s := string(n)
	if strings.ContainsAny(s, ".eE") {
		return fmt.Sprintf("must be %s, got the number %s", want, s)
	}
	if lo >= 0 && strings.HasPrefix(s, "-") {
		return fmt.Sprintf("must be %s, got the number %s", want, s)
	}
	return fmt.Sprintf("the number %s is out of range [%d, %d]", s, lo, hi)
}

// List returns x as a list, recording a problem if it is not one.
func (d *Decoder) List(x any, path string) []any {
	l, ok := x.([]any)
	if !ok && x != nil {
		d.wrongType(path, "a list", x)
	}
	return l
}

// Strings returns x as a list of strings, recording a problem for each element that is not
// one.
func (d *Decoder) Strings(x any, path string) []string {
	var out []string
	for i, item := range d.List(x, path) {
		s, ok := item.(string)
		if !ok {
			d.wrongType(Index(path, i), "a string", item)
			continue
		}
		out = append(out, s)
	}
	return out
}

// StringMap returns x as an object of strings, recording a problem for each value that is
// not one (in key order). An empty object gives an empty, non-nil map.
func (d *Decoder) StringMap(x any, path string) map[string]string {
	f := d.StringFields(x, path)
	if f == nil {
		return nil
	}
	m := make(map[string]string, len(f))
	for _, kv := range f {
		m[kv.Key], _ = kv.Value.(string)
	}
	return m
}

// StringFields is StringMap without the map: x as an object whose values are all strings,
// a problem recorded for each value that is not one (in key order). For objects read for a
// key or two, such as a Kubernetes object's annotations.
func (d *Decoder) StringFields(x any, path string) Fields {
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	var bad Fields
	for _, f := range o.fields {
		if _, ok := f.Value.(string); !ok {
			bad = append(bad, f)
		}
	}
	for _, f := range bad.Sorted() {
		d.wrongType(Key(path, f.Key), "a string", f.Value)
	}
	if len(bad) == 0 {
		return o.fields
	}
	out := make(Fields, 0, len(o.fields)-len(bad))
	for _, f := range o.fields {
		if _, ok := f.Value.(string); ok {
			out = append(out, f)
		}
	}
	return out
}

func (d *Decoder) wrongType(path, want string, x any) {
	d.Fail(path, x, "must be %s, got %s", want, Describe(x))
}

// Describe names a JSON value for a message: scalars with their value, containers by kind.
func Describe(x any) string {
	switch t := x.(type) {
	case nil:
		return "null"
	case bool:
		return "the boolean " + strconv.FormatBool(t)
	case json.Number:
		return "the number " + string(t)
	case string:
		return "the string " + strconv.Quote(t)
	case []any:
		return "a list"
	case Fields:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// Unmarshal parses JSON and decodes it with decode from the root, returning every problem
// decode reported, joined. It is the body of the packages' strict UnmarshalJSON methods.
func Unmarshal[T any](data []byte, fold bool, decode func(d *Decoder, x any, path string) T) (T, error) {
	var zero T
	x, err := ParseJSON(data)
	if err != nil {
		return zero, err
	}
	d := &Decoder{Fold: fold}
	got := decode(d, x, "")
	if err := d.Err(); err != nil {
		return zero, err
	}
	return got, nil
}

// String stores in dst the string field spelt as any of names, if present.
func (o Object) String(dst *string, names ...string) {
	if v, p, ok := o.Get(names...); ok {
		*dst = o.d.String(v, p)
	}
}

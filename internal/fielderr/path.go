package fielderr

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Spelling is how a Path names fields: as the object a user wrote in YAML or JSON does, or as
// the Go value that holds the object does.
type Spelling uint8

const (
	// Object spells a field as the object does, with its JSON names, from the object's root:
	// spec.http[0].route[1].destination.host.
	Object Spelling = iota
	// GoValue spells a field as the Go value does, with its exported names, from the value:
	// HTTP[0].Route[1].Host.
	GoValue
)

// Path is where a field is: a value built once, step by step, by the check that found a
// problem, and spelt as the input it checks — an object read from YAML or JSON (Object) or a
// value built in Go (GoValue), chosen once at the root. So one check serves both inputs and
// names each field once: where the Go value names a field otherwise than the object, or
// leaves it out, Field gives both names in one step.
//
//	spec := fielderr.Root(fielderr.Object).Child("spec") // or fielderr.Root(fielderr.GoValue)
//	at := spec.Field("http", "HTTP").Index(0).Child("route").Index(1).Field("destination", "").Child("host")
//	at.String() // spec.http[0].route[1].destination.host, or HTTP[0].Route[1].Host
//
// A Path wraps apimachinery's field.Path, one node per step. Building one allocates, so a
// check builds the path of a field only once it has found a problem there: it takes its
// parent's Path (which costs nothing to pass) and the indexes it walks, and calls Child, Index
// and Key in the branch that reports the problem. The zero Path is the root in the Object
// spelling. A Path is immutable and safe for concurrent use.
type Path struct {
	p *field.Path
	s Spelling
}

// Root returns the root of an input spelt as s: the object, or the Go value, as a whole.
func Root(s Spelling) Path { return Path{s: s} }

// Dotted returns the path a reader that spells places as strings found, in the Object
// spelling: "spec.meshConfig" is Root(Object).Child("spec").Child("meshConfig"), "" the root.
// It is where a string-spelling reader (meshscope's strict decoder) hands a place to a check,
// which builds the paths of the fields under it as values.
func Dotted(path string) Path {
	p := Root(Object)
	for path != "" {
		var name string
		name, path, _ = strings.Cut(path, ".")
		p = p.step(name)
	}
	return p
}

// Spelling returns how p names fields.
func (p Path) Spelling() Spelling { return p.s }

// Child returns the path of field name under p. name is the field's JSON name, as the object
// spells it ("exportTo"); a Go value spells it exported: upper case when it is one of Go's
// initialisms (http, tcp, tls, uri, url, ip, id, dns, sni: "HTTP"), else with its first
// letter upper case ("ExportTo"). Use Field for another Go name.
func (p Path) Child(name string) Path {
	if p.s == GoValue {
		name = goName(name)
	}
	return p.step(name)
}

// Field returns the path of a field the Go value names otherwise than the object: object is
// its name in the object, goName in the Go value. An empty name leaves the step out of that
// spelling, for a field only one of them has: Field("destination", "") is the object's
// wrapper of a route's destination, whose fields the Go value holds in the route itself.
func (p Path) Field(object, goName string) Path {
	if p.s == GoValue {
		return p.step(goName)
	}
	return p.step(object)
}

func (p Path) step(name string) Path {
	if name == "" {
		return p
	}
	if p.p == nil {
		return Path{field.NewPath(name), p.s}
	}
	return Path{p.p.Child(name), p.s}
}

// Index returns the path of element i of the list at p: "hosts[2]".
func (p Path) Index(i int) Path { return Path{p.p.Index(i), p.s} }

// Key returns the path of key k of the map at p, the key quoted as Go quotes a string:
// `labels["app"]`.
func (p Path) Key(k string) Path { return Path{p.p.Key(strconv.Quote(k)), p.s} }

// String returns the path as its spelling writes it; "" for the root.
func (p Path) String() string {
	if p.p == nil {
		return ""
	}
	return p.p.String()
}

// FieldPath returns p as apimachinery's field.Path (nil for the root), for apimachinery's
// validators, whose problems name their fields under it.
func (p Path) FieldPath() *field.Path { return p.p }

// Problem returns the problem of the field at p: the value found there (nil for none) and
// why it is refused.
func (p Path) Problem(value any, detail string) *Error {
	return &Error{Field: p.String(), Value: value, Detail: detail}
}

// Problemf is Problem with why formatted as fmt.Sprintf does.
func (p Path) Problemf(value any, format string, args ...any) *Error {
	return p.Problem(value, fmt.Sprintf(format, args...))
}

// initialisms are the JSON names whose Go names are all upper case.
var initialisms = map[string]bool{"http": true, "tcp": true, "tls": true, "uri": true, "url": true, "ip": true, "id": true, "dns": true, "sni": true}

// goName returns the exported Go name of a JSON name (see Path.Child).
func goName(name string) string {
	if initialisms[name] {
		return strings.ToUpper(name)
	}
	if name == "" || name[0] < 'a' || name[0] > 'z' {
		return name
	}
	return string(name[0]-'a'+'A') + name[1:]
}

package peermeta

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// decodeHealth decodes one /v1/health/service output, parsed: a list of instances, as
// APIOutput.ReadHealth says.
func decodeHealth(x any) ([]CheckServiceNode, error) {
	list, ok := x.([]any)
	if !ok {
		return nil, &FieldError{Field: "(top level)", Value: x, Detail: "must be a list of instances, as /v1/health/service/<name> returns, got " + strict.Describe(x)}
	}
	c := healthChecker{fields: map[reflect.Type][]jsonField{}}
	for i, item := range list {
		c.check(item, reflect.TypeFor[CheckServiceNode](), strict.Index("", i))
		c.instance(item, strict.Index("", i))
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	out := make([]CheckServiceNode, len(list))
	for i, item := range list {
		b, err := json.Marshal(item)
		if err == nil {
			err = json.Unmarshal(b, &out[i])
		}
		if err != nil { // (what check accepts decodes)
			return nil, &FieldError{Field: strict.Index("", i), Detail: err.Error()}
		}
		if k := out[i].Service.Kind; !k.valid() {
			c.fail(strict.Index("", i)+".Service.Kind", k, "%s", kindProblem(k))
		}
	}
	if err := errors.Join(c.errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// healthChecker holds the generic values of /v1/health/service output to the types they
// decode into, as encoding/json decodes them — field names matched exactly, else in any
// case; unknown fields ignored; null leaving the zero value — reporting what encoding/json
// would refuse, with the path and the value, and two keys one field would take (where
// encoding/json keeps the last silently).
type healthChecker struct {
	errs   []error
	fields map[reflect.Type][]jsonField // each struct's fields, once per call
}

// jsonField is a struct field as encoding/json names it.
type jsonField struct {
	name  string
	index int
}

func (c *healthChecker) fail(path string, value any, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Field: strict.Display(path), Value: value, Detail: fmt.Sprintf(format, args...)})
}

// check checks x, at path, against t.
func (c *healthChecker) check(x any, t reflect.Type, path string) {
	if x == nil {
		return
	}
	wrong := func() { c.fail(path, x, "must be %s, got %s", want(t), strict.Describe(x)) }
	switch t.Kind() {
	case reflect.Pointer:
		c.check(x, t.Elem(), path)
	case reflect.Struct:
		obj, ok := x.(strict.Fields)
		if !ok {
			wrong()
			return
		}
		fields := c.structFields(t)
		var keys [][]string // per field, the keys that name it
		for _, m := range obj {
			i := matchField(fields, m.Key)
			if i < 0 {
				continue // a field meshscope does not use
			}
			if keys == nil {
				keys = make([][]string, len(fields))
			}
			keys[i] = append(keys[i], m.Key)
			c.check(m.Value, t.Field(fields[i].index).Type, strict.Child(path, fields[i].name))
		}
		for _, ks := range keys {
			slices.Sort(ks)
			for _, k := range ks[min(1, len(ks)):] {
				c.fail(path, nil, "field given twice, as %q and %q", ks[0], k)
			}
		}
	case reflect.Map:
		obj, ok := x.(strict.Fields)
		if !ok {
			wrong()
			return
		}
		for _, m := range obj {
			c.check(m.Value, t.Elem(), strict.Key(path, m.Key))
		}
	case reflect.Slice:
		list, ok := x.([]any)
		if !ok {
			wrong()
			return
		}
		for i, item := range list {
			c.check(item, t.Elem(), strict.Index(path, i))
		}
	case reflect.String:
		if _, ok := x.(string); !ok {
			wrong()
		}
	case reflect.Bool:
		if _, ok := x.(bool); !ok {
			wrong()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := x.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			wrong()
			return
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			c.fail(path, n, "the number %s is out of range for %s", n, t.Kind())
		}
	default:
		c.fail(path, x, "cannot be read into %s", t) // no field of the types has another kind
	}
}

// healthOutput is what decodeHealth reads, for the messages refusing something else.
const healthOutput = "expected /v1/health/service/<name> or /v1/health/connect/<name> output " +
	"(curl $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway): a list of instances, each with Node, Service and Checks"

// instance refuses the element x, at path, when it is not an instance: null, or an object
// without a Node or a Service (absent or null), saying what it is instead. An element of
// the wrong type check has reported.
func (c *healthChecker) instance(x any, path string) {
	obj, ok := x.(strict.Fields)
	if x != nil && !ok {
		return
	}
	fields := c.structFields(reflect.TypeFor[CheckServiceNode]())
	var missing []string
	for _, name := range []string{"Node", "Service"} {
		given := false
		for _, m := range obj {
			if i := matchField(fields, m.Key); i >= 0 && fields[i].name == name && m.Value != nil {
				given = true
			}
		}
		if !given {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return
	}
	found := "null"
	switch keys := make([]string, 0, len(obj)); {
	case x == nil:
	case len(obj) == 0:
		found = "an empty object"
	default:
		for _, m := range obj {
			keys = append(keys, m.Key)
		}
		if len(keys) > 6 {
			keys = append(keys[:6], "…")
		}
		found = "an object with " + strings.Join(keys, ", ")
		if _, ok := obj.Get("Name"); ok && slices.Contains(missing, "Service") {
			found += ", which looks like catalog output (/v1/internal/ui/services)"
		} else if _, ok := obj.Get("ServiceName"); ok && slices.Contains(missing, "Service") {
			found += ", which looks like catalog output (/v1/catalog/service/<name>)"
		}
	}
	c.fail(path, nil, "not an instance: no %s; found %s; %s", strings.Join(missing, " and no "), found, healthOutput)
}

// structFields returns the fields of the struct type t as encoding/json names them.
func (c *healthChecker) structFields(t reflect.Type) []jsonField {
	if f, ok := c.fields[t]; ok {
		return f
	}
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		out = append(out, jsonField{cmp.Or(name, sf.Name), i})
	}
	c.fields[t] = out
	return out
}

// matchField returns which of fields encoding/json decodes the key into: the one named
// exactly so, else one named so in another case; -1 for none.
func matchField(fields []jsonField, key string) int {
	if i := slices.IndexFunc(fields, func(f jsonField) bool { return f.name == key }); i >= 0 {
		return i
	}
	return slices.IndexFunc(fields, func(f jsonField) bool { return strings.EqualFold(f.name, key) })
}

func want(t reflect.Type) string {
	switch k := t.Kind(); {
	case k >= reflect.Int && k <= reflect.Uint64:
		return "a whole number"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case k == reflect.Slice:
		return "a list"
	case k == reflect.Map || k == reflect.Struct || k == reflect.Pointer:
		return "an object"
	}
	return "another type"
}

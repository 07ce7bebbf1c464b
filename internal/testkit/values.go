package testkit

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReEncodes checks that v marshals to the JSON document want (any spacing and key order):
// what a decoder read from Consul's output writes back as Consul wrote it.
func ReEncodes(t testing.TB, v any, want string) {
	t.Helper()
	out, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(out), "re-encodes to the same JSON")
}

// Canonical returns v, a value of one of the kinds of package sni or spiffe, spelt
// canonically: an empty Namespace or Partition field spelt "default", as Consul reads an empty
// namespace or partition (and as Parse returns a name). It is for valid values: a kind whose
// namespace is required (an Istio workload's) never has an empty one. It restates the rule on
// purpose, field by field, independent of the packages it checks.
func Canonical[T any](v T) T {
	in := reflect.ValueOf(&v).Elem()
	if in.Kind() == reflect.Interface {
		in = in.Elem()
	}
	out := reflect.New(in.Type()).Elem()
	out.Set(in)
	for _, name := range []string{"Namespace", "Partition"} {
		if f := out.FieldByName(name); f.IsValid() && f.String() == "" {
			f.SetString("default")
		}
	}
	return out.Interface().(T)
}

// Name is what a name of package sni or spiffe is: built without validating, appended to a
// buffer, and validated.
type Name interface {
	String() string
	AppendTo(b []byte) []byte
	Validate() error
}

// NameAllocations checks what building, validating and parsing a valid name allocates: String
// the string alone, AppendTo to a buffer with room and Validate nothing, and parse (which
// returns an interface value) that value alone.
func NameAllocations(t testing.TB, n Name, parse func()) {
	t.Helper()
	buf := make([]byte, 0, 256)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { _ = n.String() }), "String")
	assert.Zero(t, testing.AllocsPerRun(100, func() { buf = n.AppendTo(buf[:0]) }), "AppendTo")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = n.Validate() }), "Validate")
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, parse), "Parse")
}

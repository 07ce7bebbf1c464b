//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package store

import (
	"reflect"
	"testing"

	"github.com/hashicorp/consul/api"
	"github.com/stretchr/testify/assert"
)

// TestDefaultsFieldsAreConsuls holds the fields Load and Apply accept in service-defaults and
// proxy-defaults to those of Consul's API types: every one is accepted.
func TestDefaultsFieldsAreConsuls(t *testing.T) {
	fieldsAreConsuls(t, reflect.TypeFor[api.ServiceConfigEntry](), serviceDefaultsFields)
	fieldsAreConsuls(t, reflect.TypeFor[api.ProxyConfigEntry](), proxyDefaultsFields)
}

// fieldsAreConsuls checks that every field of typ, Consul's API type of an entry, and its
// alias are among known.
func fieldsAreConsuls(t *testing.T, typ reflect.Type, known []string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		assert.Contains(t, known, f.Name, "%s.%s", typ.Name(), f.Name)
		if alias := f.Tag.Get("alias"); alias != "" {
			assert.Contains(t, known, alias, "%s.%s", typ.Name(), f.Name)
		}
	}
}

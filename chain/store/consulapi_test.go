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
	for _, tt := range []struct {
		typ   reflect.Type
		known []string
	}{
		{reflect.TypeFor[api.ServiceConfigEntry](), serviceDefaultsFields},
		{reflect.TypeFor[api.ProxyConfigEntry](), proxyDefaultsFields},
	} {
		for i := range tt.typ.NumField() {
			f := tt.typ.Field(i)
			assert.Contains(t, tt.known, f.Name, "%s.%s", tt.typ.Name(), f.Name)
			if alias := f.Tag.Get("alias"); alias != "" {
				assert.Contains(t, tt.known, alias, "%s.%s", tt.typ.Name(), f.Name)
			}
		}
	}
}

package exports

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// TestErrorStructure asserts what callers rely on — where, which field, which value, which
// sentinel — and leaves the wording (Detail) to the message tests.
func TestErrorStructure(t *testing.T) {
	e := ConfigEntry{Name: "default", Services: []Service{
		{Name: "db", Consumers: []Consumer{{Peer: "*"}, {Peer: "West"}}},
		{Name: "db", Namespace: "default", Consumers: []Consumer{{Partition: "p"}}},
		{Name: "api"},
	}}
	_, err := Compile(e, ConfigEntry{Name: "default", Services: []Service{{Name: "x", Consumers: []Consumer{{Peer: "a"}}}}})
	require.Error(t, err)
	where := `entries[0] ("default")`
	want := []FieldError{
		{Where: where, Field: "Services[0].Consumers[0]", Value: "*"},
		{Where: where, Field: "Services[0].Consumers[1]", Value: "West"},
		{Where: where, Field: "Services[1]", Value: "db", Err: ErrDuplicateService},
		{Where: where, Field: "Services[2]"},
	}
	got := fieldErrors(t, err)
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(FieldError{}, "Detail"), cmpopts.EquateErrors()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = Compile(ConfigEntry{Name: "p", Services: []Service{{Name: "x", Consumers: []Consumer{{Peer: "a"}}}}},
		ConfigEntry{Name: "p", Services: []Service{{Name: "y", Consumers: []Consumer{{Peer: "a"}}}}})
	require.ErrorIs(t, err, ErrDuplicateEntry)
}

func fieldErrors(t *testing.T, err error) []FieldError {
	t.Helper()
	var out []FieldError
	for _, e := range fielderr.Split(err) {
		var fe *FieldError
		require.True(t, errors.As(e, &fe), "%T", e)
		out = append(out, *fe)
	}
	return out
}

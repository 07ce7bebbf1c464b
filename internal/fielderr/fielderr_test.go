package fielderr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errKind = errors.New("kind")

func TestError(t *testing.T) {
	tests := []struct {
		name string
		e    Error
		want string
	}{
		{"all parts", Error{Where: "items[1] (Namespace a)", Field: "metadata.name", Detail: "must not be empty"}, "items[1] (Namespace a): metadata.name: must not be empty"},
		{"no where", Error{Field: "Services[0]", Detail: "service name cannot be empty"}, "Services[0]: service name cannot be empty"},
		{"detail only", Error{Detail: "no inventory"}, "no inventory"},
		{"empty", Error{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.e.Error())
		})
	}
	assert.ErrorIs(t, New("f", 1, "d", errKind), errKind)
	assert.Equal(t, &Error{Where: "w", Field: "port", Value: 0, Detail: "port 0 is out of range"}, Newf("w", "port", 0, "port %d is out of range", 0))
}

func TestIn(t *testing.T) {
	a, b := New("f", "x", "bad", errKind), errors.New("plain")
	joined := errors.Join(a, errors.Join(b, nil))
	got := In("file.yaml", In("items[0]", joined))
	list := Split(got)
	require.Len(t, list, 2, "a join stays a join, nested joins flattened")
	var fe *Error
	require.ErrorAs(t, list[0], &fe)
	if diff := cmp.Diff(Error{Where: "file.yaml: items[0]", Field: "f", Value: "x", Err: errKind}, *fe, cmpopts.IgnoreFields(Error{}, "Detail"), cmpopts.EquateErrors()); diff != "" {
		t.Error(diff)
	}
	assert.Equal(t, "x", a.Value)
	assert.Empty(t, a.Where, "the original is not changed")
	assert.Equal(t, "file.yaml: items[0]: plain", list[1].Error())
	assert.ErrorIs(t, list[1], b, "a plain error stays wrapped, not flattened")
	assert.NoError(t, In("x", nil))
	assert.Same(t, a, In("", a))
}

func TestSplit(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	assert.Nil(t, Split(nil))
	assert.Equal(t, []error{a}, Split(a))
	assert.Equal(t, []error{a, b}, Split(errors.Join(a, b)))
	err := In("f.json", errors.Join(a, b))
	assert.EqualError(t, err, "f.json: a\nf.json: b")
	assert.ErrorIs(t, err, b)
}

func TestCollector(t *testing.T) {
	var c Collector
	assert.NoError(t, c.Err())
	c.Add("a", 1, "one", nil)
	c.Put(nil)
	c.Put(errors.Join(New("b", 2, "two", errKind), fmt.Errorf("three")))
	assert.Equal(t, 3, c.Len())
	assert.Equal(t, "a: one\nb: two\nthree", c.Err().Error())
	assert.ErrorIs(t, c.Err(), errKind)
}

func TestUnder(t *testing.T) {
	err := errors.Join(New("policies[0]", 1, "bad", nil), New("", nil, "empty", nil), New("[2]", nil, "item", nil), errors.New("plain"))
	got := Split(Under("spec.meshConfig", err))
	want := []string{"spec.meshConfig.policies[0]: bad", "spec.meshConfig: empty", "spec.meshConfig[2]: item", "plain"}
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Error() != want[i] {
			t.Errorf("errors[%d] = %q, want %q", i, got[i], want[i])
		}
	}
	if Under("x", nil) != nil {
		t.Error("Under of nil is not nil")
	}
}

package testkit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ErrLines checks that err holds the messages want, one a line, in order; that err is nil
// when want is nil.
func ErrLines(t testing.TB, err error, want []string) {
	t.Helper()
	if isError(t, err, want) {
		assert.Equal(t, strings.Join(want, "\n"), err.Error())
	}
}

// ErrLinesAnyOrder is ErrLines for errors whose order is not the point (a decoder that
// reports the fields of an object in map order).
func ErrLinesAnyOrder(t testing.TB, err error, want []string) {
	t.Helper()
	if isError(t, err, want) {
		assert.ElementsMatch(t, want, strings.Split(err.Error(), "\n"))
	}
}

// isError checks that err is nil when want is, an error when it is not, and reports whether
// err is one, to compare with want.
func isError(t testing.TB, err error, want []string) bool {
	t.Helper()
	if want == nil {
		require.NoError(t, err)
		return false
	}
	require.Error(t, err)
	return true
}

// DecodeCase unmarshals in into a T (through its UnmarshalJSON) and checks the answer: the
// messages errs, in any order, when errs is not nil; else no error and the value want.
func DecodeCase[T any](t testing.TB, in string, want T, errs []string) {
	t.Helper()
	var got T
	err := json.Unmarshal([]byte(in), &got)
	ErrLinesAnyOrder(t, err, errs)
	if errs == nil {
		assert.Equal(t, want, got)
	}
}

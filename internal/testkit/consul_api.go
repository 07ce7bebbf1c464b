package testkit

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadsBack holds ours to a round trip through theirs, a pointer to the real API module's type
// for the same object (Consul's api.ServiceResolverConfigEntry for a chain.ServiceResolver):
// the JSON meshscope writes for ours unmarshals into theirs, theirs writes back the same JSON
// (every field kept), and that reads back into a value equal to ours. It returns the JSON of
// ours, for a test's own checks of theirs.
//
//	var theirs api.ExportedServicesConfigEntry
//	testkit.ReadsBack(t, entry, &theirs)
func ReadsBack[T any](t testing.TB, ours T, theirs any) []byte {
	t.Helper()
	b, err := json.Marshal(ours)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, theirs), "%s", b)
	back, err := json.Marshal(theirs)
	require.NoError(t, err)
	assert.JSONEq(t, string(b), string(back), "the API type writes what it read, every field")
	var got T
	require.NoError(t, json.Unmarshal(back, &got))
	assert.Equal(t, ours, got)
	return b
}

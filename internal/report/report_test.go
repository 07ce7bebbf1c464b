package report

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLevel(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Level
		wantErr bool
	}{
		{"note", Note, false},
		{"WARNING", Warning, false},
		{"Error", Error, false},
		{"info", "", true},
		{"", "", true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			l, err := ParseLevel(tc.in)
			if tc.wantErr {
				assert.ErrorContains(t, err, "is not a level")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, l)
		})
	}
	assert.Less(t, Note.Rank(), Warning.Rank())
	assert.Less(t, Warning.Rank(), Error.Rank())
	assert.Zero(t, Level("info").Rank())
	assert.Equal(t, "WARNING", Warning.String())
}

func TestFinding(t *testing.T) {
	f := New("policies[2]", Shadowed, "policies[%d] matches every namespace it does", 0)
	assert.Equal(t, Finding{Path: "policies[2]", Code: Shadowed, Level: Warning, Message: "policies[0] matches every namespace it does"}, f)
	assert.Equal(t, "WARNING Shadowed policies[2]: policies[0] matches every namespace it does", f.String())
	b, err := json.Marshal(f)
	require.NoError(t, err)
	assert.JSONEq(t, `{"path":"policies[2]","code":"Shadowed","level":"warning","message":"policies[0] matches every namespace it does"}`, string(b))
	assert.Equal(t, Warning, Code("SomethingNew").Level(), "an unknown code is a warning")

	fs := []Finding{New("a", Redundant, "x"), New("b", Shadowed, "y"), New("c", ExportToUnknownNamespace, "z")}
	assert.Equal(t, fs[1:], AtLeast(fs, Warning))
	assert.Equal(t, fs[2:], AtLeast(fs, Error))
	assert.Len(t, AtLeast(fs, Note), 3)
}

func TestChange(t *testing.T) {
	type ch = Change[string, *string, int]
	b, err := json.Marshal(ch{Key: "q", Gained: []int{1}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"key":"q","gained":[1]}`, string(b), "zero Before and After are left out")

	for _, tc := range []struct {
		name                 string
		before, after        []string
		wantGained, wantLost []string
	}{
		{"both empty", nil, nil, nil, nil},
		{"gain one", []string{"a"}, []string{"a", "b"}, []string{"b"}, nil},
		{"lose one", []string{"a", "b"}, []string{"b"}, nil, []string{"a"}},
		{"repeats once", []string{"x", "x"}, []string{"y", "y", "z"}, []string{"y", "z"}, []string{"x"}},
		{"order of each side", []string{"c", "b", "a"}, []string{"f", "e", "a"}, []string{"f", "e"}, []string{"c", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, l := Delta(tc.before, tc.after)
			assert.Equal(t, tc.wantGained, g)
			assert.Equal(t, tc.wantLost, l)
		})
	}
}

package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// The codes of these tests, declared as a package declares its own.
var (
	shadowed  = NewCode("Shadowed", Warning)
	redundant = NewCode("Redundant", Note)
	unknownNS = NewCode("ExportToUnknownNamespace", Error)
)

func TestCode(t *testing.T) {
	assert.Equal(t, "Shadowed", shadowed.Name())
	assert.Equal(t, "Shadowed", shadowed.String())
	assert.Equal(t, "Shadowed", fmt.Sprint(shadowed), "fmt prints the name")
	assert.Equal(t, `"Shadowed"`, fmt.Sprintf("%q", shadowed))
	assert.Equal(t, Warning, shadowed.Level())
	assert.Equal(t, shadowed, NewCode("Shadowed", Warning), "codes compare by value")
	assert.NotEqual(t, shadowed, NewCode("Shadowed", Note), "the level is part of the code")
	assert.True(t, shadowed.Equal(NewCode("Shadowed", Warning)))
	assert.False(t, shadowed.Equal(redundant))
	assert.Empty(t, cmp.Diff([]Code{shadowed}, []Code{NewCode("Shadowed", Warning)}), "go-cmp compares codes")

	b, err := json.Marshal(map[Code]int{shadowed: 1, redundant: 2})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Shadowed":1,"Redundant":2}`, string(b), "a map keyed by codes encodes their names")
}

func TestFinding(t *testing.T) {
	f := New("policies[2]", shadowed, "policies[%d] matches every namespace it does", 0)
	assert.Equal(t, Finding{Path: "policies[2]", Code: shadowed, Level: Warning, Message: "policies[0] matches every namespace it does"}, f)
	assert.Equal(t, "WARNING Shadowed policies[2]: policies[0] matches every namespace it does", f.String())
	b, err := json.Marshal(f)
	require.NoError(t, err)
	assert.Equal(t, `{"path":"policies[2]","code":"Shadowed","level":"warning","message":"policies[0] matches every namespace it does"}`, string(b))

	var back Finding
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, f, back, "a finding read back equals the one reported")
	assert.Equal(t, shadowed, back.Code)

	fs := []Finding{New("a", redundant, "x"), New("b", shadowed, "y"), New("c", unknownNS, "z")}
	assert.Equal(t, fs[1:], AtLeast(fs, Warning))
	assert.Equal(t, fs[2:], AtLeast(fs, Error))
	assert.Len(t, AtLeast(fs, Note), 3)
}

func TestFindingUnmarshalJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Finding
		wantErr  string
	}{
		{"as written", `{"path":"p","code":"Redundant","level":"note","message":"m"}`, New("p", redundant, "m"), ""},
		{"keys in any order", `{"message":"m","level":"error","code":"ExportToUnknownNamespace","path":"p"}`, New("p", unknownNS, "m"), ""},
		{"a code meshscope does not declare keeps its name and level", `{"path":"p","code":"New","level":"note","message":"m"}`,
			Finding{Path: "p", Code: NewCode("New", Note), Level: Note, Message: "m"}, ""},
		{"no level", `{"path":"p","code":"Shadowed","message":"m"}`, Finding{}, `finding Shadowed at "p": level: "" is not a level`},
		{"an unknown level", `{"path":"p","code":"Shadowed","level":"info","message":"m"}`, Finding{}, `finding Shadowed at "p": level: "info" is not a level`},
		{"a code that is not a string", `{"path":"p","code":3,"level":"note"}`, Finding{}, "cannot unmarshal number"},
		{"not an object", `"Shadowed"`, Finding{}, "cannot unmarshal string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f Finding
			err := json.Unmarshal([]byte(tc.in), &f)
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, f)
		})
	}
}

func TestCompare(t *testing.T) {
	fs := []Finding{New("b", redundant, "x"), New("a", shadowed, "y"), New("a", redundant, "z"), New("a", redundant, "y")}
	slices.SortFunc(fs, Compare)
	assert.Equal(t, []Finding{New("a", redundant, "y"), New("a", redundant, "z"), New("a", shadowed, "y"), New("b", redundant, "x")}, fs,
		"by path, then code name, then message")
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

package fielderr

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPathSpellings: one path, built once, in each spelling.
func TestPathSpellings(t *testing.T) {
	for _, tt := range []struct {
		name        string
		build       func(root Path) Path
		object, gov string
	}{
		{"the root", func(r Path) Path { return r }, "", ""},
		{"a field", func(r Path) Path { return r.Child("exportTo") }, "exportTo", "ExportTo"},
		{"an initialism", func(r Path) Path { return r.Child("http").Index(0) }, "http[0]", "HTTP[0]"},
		{"a step only the object has", func(r Path) Path {
			return r.Child("http").Index(0).Child("route").Index(1).Field("destination", "").Child("host")
		}, "http[0].route[1].destination.host", "HTTP[0].Route[1].Host"},
		{"a field named otherwise", func(r Path) Path { return r.Field("selector", "Selector").Field("labels", "") }, "selector.labels", "Selector"},
		{"a step only the Go value has", func(r Path) Path { return r.Field("", "Mirror").Child("weight") }, "weight", "Mirror.Weight"},
		{"a key, quoted", func(r Path) Path { return r.Child("labels").Key(`a"b`) }, `labels["a\"b"]`, `Labels["a\"b"]`},
		{"an index at the root", func(r Path) Path { return r.Index(3).Child("name") }, "[3].name", "[3].Name"},
		{"a name not lower case first", func(r Path) Path { return r.Child("_x").Child("") }, "_x", "_x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.object, tt.build(Root(Object)).String())
			assert.Equal(t, tt.gov, tt.build(Root(GoValue)).String())
		})
	}
	assert.Equal(t, Object, Path{}.Spelling(), "the zero Path is the object's root")
	assert.Equal(t, "spec.hosts", Root(Object).Child("spec").Child("hosts").String())
}

// TestDotted: a place a reader spelt as a string is the path of its steps.
func TestDotted(t *testing.T) {
	assert.Equal(t, Root(Object), Dotted(""))
	for _, p := range []string{"a", "spec.meshConfig", "spec.values.meshConfig.serviceEntryVisibility"} {
		assert.Equal(t, p, Dotted(p).String())
	}
	assert.Equal(t, "spec.meshConfig.discoverySelectors[2].matchLabels", Dotted("spec.meshConfig").Child("discoverySelectors").Index(2).Child("matchLabels").String())
}

// TestPathProblem: a problem carries its path, value and words, and no Where: the walker of
// the objects puts that.
func TestPathProblem(t *testing.T) {
	p := Root(GoValue).Child("hosts").Index(2)
	assert.Equal(t, &Error{Field: "Hosts[2]", Value: "a..b", Detail: `"a..b" is bad`}, p.Problemf("a..b", "%q is bad", "a..b"))
	assert.Equal(t, &Error{Field: "Hosts[2]", Detail: "100% bad"}, p.Problem(nil, "100% bad"))
	assert.Equal(t, "items[1]: Hosts[2]: bad", In("items[1]", p.Problem(nil, "bad")).Error())
}

// TestPathImmutable: extending a path leaves it as it was, so one parent serves many
// children.
func TestPathImmutable(t *testing.T) {
	spec := Root(Object).Child("spec")
	a, b := spec.Child("a"), spec.Child("b").Index(1)
	assert.Equal(t, "spec", spec.String())
	assert.Equal(t, "spec.a", a.String())
	assert.Equal(t, "spec.b[1]", b.String())
}

var pathSink *Error

// BenchmarkPathProblem builds a four-step path and its problem, beside the strings the checks
// concatenated before (the baseline). Either is paid for a problem only.
func BenchmarkPathProblem(b *testing.B) {
	spec := Root(Object).Child("spec")
	r, i := 3, 1
	b.Run("path", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pathSink = spec.Child("http").Index(r).Child("route").Index(i).Problem(nil, "bad")
		}
	})
	b.Run("strings", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			pathSink = &Error{Field: "spec.http[" + strconv.Itoa(r) + "].route[" + strconv.Itoa(i) + "]", Detail: "bad"}
		}
	})
}

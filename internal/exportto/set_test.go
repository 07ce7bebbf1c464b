package exportto

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/release"
)

// referenceTo is whether an object of namespace with the exportTo list is exported to
// client, read as plainly as Istio's rule says it, entry by entry: "*" exports to every
// namespace and "~" to none (each stands alone in a valid list); else "." exports to the
// object's own namespace and a name to the namespace of that name.
func referenceTo(list []string, namespace, client string) bool {
	if slices.Contains(list, "*") {
		return true
	}
	if slices.Contains(list, "~") || client == "" {
		return false
	}
	for _, e := range list {
		if e == "." && client == namespace || e == client {
			return true
		}
	}
	return false
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		list                    []string
		public, hidden, ownOnly bool
		namespaces              []string
	}{
		{nil, false, false, false, nil},
		{[]string{"*"}, true, false, false, nil},
		{[]string{"~"}, false, true, false, nil},
		{[]string{"."}, false, false, true, []string{"shop"}},
		{[]string{"shop"}, false, false, true, []string{"shop"}},
		{[]string{".", "web"}, false, false, false, []string{"shop", "web"}},
		{[]string{"web", ".", "shop", "web"}, false, false, false, []string{"web", "shop"}}, // an annotation's repeats
	} {
		s := Parse(tc.list, "shop")
		assert.Equal(t, tc.public, s.Public(), "%q", tc.list)
		assert.Equal(t, tc.hidden, s.Hidden(), "%q", tc.list)
		assert.Equal(t, tc.ownOnly, s.OwnOnly(), "%q", tc.list)
		assert.Equal(t, tc.namespaces, slices.Collect(s.Namespaces()), "%q", tc.list)
		for _, n := range []string{"shop", "web", "ops", ""} {
			assert.Equal(t, referenceTo(tc.list, "shop", n), s.To(n), "%q to %q", tc.list, n)
			assert.Equal(t, referenceTo(slices.DeleteFunc(slices.Clone(tc.list), func(e string) bool { return e == "." }), "", n), s.ToByName(n), "%q to %q by name", tc.list, n)
		}
	}
	assert.False(t, Set{}.To("shop"), "the zero Set is exported nowhere")
}

func TestRepeat(t *testing.T) {
	for _, tc := range []struct {
		list   []string
		at, of int
		ok     bool
	}{
		{nil, 0, 0, false},
		{[]string{".", "web"}, 0, 0, false},
		{[]string{".", "shop"}, 1, 0, true},
		{[]string{"web", ".", "web"}, 2, 0, true},
	} {
		at, of, ok := Repeat(tc.list, "shop")
		assert.Equal(t, [3]any{tc.at, tc.of, tc.ok}, [3]any{at, of, ok}, "%q", tc.list)
	}
}

func TestListOf(t *testing.T) {
	assert.Equal(t, []string{"web"}, ListOf([]string{"web"}, []string{"."}))
	assert.Equal(t, []string{"."}, ListOf(nil, []string{"."}))
	assert.Equal(t, []string{"*"}, ListOf(nil, nil))
	for _, tc := range []struct {
		declared, meshDefault []string
		selector              bool
		want                  []string
	}{
		{nil, nil, false, []string{"*"}},
		{nil, []string{".", "web"}, false, []string{"."}},
		{nil, []string{"web"}, false, []string{"*"}},
		{nil, []string{"~"}, false, []string{"*"}},
		{[]string{"web"}, []string{"."}, false, []string{"web"}},
		{nil, nil, true, []string{"."}},
		{[]string{"shop"}, nil, true, []string{"."}},
	} {
		assert.Equal(t, tc.want, RuleListOf(tc.declared, tc.meshDefault, tc.selector), "%q, default %q, selector %v", tc.declared, tc.meshDefault, tc.selector)
	}
}

// TestDefaultList: how each release reads a mesh default: up to
// 1.30.2 "." wins, else "*", else nothing is indexed; from 1.30.3 the list as declared.
func TestDefaultList(t *testing.T) {
	old, patched, newest := release.Make("1.30.2", "", nil), release.Make("1.30.3", "", nil), release.Release{}
	for _, tc := range []struct {
		meshDefault []string
		old, new    []string
	}{
		{nil, []string{"*"}, []string{"*"}},
		{[]string{"."}, []string{"."}, []string{"."}},
		{[]string{".", "*"}, []string{"."}, []string{".", "*"}},
		{[]string{".", "~"}, []string{"."}, []string{".", "~"}},
		{[]string{".", "shop"}, []string{"."}, []string{".", "shop"}},
		{[]string{"*", "shop"}, []string{"*"}, []string{"*", "shop"}},
		{[]string{"shop", "web"}, []string{"~"}, []string{"shop", "web"}},
		{[]string{"~"}, []string{"~"}, []string{"~"}},
	} {
		assert.Equal(t, tc.old, DefaultList(tc.meshDefault, old), "1.30.2: %q", tc.meshDefault)
		assert.Equal(t, tc.new, DefaultList(tc.meshDefault, patched), "1.30.3: %q", tc.meshDefault)
		assert.Equal(t, tc.new, DefaultList(tc.meshDefault, newest), "newest: %q", tc.meshDefault)
		assert.Equal(t, !slices.Equal(tc.old, tc.new), DefaultListsDiffer(tc.meshDefault), "%q", tc.meshDefault)
	}
	// What the lists export to, from 1.30.3 on: [".", "*"] is public, [".", "~"] hidden.
	assert.True(t, Parse(DefaultList([]string{".", "*"}, patched), "shop").To("web"))
	assert.False(t, Parse(DefaultList([]string{".", "~"}, patched), "shop").To("shop"))
	assert.True(t, Parse(DefaultList([]string{".", "~"}, old), "shop").To("shop"))
}

// TestHolds: a "~" beside "*" or a name does not stop Holds, as it stops To.
func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		list      []string
		n         string
		holds, to bool
	}{
		{[]string{"*"}, "web", true, true},
		{[]string{"."}, "shop", true, true},
		{[]string{"."}, "web", false, false},
		{[]string{".", "~"}, "shop", true, false},
		{[]string{"web", "~"}, "web", true, false},
		{[]string{"~"}, "shop", false, false},
		{[]string{"."}, "", false, false},
	} {
		s := Parse(tc.list, "shop")
		assert.Equal(t, tc.holds, s.Holds(tc.n), "%q holds %s", tc.list, tc.n)
		assert.Equal(t, tc.to, s.To(tc.n), "%q to %s", tc.list, tc.n)
	}
}

func TestNarrow(t *testing.T) {
	for _, tc := range []struct {
		list []string
		n    Narrowing
		want []string
	}{
		{[]string{"web", "."}, Keep, []string{"web", "."}},
		{[]string{"*"}, ToOwn, []string{"."}},
		{[]string{"web", "."}, ToOwn, []string{"."}},
		{[]string{"shop", "web"}, ToOwn, []string{"."}},
		{[]string{"web"}, ToOwn, []string{"~"}},
		{[]string{"*"}, ToNone, []string{"~"}},
		{[]string{"~"}, ToOwn, []string{"~"}},
	} {
		assert.Equal(t, tc.want, Narrow(tc.list, "shop", tc.n), "%q narrowed by %d", tc.list, tc.n)
	}
	list := []string{"web"}
	require.Same(t, &list[0], &Narrow(list, "shop", Keep)[0], "a list that stands is returned as it is")
}

// TestParseAllocatesNothing: reading a list costs nothing, whatever it holds.
func TestParseAllocatesNothing(t *testing.T) {
	list := []string{".", "web", "ops"}
	assert.Zero(t, testing.AllocsPerRun(100, func() { Parse(list, "shop").To("ops") }))
}

// FuzzParse holds a Set to the entry-by-entry reference on every valid list.
func FuzzParse(f *testing.F) {
	f.Add("shop", ".,web", "web")
	f.Add("shop", "*", "")
	f.Add("shop", "~", "shop")
	f.Add("shop", "shop", "shop")
	f.Fuzz(func(t *testing.T, ns, joined, client string) {
		var list []string
		if joined != "" {
			list = strings.Split(joined, ",")
		}
		if ns == "" || len(Problems(func() fielderr.Path { return fielderr.Root(fielderr.Object).Child("exportTo") }, ns, list, Entry)) > 0 {
			return
		}
		if got, want := Parse(list, ns).To(client), referenceTo(list, ns, client); got != want {
			t.Fatalf("Parse(%q, %q).To(%q) = %v, the reference says %v", list, ns, client, got, want)
		}
	})
}

// BenchmarkSetTo reads a list once and asks it, beside the reference reading the list at
// every question.
func BenchmarkSetTo(b *testing.B) {
	list := []string{".", "web", "ops", "pay"}
	s := Parse(list, "shop")
	b.ReportAllocs()
	for b.Loop() {
		s.To("pay")
	}
}

func BenchmarkSetToReference(b *testing.B) {
	list := []string{".", "web", "ops", "pay"}
	b.ReportAllocs()
	for b.Loop() {
		referenceTo(list, "shop", "pay")
	}
}

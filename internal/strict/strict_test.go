package strict

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decode(t *testing.T, fold bool, js string, f func(d *Decoder, o Object)) string {
	t.Helper()
	x, err := ParseJSON([]byte(js))
	require.NoError(t, err)
	d := &Decoder{Fold: fold}
	o, ok := d.Object(x, "")
	require.True(t, ok)
	f(d, o)
	if err := d.Err(); err != nil {
		return err.Error()
	}
	return ""
}

func TestObject(t *testing.T) {
	tests := []struct {
		name string
		fold bool
		in   string
		want []string
	}{
		{"known fields", false, `{"Name":"a","Count":2,"On":true,"Tags":["x"],"Meta":{"k":"v"}}`, nil},
		{"unknown with suggestion", false, `{"Nmae":"a","Counts":1,"peer_name":"x","zzz":1}`, []string{
			`(top level): unknown field "Nmae"`,
			`(top level): unknown field "Counts" (did you mean "Count"?)`,
			`(top level): unknown field "zzz"`,
		}},
		{"case folded", true, `{"name":"a","COUNT":1}`, nil},
		{"case not folded", false, `{"name":"a"}`, []string{`(top level): unknown field "name" (did you mean "Name"?)`}},
		{"twice", true, `{"Name":"a","name":"b"}`, []string{`(top level): field given twice, as "Name" and "name"`}},
		{"alias twice", false, `{"Peer":"a","peer_name":"b"}`, []string{`(top level): field given twice, as "Peer" and "peer_name"`}},
		{"wrong types", false, `{"Name":1,"Count":-1,"On":"yes","Tags":["x",2],"Meta":{"k":1}}`, []string{
			`Count: must be a non-negative whole number, got the number -1`,
			`Meta["k"]: must be a string, got the number 1`,
			`Name: must be a string, got the number 1`,
			`On: must be a boolean, got the string "yes"`,
			`Tags[1]: must be a string, got the number 2`,
		}},
		{"fraction", false, `{"Count":1.5}`, []string{`Count: must be a non-negative whole number, got the number 1.5`}},
		{"nulls are absent", false, `{"Name":null,"Tags":null}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := decode(t, tt.fold, tt.in, func(d *Decoder, o Object) {
				o.Check("Name", "Count", "On", "Tags", "Meta", "Peer", "peer_name")
				if v, p, ok := o.Get("Name"); ok {
					d.String(v, p)
				}
				if v, p, ok := o.Get("Count"); ok {
					d.Uint(v, p)
				}
				if v, p, ok := o.Get("Meta"); ok {
					d.StringMap(v, p)
				}
				if v, p, ok := o.Get("On"); ok {
					d.Bool(v, p)
				}
				if v, p, ok := o.Get("Tags"); ok {
					d.Strings(v, p)
				}
				o.Get("Peer", "peer_name")
			})
			if tt.want == nil {
				assert.Empty(t, got)
				return
			}
			gotLines := strings.Split(got, "\n")
			assert.ElementsMatch(t, tt.want, gotLines)
		})
	}
}

func TestGetReturnsCanonicalPath(t *testing.T) {
	decode(t, true, `{"outer":{"peer_name":"x"}}`, func(d *Decoder, o Object) {
		v, p, ok := o.Get("Outer")
		require.True(t, ok)
		assert.Equal(t, "Outer", p)
		inner, ok := d.Object(v, p)
		require.True(t, ok)
		_, ip, ok := inner.Get("Peer", "peer_name")
		require.True(t, ok)
		assert.Equal(t, "Outer.Peer", ip)
	})
}

func TestPaths(t *testing.T) {
	assert.Equal(t, "a", Child("", "a"))
	assert.Equal(t, "a.b", Child("a", "b"))
	assert.Equal(t, "a[3]", Index("a", 3))
	assert.Equal(t, `a["k.x"]`, Key("a", "k.x"))
	assert.Equal(t, "(top level)", Display(""))
}

func TestSuggest(t *testing.T) {
	known := []string{"matchLabels", "matchExpressions", "key"}
	assert.Equal(t, "matchLabels", Suggest("match_labels", known))
	assert.Equal(t, "matchLabels", Suggest("matchLabel", known))
	assert.Equal(t, "", Suggest("op", known))
	assert.Equal(t, "", Suggest("kye", known), "short names get no edit-distance guesses")
	assert.Equal(t, "matchExpressions", Suggest("matchExpr", known), "an abbreviation")
	assert.Equal(t, "", Suggest("mat", known), "too short to be an abbreviation")
	assert.Equal(t, 3, EditDistance("kitten", "sitting"))
}

func TestDescribe(t *testing.T) {
	assert.Equal(t, "null", Describe(nil))
	assert.Equal(t, "a list", Describe([]any{}))
	assert.Equal(t, "an object", Describe(Fields{}))
	assert.Equal(t, `the string "x"`, Describe("x"))
}

func TestObjectRejectsNonObjects(t *testing.T) {
	d := &Decoder{}
	_, ok := d.Object(nil, "x")
	assert.False(t, ok)
	assert.NoError(t, d.Err())
	_, ok = d.Object([]any{}, "x")
	assert.False(t, ok)
	assert.EqualError(t, d.Err(), "x: must be an object, got a list")
}

func TestUnmarshal(t *testing.T) {
	decode := func(d *Decoder, x any, path string) string {
		var s string
		if o, ok := d.Object(x, path); ok {
			o.Check("Name")
			o.String(&s, "Name")
		}
		return s
	}
	got, err := Unmarshal([]byte(`{"name":"x"}`), true, decode)
	require.NoError(t, err)
	assert.Equal(t, "x", got)
	_, err = Unmarshal([]byte(`{"Nme":"x"}`), false, decode)
	assert.EqualError(t, err, `(top level): unknown field "Nme" (did you mean "Name"?)`)
	_, err = Unmarshal([]byte(`{`), false, decode)
	assert.Error(t, err)
}

// unknownDoc is an object with the known field Name and n unknown fields, each a near miss
// of a known one.
func unknownDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"Name":"x"`)
	for i := range n {
		fmt.Fprintf(&b, `,"Namespace%d":%d`, i, i)
	}
	b.WriteString("}")
	return []byte(b.String())
}

var knownFields = []string{"Name", "Namespace", "Partition", "Services", "Consumers", "Peer", "SamenessGroup", "Meta"}

func checkDoc(d *Decoder, x any, path string) string {
	var s string
	if o, ok := d.Object(x, path); ok {
		o.Check(knownFields...)
		o.String(&s, "Name")
	}
	return s
}

func TestCheckReportsABoundedNumber(t *testing.T) {
	_, err := Unmarshal(unknownDoc(25), false, checkDoc)
	list := fielderr.Split(err)
	require.Len(t, list, MaxUnknownFields+1)
	assert.EqualError(t, list[0], `(top level): unknown field "Namespace0" (did you mean "Namespace"?)`)
	assert.EqualError(t, list[MaxUnknownFields], `(top level): 15 more unknown fields (the first 10 are reported)`)

	// A misspelling repeated in many objects is worked out once.
	d := &Decoder{}
	for i := range 100 {
		checkDoc(d, Fields{{"Nme", "x"}}, Index("", i))
	}
	assert.Len(t, d.Errs(), 100)
	assert.Len(t, d.suggestions, 1)
}

func TestCheckIsLinear(t *testing.T) {
	allocs := func(n int) float64 {
		data := unknownDoc(n)
		return testing.AllocsPerRun(3, func() { _, _ = Unmarshal(data, false, checkDoc) })
	}
	small, large := allocs(2500), allocs(10000)
	assert.Less(t, large, 4.5*small, "allocations at n=2500: %v, at n=10000: %v", small, large)
}

func benchmarkUnknown(b *testing.B, n int, generic bool) {
	data := unknownDoc(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if generic {
			var x any
			if err := json.Unmarshal(data, &x); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, err := Unmarshal(data, false, checkDoc); err == nil {
			b.Fatal("no error")
		}
	}
}

// BenchmarkUnknownFields: a document with n unknown fields, beside a generic decode of the
// same bytes.
func BenchmarkUnknownFields1000(b *testing.B)        { benchmarkUnknown(b, 1000, false) }
func BenchmarkUnknownFields4000(b *testing.B)        { benchmarkUnknown(b, 4000, false) }
func BenchmarkUnknownFields1000Generic(b *testing.B) { benchmarkUnknown(b, 1000, true) }
func BenchmarkUnknownFields4000Generic(b *testing.B) { benchmarkUnknown(b, 4000, true) }

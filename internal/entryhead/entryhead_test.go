package entryhead_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// read reads the head of the JSON entry data, as the kinds' decoders do.
func read(data string) (entryhead.Head, error) {
	return strict.Unmarshal([]byte(data), true, func(d *strict.Decoder, x any, path string) entryhead.Head {
		return entryhead.Object(d, x, path, func(o strict.Object) entryhead.Head {
			o.Check(entryhead.With("Routes")...)
			return entryhead.Read(d, o)
		})
	})
}

func TestRead(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     entryhead.Head
		err      string
	}{
		{"every field", `{"Kind":"service-router","Name":"web","Namespace":"ops","Partition":"ap1","Meta":{"team":"a"},"CreateIndex":3,"ModifyIndex":18446744073709551615,"Routes":[]}`,
			entryhead.Head{Kind: "service-router", Name: "web", Namespace: "ops", Partition: "ap1", Meta: map[string]string{"team": "a"}, CreateIndex: 3, ModifyIndex: 18446744073709551615}, ""},
		{"in any case", `{"kind":"service-router","name":"web","meta":{}}`, entryhead.Head{Kind: "service-router", Name: "web", Meta: map[string]string{}}, ""},
		{"none", `{}`, entryhead.Head{}, ""},
		{"wrong types, every one reported", `{"Kind":1,"Name":["web"],"Meta":{"a":1},"CreateIndex":-1}`, entryhead.Head{},
			"Kind: must be a string, got the number 1\nName: must be a string, got a list\nMeta[\"a\"]: must be a string, got the number 1\nCreateIndex: must be a non-negative whole number, got the number -1"},
		{"a field of no head and no kind", `{"Kind":"service-router","Nme":"web"}`, entryhead.Head{},
			`(top level): unknown field "Nme" (did you mean "Name"?)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.in)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestPartition: the head of a kind kept per partition has no Namespace — a Namespace is an
// unknown field, never read (so never a wrong type besides) — and its Meta and indexes are
// read by Rest, after the kind's own fields (here a list, read by List).
func TestPartition(t *testing.T) {
	type entry struct {
		entryhead.Head
		Services []string
	}
	read := func(data string) (entry, error) {
		return strict.Unmarshal([]byte(data), true, func(d *strict.Decoder, x any, path string) entry {
			o, _ := d.Object(x, path)
			o.Check(entryhead.PartitionWith("Services")...)
			e := entry{Head: entryhead.PartitionNames(o)}
			e.Services = entryhead.List(d, o, func(d *strict.Decoder, x any, path string) string { return d.String(x, path) }, "Services")
			entryhead.Rest(d, o, &e.Head)
			return e
		})
	}
	e, err := read(`{"Kind":"exported-services","Name":"ap1","Partition":"ap1","Meta":{"a":"b"},"CreateIndex":2,"ModifyIndex":5,"Services":["web","db"]}`)
	assert.NoError(t, err)
	assert.Equal(t, entry{entryhead.Head{Kind: "exported-services", Name: "ap1", Partition: "ap1", Meta: map[string]string{"a": "b"}, CreateIndex: 2, ModifyIndex: 5}, []string{"web", "db"}}, e)
	_, err = read(`{"Name":"ap1","Namespace":1,"Partition":2,"Services":[3],"Meta":[]}`)
	assert.EqualError(t, err, "(top level): unknown field \"Namespace\"\nPartition: must be a string, got the number 2\nServices[0]: must be a string, got the number 3\nMeta: must be an object, got a list")
}

// TestFieldObject: Field sets a field the object has, with its decoder, and leaves one it
// lacks as it was; Object reads an object with its reader and gives the zero value, the
// problem recorded, for what is not one.
func TestFieldObject(t *testing.T) {
	type timeout struct {
		Seconds uint64
		Session bool
	}
	decode := func(d *strict.Decoder, x any, path string) *timeout {
		return entryhead.Object(d, x, path, func(o strict.Object) *timeout {
			o.Check("Seconds", "session_ok")
			tt := &timeout{Seconds: 30}
			entryhead.Field(d, o, &tt.Seconds, (*strict.Decoder).Uint, "Seconds")
			entryhead.Field(d, o, &tt.Session, (*strict.Decoder).Bool, "Session", "session_ok")
			return tt
		})
	}
	for _, tt := range []struct {
		name, in string
		want     *timeout
		err      string
	}{
		{"every field", `{"seconds":5,"session_ok":true}`, &timeout{Seconds: 5, Session: true}, ""},
		{"an absent field keeps its value", `{}`, &timeout{Seconds: 30}, ""},
		{"a wrong type is a problem at its path", `{"Seconds":"5","session_ok":1}`, nil,
			"Seconds: must be a non-negative whole number, got the string \"5\"\nSession: must be a boolean, got the number 1"},
		{"not an object", `[1]`, nil, "(top level): must be an object, got a list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := strict.Unmarshal([]byte(tt.in), true, decode)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	var d strict.Decoder
	assert.Nil(t, decode(&d, "web", "Timeout"), "what is not an object reads as the zero value")
	assert.EqualError(t, d.Err(), "Timeout: must be an object, got the string \"web\"")
}

func FuzzRead(f *testing.F) {
	f.Add(`{"Kind":"service-router","Name":"web","Meta":{"a":"b"},"CreateIndex":1}`)
	f.Add(`{"Kind":1,"Name":null,"Meta":[]}`)
	f.Fuzz(func(t *testing.T, data string) {
		h, err := read(data)
		if err != nil && fmt.Sprint(h) != fmt.Sprint(entryhead.Head{}) {
			t.Fatalf("a head read with problems: %+v", h)
		}
	})
}

func ExampleRead() {
	h, err := read(`{"Kind":"service-router","Name":"web","Partition":"ap1","ModifyIndex":7,"Routes":[]}`)
	fmt.Println(h.Kind, h.Name, h.Partition, h.ModifyIndex, err)
	// Output: service-router web ap1 7 <nil>
}

package exports

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const readEntry = `{
    "Kind": "exported-services",
    "Name": "default",
    "Services": [{"Name": "db", "Namespace": "default", "Consumers": [{"Peer": "west"}]}],
    "CreateIndex": 18446744073709551615,
    "ModifyIndex": 42
}`

func TestLoadEntries(t *testing.T) {
	one := ConfigEntry{Kind: Kind, Name: "default", Services: []Service{{Name: "db", Namespace: "default", Consumers: []Consumer{{Peer: "west"}}}},
		CreateIndex: math.MaxUint64, ModifyIndex: 42}
	two := one
	two.Name, two.CreateIndex = "part1", 7
	twoJSON := strings.Replace(strings.Replace(readEntry, `"default",
    "Services"`, `"part1",
    "Services"`, 1), "18446744073709551615", "7", 1)
	tests := []struct {
		name string
		in   string
		want []ConfigEntry
	}{
		{"one value", readEntry, []ConfigEntry{one}},
		{"a stream of values", readEntry + "\n" + twoJSON, []ConfigEntry{one, two}},
		{"a JSON array", "[" + readEntry + "," + twoJSON + "]", []ConfigEntry{one, two}},
		{"after a byte-order mark", "\ufeff" + readEntry, []ConfigEntry{one}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadEntries([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	// MaxUint64 survives a round trip exactly.
	got, err := LoadEntries([]byte(readEntry))
	require.NoError(t, err)
	b, err := json.Marshal(got[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"CreateIndex":18446744073709551615`)
}

func TestLoadEntriesRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{"key given twice", `{"Name": "default", "Services": [{"Name": "db", "Name": "web", "Consumers": [{"Peer": "west"}]}]}`,
			"Services[0].Name: given twice"},
		{"index beyond 2^64-1", `{"Name": "default", "CreateIndex": 18446744073709551616}`,
			"CreateIndex: the number 18446744073709551616 is out of range [0, 18446744073709551615]"},
		{"index as a float", `{"Name": "default", "ModifyIndex": 1.5}`,
			"ModifyIndex: must be a non-negative whole number, got the number 1.5"},
		{"trailing text", `{"Name": "default"} nope`, "value 2: not JSON: line 1, column 22: invalid character 'o' in literal null (expecting 'u')"},
		{"a byte shown as a byte", "{\"Name\": \"default\"}\n\xd0", "value 2: not JSON: line 2, column 1: unexpected byte 0xd0"},
		{"validation, named by value", `{"Name": "default", "Services": [{"Name": "db", "Consumers": [{"Peer": "*"}]}]}` + "\n" + `{"Name": "*"}`,
			"value 1: Services[0].Consumers[0]: exporting to all peers (wildcard) is not supported\nvalue 2: Name: must name a partition, got \"*\""},
		{"validation, named by element", `[{"Name": "default"}, {"Name": "p", "Services": [{"Name": ""}]}]`,
			"[1]: Services[0]: service name cannot be empty\n[1]: Services[0]: must have at least one consumer"},
		{"another kind", `{"Kind": "service-resolver", "Name": "default"}`, `Kind: must be "exported-services", got "service-resolver"`},
		{"empty", "", "no JSON value: the input is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadEntries([]byte(tt.in))
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

func FuzzLoadEntries(f *testing.F) {
	f.Add([]byte(readEntry))
	f.Add([]byte("[" + readEntry + "]"))
	f.Add([]byte(`{"Name": "a", "Name": "b"}`))
	f.Add([]byte(`{"kind":"exported-services","name":"ap1","partition":"ap1","services":[{"name":"*","namespace":"*","consumers":[{"peer_name":"a"},{"PeerName":"b"},{"partition":"ap2"},{"sameness_group":"g"}]}],"meta":{"k":"v"},"CreateIndex":18446744073709551615}`))
	f.Add([]byte(`{"Name":"default","Services":[{"Name":"db","Consumers":[{"Peer":"*"},{"Peer":"West"},{"Partition":"*"},{}]},{"Name":"db","Consumers":[]},{"Name":"x","Namespace":"*"}],"Servics":[]}`))
	f.Add([]byte(`{"Name":"default","Services":{"Name":"x"}} {"Name":1} [{"Name":"p1"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := LoadEntries(data)
		if err != nil {
			return
		}
		// What LoadEntries accepts is valid and encodes back to JSON it reads the same.
		for _, e := range entries {
			if err := e.Validate(); err != nil {
				t.Fatalf("accepted an invalid entry: %v", err)
			}
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			back, err := LoadEntries(b)
			if err != nil || !assert.ObjectsAreEqual([]ConfigEntry{e}, back) {
				t.Fatalf("round trip of %s: %v %#v", b, err, back)
			}
		}
	})
}

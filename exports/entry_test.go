package exports

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/testkit"
)

// consulRead is what `consul config read -kind exported-services -name default` prints.
const consulRead = `{
    "Kind": "exported-services",
    "Name": "default",
    "Services": [
        {
            "Name": "web",
            "Namespace": "default",
            "Consumers": [
                {
                    "Peer": "east"
                },
                {
                    "SamenessGroup": "shop"
                }
            ]
        },
        {
            "Name": "*",
            "Namespace": "default",
            "Consumers": [
                {
                    "Partition": "finance"
                }
            ]
        }
    ],
    "Meta": {
        "owner": "platform"
    },
    "CreateIndex": 19,
    "ModifyIndex": 27
}`

func TestDecodeConsulOutput(t *testing.T) {
	var e ConfigEntry
	require.NoError(t, json.Unmarshal([]byte(consulRead), &e))
	assert.Equal(t, ConfigEntry{
		Kind: Kind, Name: "default",
		Services: []Service{
			{Name: "web", Namespace: "default", Consumers: []Consumer{{Peer: "east"}, {SamenessGroup: "shop"}}},
			{Name: "*", Namespace: "default", Consumers: []Consumer{{Partition: "finance"}}},
		},
		Meta:        map[string]string{"owner": "platform"},
		CreateIndex: 19, ModifyIndex: 27,
	}, e)
	require.NoError(t, e.Validate())
	testkit.ReEncodes(t, &e, consulRead)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ConfigEntry
		errs []string
	}{
		{"snake_case aliases and lower case", `{"kind":"exported-services","name":"p1","services":[{"name":"db","namespace":"ns","consumers":[{"peer_name":"west"},{"sameness_group":"g"},{"partition":"p2"}]}]}`,
			ConfigEntry{Kind: Kind, Name: "p1", Services: []Service{{Name: "db", Namespace: "ns", Consumers: []Consumer{{Peer: "west"}, {SamenessGroup: "g"}, {Partition: "p2"}}}}}, nil},
		{"older PeerName", `{"Name":"default","Services":[{"Name":"db","Consumers":[{"PeerName":"west"}]}]}`,
			ConfigEntry{Name: "default", Services: []Service{{Name: "db", Consumers: []Consumer{{Peer: "west"}}}}}, nil},
		{"enterprise partition field", `{"Name":"p1","Partition":"p1"}`, ConfigEntry{Name: "p1", Partition: "p1"}, nil},
		{"unknown fields", `{"Name":"default","Services":[{"Name":"db","Consumer":[{"Peer":"west"}],"Consumers":[{"Peers":"west"}]}]}`, ConfigEntry{}, []string{
			`Services[0]: unknown field "Consumer" (did you mean "Consumers"?)`,
			`Services[0].Consumers[0]: unknown field "Peers" (did you mean "Peer"?)`,
		}},
		{"twice", `{"Name":"default","Services":[{"Name":"db","Consumers":[{"Peer":"a","peer_name":"b"}]}]}`, ConfigEntry{}, []string{
			`Services[0].Consumers[0]: field given twice, as "Peer" and "peer_name"`,
		}},
		{"wrong types", `{"Name":1,"Services":{},"Meta":{"a":1},"CreateIndex":"x"}`, ConfigEntry{}, []string{
			`CreateIndex: must be a non-negative whole number, got the string "x"`,
			`Meta["a"]: must be a string, got the number 1`,
			`Name: must be a string, got the number 1`,
			`Services: must be a list, got an object`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.DecodeCase(t, tt.in, tt.want, tt.errs)
		})
	}
}

func TestNormalize(t *testing.T) {
	e := ConfigEntry{Name: "p1", Meta: map[string]string{"a": "b"}, Services: []Service{
		{Name: "a", Consumers: []Consumer{{Peer: "x"}}},
		{Name: "b", Namespace: "ns", Consumers: []Consumer{{Peer: "x"}}},
		{Name: "*", Namespace: "*"},
	}}
	e.Normalize()
	assert.Equal(t, ConfigEntry{Kind: Kind, Name: "p1", Meta: map[string]string{"a": "b"}, Services: []Service{
		{Name: "a", Namespace: "default", Consumers: []Consumer{{Peer: "x"}}},
		{Name: "b", Namespace: "ns", Consumers: []Consumer{{Peer: "x"}}},
		{Name: "*", Namespace: "*"},
	}}, e)
}

func TestValidate(t *testing.T) {
	peer := func(p string) []Consumer { return []Consumer{{Peer: p}} }
	tests := []struct {
		name string
		in   ConfigEntry
		errs []string
	}{
		{"valid", ConfigEntry{Name: "default", Services: []Service{
			{Name: "*", Namespace: "*", Consumers: peer("a")},
			{Name: "*", Namespace: "ns", Consumers: []Consumer{{Partition: "p"}}},
			{Name: "db", Consumers: []Consumer{{SamenessGroup: "g"}, {Peer: "b-1"}}},
		}}, nil},
		{"empty name", ConfigEntry{}, []string{`Name: must name a partition, got ""`}},
		{"wildcard name", ConfigEntry{Name: "*"}, []string{`Name: must name a partition, got "*"`}},
		{"wrong kind", ConfigEntry{Kind: "service-resolver", Name: "default"}, []string{`Kind: must be "exported-services", got "service-resolver"`}},
		{"partition differs", ConfigEntry{Name: "a", Partition: "b"}, []string{`Partition: "b" differs from Name "a"; the entry governs the partition its Name gives`}},
		{"empty service name", ConfigEntry{Name: "default", Services: []Service{{Consumers: peer("a")}}}, []string{`Services[0]: service name cannot be empty`}},
		{"wildcard namespace needs wildcard name", ConfigEntry{Name: "default", Services: []Service{{Name: "db", Namespace: "*", Consumers: peer("a")}}}, []string{
			`Services[0]: service name must be wildcard if namespace is wildcard`,
		}},
		{"consul", ConfigEntry{Name: "default", Services: []Service{{Name: "consul", Consumers: peer("a")}}}, []string{`Services[0]: the consul service cannot be exported`}},
		{"duplicate", ConfigEntry{Name: "default", Services: []Service{
			{Name: "db", Consumers: peer("a")}, {Name: "web", Consumers: peer("a")}, {Name: "db", Namespace: "default", Consumers: peer("b")},
		}}, []string{`Services[2]: duplicate of Services[0]`}},
		{"no consumers", ConfigEntry{Name: "default", Services: []Service{{Name: "db"}}}, []string{`Services[0]: must have at least one consumer`}},
		{"consumer problems", ConfigEntry{Name: "default", Services: []Service{{Name: "db", Consumers: []Consumer{
			{Peer: "a", Partition: "b"},
			{},
			{Partition: "*"},
			{Peer: "*"},
			{Peer: "West_1"},
			{Peer: "*", SamenessGroup: "g"},
		}}}}, []string{
			`Services[0].Consumers[0]: must define at most one of Peer, Partition, or SamenessGroup`,
			`Services[0].Consumers[1]: must define one of Peer, Partition, or SamenessGroup`,
			`Services[0].Consumers[2]: exporting to all partitions (wildcard) is not supported`,
			`Services[0].Consumers[3]: exporting to all peers (wildcard) is not supported`,
			`Services[0].Consumers[4]: peer name "West_1" must be a lowercase DNS label (must be lower case)`,
			`Services[0].Consumers[5]: must define at most one of Peer, Partition, or SamenessGroup`,
			`Services[0].Consumers[5]: exporting to all peers (wildcard) is not supported`,
		}},
		{"everything at once, in order", ConfigEntry{Name: "", Services: []Service{
			{Name: "", Namespace: "*"},
			{Name: "consul", Consumers: []Consumer{{}}},
		}}, []string{
			`Name: must name a partition, got ""`,
			`Services[0]: service name cannot be empty`,
			`Services[0]: must have at least one consumer`,
			`Services[1]: the consul service cannot be exported`,
			`Services[1].Consumers[0]: must define one of Peer, Partition, or SamenessGroup`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.ErrLines(t, tt.in.Validate(), tt.errs)
		})
	}
}

func TestConsumerString(t *testing.T) {
	assert.Equal(t, "peer east", Consumer{Peer: "east"}.String())
	assert.Equal(t, "partition p", Consumer{Partition: "p"}.String())
	assert.Equal(t, "sameness group g", Consumer{SamenessGroup: "g"}.String())
	assert.Equal(t, "peer a and partition b", Consumer{Peer: "a", Partition: "b"}.String())
	assert.Equal(t, "nobody", Consumer{}.String())
}

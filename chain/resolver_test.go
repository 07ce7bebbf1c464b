package chain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/testkit"
)

// consulRead is what `consul config read -kind service-resolver -name web` prints.
const consulRead = `{
    "Kind": "service-resolver",
    "Name": "web",
    "Namespace": "default",
    "Partition": "default",
    "DefaultSubset": "v1",
    "Subsets": {
        "v1": {"Filter": "Service.Meta.version == v1", "OnlyPassing": true},
        "v2": {"Filter": "Service.Meta.version == v2"}
    },
    "Failover": {
        "*": {"Datacenters": ["dc2", "dc3"]},
        "v2": {"Targets": [{"Peer": "east"}, {"Service": "web-backup", "Datacenter": "dc2"}]}
    },
    "ConnectTimeout": "15s",
    "RequestTimeout": "1m30s",
    "LoadBalancer": {"Policy": "ring_hash", "RingHashConfig": {"MinimumRingSize": 1024}},
    "Meta": {"owner": "web-team"},
    "CreateIndex": 12,
    "ModifyIndex": 40
}`

func TestDecodeConsulOutput(t *testing.T) {
	var r ServiceResolver
	require.NoError(t, json.Unmarshal([]byte(consulRead), &r))
	assert.Equal(t, "web", r.Name)
	assert.Equal(t, 15*time.Second, r.ConnectTimeout)
	assert.Equal(t, 90*time.Second, r.RequestTimeout)
	assert.Equal(t, map[string]Subset{"v1": {Filter: "Service.Meta.version == v1", OnlyPassing: true}, "v2": {Filter: "Service.Meta.version == v2"}}, r.Subsets)
	assert.Equal(t, Failover{Targets: []FailoverTarget{{Peer: "east"}, {Service: "web-backup", Datacenter: "dc2"}}}, r.Failover["v2"])
	require.NoError(t, r.Validate())
	testkit.ReEncodes(t, r, consulRead)
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ServiceResolver
		errs []string
	}{
		{"snake_case", `{"kind":"service-resolver","name":"web","default_subset":"v1","subsets":{"v1":{"only_passing":true}},"redirect":{"service":"api","service_subset":"v2"},"connect_timeout":"5s","request_timeout":1000000000}`,
			ServiceResolver{Kind: resolverKind, Name: "web", DefaultSubset: "v1", Subsets: map[string]Subset{"v1": {OnlyPassing: true}},
				Redirect: &Redirect{Service: "api", ServiceSubset: "v2"}, ConnectTimeout: 5 * time.Second, RequestTimeout: time.Second}, nil},
		{"failover target snake_case", `{"Name":"web","Failover":{"*":{"targets":[{"service":"a","service_subset":"b","partition":"p","namespace":"n"}]}}}`,
			ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "a", ServiceSubset: "b", Partition: "p", Namespace: "n"}}}}}, nil},
		{"unknown fields", `{"Name":"web","Redirect":{"Servce":"a"},"Failover":{"*":{"Datacenter":["dc2"]}},"Timeout":"1s"}`, ServiceResolver{}, []string{
			`(top level): unknown field "Timeout"`,
			`Redirect: unknown field "Servce" (did you mean "Service"?)`,
			`Failover["*"]: unknown field "Datacenter" (did you mean "Datacenters"?)`,
		}},
		{"sameness groups and failover policies", `{"Name":"web","Failover":{"*":{"sameness_group":"g","Policy":{"Mode":"order-by-locality","Regions":["us-east-1"]}}},"prioritize_by_locality":{"Mode":"failover"}}`,
			ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {SamenessGroup: "g", Policy: &FailoverPolicy{Mode: "order-by-locality", Regions: []string{"us-east-1"}}}},
				PrioritizeByLocality: &PrioritizeByLocality{Mode: "failover"}}, nil},
		{"bad durations", `{"Name":"web","ConnectTimeout":"5 seconds","RequestTimeout":true}`, ServiceResolver{}, []string{
			`ConnectTimeout: "5 seconds" is not a duration such as "5s"`,
			`RequestTimeout: must be a duration such as "5s", got the boolean true`,
		}},
		{"wrong types", `{"Name":"web","Subsets":[],"Failover":{"*":{"Datacenters":"dc2"}}}`, ServiceResolver{}, []string{
			`Subsets: must be an object, got a list`,
			`Failover["*"].Datacenters: must be a list, got the string "dc2"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.DecodeCase(t, tt.in, tt.want, tt.errs)
		})
	}
}

func TestValidate(t *testing.T) {
	subsets := map[string]Subset{"v1": {}, "v2": {}}
	tests := []struct {
		name string
		in   ServiceResolver
		errs []string
	}{
		{"minimal", ServiceResolver{Name: "web"}, nil},
		{"name required", ServiceResolver{}, []string{"Name: Name is required"}},
		{"kind", ServiceResolver{Kind: "service-router", Name: "web"}, []string{`Kind: must be "service-resolver", got "service-router"`}},
		{"subsets, in Consul's words", ServiceResolver{Name: "web", Subsets: map[string]Subset{"": {}, "V1": {}, "v.2": {}, "ok": {}, strings.Repeat("a", 64): {}, strings.Repeat("a", 63): {}}}, []string{
			`Subsets[""]: Subset defined with empty name`,
			`Subsets["V1"]: Subset "V1" is invalid: must be 63 characters or fewer, begin or end with lower case alphanumeric characters, and contain lower case alphanumeric characters or '-' in between`,
			`Subsets["` + strings.Repeat("a", 64) + `"]: Subset "` + strings.Repeat("a", 64) + `" is invalid: must be non-empty and 63 characters or fewer`,
			`Subsets["v.2"]: Subset "v.2" is invalid: must be 63 characters or fewer, begin or end with lower case alphanumeric characters, and contain lower case alphanumeric characters or '-' in between`,
		}},
		{"default subset", ServiceResolver{Name: "web", Subsets: subsets, DefaultSubset: "v3"}, []string{`DefaultSubset: DefaultSubset "v3" is not a valid subset`}},
		{"redirect and failover", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "a"}, Failover: map[string]Failover{"*": {Service: "b"}}}, []string{
			"Redirect: Redirect and Failover cannot both be set",
		}},
		{"redirect empty", ServiceResolver{Name: "web", Redirect: &Redirect{}}, []string{"Redirect: Redirect is empty"}},
		{"redirect peer conflicts", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "a", Peer: "p", ServiceSubset: "s", Partition: "ap", Datacenter: "dc2"}}, []string{
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.ServiceSubset",
			"Redirect.Partition: Redirect.Partition cannot be set with Redirect.Peer",
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.Datacenter",
			"Redirect.Partition: Cross-datacenter and cross-partition redirect is not supported",
		}},
		{"redirect without service", ServiceResolver{Name: "web", Redirect: &Redirect{ServiceSubset: "s", Namespace: "n", Partition: "p", Peer: "x"}}, []string{
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.ServiceSubset",
			"Redirect.Partition: Redirect.Partition cannot be set with Redirect.Peer",
			"Redirect.ServiceSubset: Redirect.ServiceSubset defined without Redirect.Service",
			"Redirect.Namespace: Redirect.Namespace defined without Redirect.Service",
			"Redirect.Partition: Redirect.Partition defined without Redirect.Service",
			"Redirect.Peer: Redirect.Peer defined without Redirect.Service",
		}},
		{"redirect datacenter only", ServiceResolver{Name: "web", Redirect: &Redirect{Datacenter: "dc2"}}, nil},
		{"redirect to own undefined subset", ServiceResolver{Name: "web", Subsets: subsets, Redirect: &Redirect{Service: "web", ServiceSubset: "v3"}}, []string{
			`Redirect.ServiceSubset: Redirect.ServiceSubset "v3" is not a valid subset of "web"`,
		}},
		{"redirect to other service's subset", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "api", ServiceSubset: "v3"}}, nil},
		{"redirect to same name in other namespace: checked against the own subsets, as Consul does", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "web", Namespace: "other", ServiceSubset: "v3"}}, []string{
			`Redirect.ServiceSubset: Redirect.ServiceSubset "v3" is not a valid subset of "web"`,
		}},
		{"cross-dc redirect in partition", ServiceResolver{Name: "web", Partition: "ap1", Redirect: &Redirect{Datacenter: "dc2"}}, []string{
			"Redirect.Datacenter: Cross-datacenter redirect is only supported in the default partition",
			"Redirect.Partition: Cross-datacenter and cross-partition redirect is not supported",
		}},
		{"cross-dc redirect in partition to itself", ServiceResolver{Name: "web", Partition: "ap1", Redirect: &Redirect{Partition: "ap1", Service: "web", Datacenter: "dc2"}}, []string{
			"Redirect.Datacenter: Cross-datacenter redirect is only supported in the default partition",
		}},
		{"cross-dc and cross-partition redirect", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "web", Partition: "ap2", Datacenter: "dc2"}}, []string{
			"Redirect.Partition: Cross-datacenter and cross-partition redirect is not supported",
		}},
		{"failover key and empty", ServiceResolver{Name: "web", Subsets: subsets, Failover: map[string]Failover{"v3": {Service: "a"}, "v1": {}}}, []string{
			`Failover["v1"]: Bad Failover["v1"]: one of Service, ServiceSubset, Namespace, Targets, SamenessGroup, or Datacenters is required`,
			`Failover["v3"]: Bad Failover["v3"]: not a valid subset subset`,
		}},
		{"failover targets conflicts", ServiceResolver{Name: "web", Subsets: subsets, Failover: map[string]Failover{"*": {
			Service: "a", ServiceSubset: "b", Datacenters: []string{"dc2", ""}, Targets: []FailoverTarget{{Service: "x"}},
		}}}, []string{
			`Failover["*"]: Bad Failover["*"]: Targets cannot be set with Datacenters`,
			`Failover["*"]: Bad Failover["*"]: Targets cannot be set with ServiceSubset`,
			`Failover["*"]: Bad Failover["*"]: Targets cannot be set with Service`,
			`Failover["*"].Datacenters: Bad Failover["*"].Datacenters: found empty datacenter`,
		}},
		{"failover own subset, the service named as the section writes it", ServiceResolver{Name: "web", Subsets: subsets, Failover: map[string]Failover{
			"*": {ServiceSubset: "v9"}, "v1": {Service: "web", Namespace: "ops", ServiceSubset: "v8"}, "v2": {Service: "api", ServiceSubset: "v7"}}}, []string{
			`Failover["*"]: Bad Failover["*"]: ServiceSubset "v9" is not a valid subset of ""`,
			`Failover["v1"]: Bad Failover["v1"]: ServiceSubset "v8" is not a valid subset of "web"`,
		}},
		{"failover target rules", ServiceResolver{Name: "web", Subsets: subsets, Failover: map[string]Failover{"*": {Targets: []FailoverTarget{
			{Peer: "p", ServiceSubset: "v1"},
			{Peer: "p", Partition: "ap"},
			{Peer: "p", Datacenter: "dc2"},
			{Partition: "ap", Datacenter: "dc2"},
			{ServiceSubset: "v7"},
			{Service: "web", Namespace: "default", ServiceSubset: "v1"},
		}}}}, []string{
			`Failover["*"].Targets[0]: Bad Failover["*"].Targets[0]: Peer cannot be set with ServiceSubset`,
			`Failover["*"].Targets[1]: Bad Failover["*"].Targets[1]: Partition cannot be set with Peer`,
			`Failover["*"].Targets[2]: Bad Failover["*"].Targets[2]: Peer cannot be set with Datacenter`,
			`Failover["*"].Targets[3]: Bad Failover["*"].Targets[3]: Partition cannot be set with Datacenter`,
			`Failover["*"].Targets[4]: Bad Failover["*"].Targets[4]: ServiceSubset "v7" is not a valid subset of "web"`,
		}},
		{"cross-dc failover in partition", ServiceResolver{Name: "web", Partition: "ap1", Failover: map[string]Failover{"*": {Datacenters: []string{"dc2"}}}}, []string{
			`Failover["*"].Datacenters: Cross-datacenter failover is only supported in the default partition`,
		}},
		{"a failover target in another datacenter, from a partition: Consul accepts it", ServiceResolver{Name: "web", Partition: "ap1", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Datacenter: "dc2"}}}}}, nil},
		{"meta, judged as every kind's", ServiceResolver{Name: "web", Meta: map[string]string{strings.Repeat("k", 129): "v"}}, []string{
			`Meta["` + strings.Repeat("k", 129) + `"]: Meta key "` + strings.Repeat("k", 129) + `" exceeds maximum length 128`,
		}},
		{"timeouts", ServiceResolver{Name: "web", ConnectTimeout: -time.Second, RequestTimeout: -2 * time.Millisecond}, []string{
			"ConnectTimeout: Bad ConnectTimeout '-1s', must be >= 0",
			"RequestTimeout: Bad RequestTimeout '-2ms', must be >= 0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.ErrLines(t, tt.in.Validate(), tt.errs)
		})
	}
}

func TestMarshalDurations(t *testing.T) {
	b, err := json.Marshal(ServiceResolver{Name: "a", ConnectTimeout: 5 * time.Second})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Name":"a","ConnectTimeout":"5s"}`, string(b))
	b, err = json.Marshal(&ServiceResolver{Name: "a"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Name":"a"}`, string(b))
}

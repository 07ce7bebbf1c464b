package chain

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/strict"
)

// loadResolvers, loadRouters and loadSplitters read entries of one kind as `consul config
// read` prints them — one value, a stream of values or a JSON array — each decoded strictly
// and validated, every problem named by where it is: how the tests read their vectors and
// fuzz the decoders (package peermeta's LoadConfig reads every kind this way).
func loadResolvers(data []byte) ([]ServiceResolver, error) {
	return strict.DecodeEntries(data, true, decodeResolver, func(r ServiceResolver) error { return r.Validate() })
}

func loadRouters(data []byte) ([]ServiceRouter, error) {
	return strict.DecodeEntries(data, true, decodeRouter, func(r ServiceRouter) error { return r.Validate() })
}

func loadSplitters(data []byte) ([]ServiceSplitter, error) {
	return strict.DecodeEntries(data, true, decodeSplitter, func(s ServiceSplitter) error { return s.Validate() })
}

func TestLoadResolvers(t *testing.T) {
	in := `{"Kind": "service-resolver", "Name": "web", "ConnectTimeout": "15s", "CreateIndex": 18446744073709551615}
{"Kind": "service-resolver", "Name": "db", "RequestTimeout": 9223372036854775807}
[{"Kind": "service-resolver", "Name": "api", "Redirect": {"Service": "web"}}]`
	got, err := loadResolvers([]byte(in))
	require.NoError(t, err)
	require.Len(t, got, 3)
	bom, err := loadResolvers([]byte("\ufeff" + in))
	require.NoError(t, err, "after a byte-order mark")
	assert.Equal(t, got, bom)
	assert.Equal(t, 15*time.Second, got[0].ConnectTimeout)
	assert.Equal(t, uint64(math.MaxUint64), got[0].CreateIndex)
	assert.Equal(t, time.Duration(math.MaxInt64), got[1].RequestTimeout, "nanoseconds are read exactly")
	assert.Equal(t, &Redirect{Service: "web"}, got[2].Redirect)
	b, err := json.Marshal(got[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"CreateIndex":18446744073709551615`)
}

func TestLoadResolversRefuses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  string
	}{
		{"key given twice", `{"Name": "web", "Subsets": {"v1": {"Filter": "a", "Filter": "b"}}}`, `Subsets.v1.Filter: given twice`},
		{"key given twice in a map", `{"Name": "web", "Subsets": {"v1": {}, "v1": {}}}`, `Subsets.v1: given twice`},
		{"nanoseconds beyond int64", `{"Name": "web", "ConnectTimeout": 9223372036854775808}`,
			"ConnectTimeout: 9223372036854775808 is not a whole number of nanoseconds up to 9223372036854775807"},
		{"validation, named by value", `{"Name": "web"}` + "\n" + `{"Name": "db", "Redirect": {}}`, "value 2: Redirect: Redirect is empty"},
		{"validation, named by element", `[{"Name": ""}]`, "[0]: Name: Name is required"},
		{"data after the array", `[{"Name": "web"}] x`, "value 2: not JSON: line 1, column 19: invalid character 'x' looking for beginning of value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadResolvers([]byte(tt.in))
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

func FuzzLoadResolvers(f *testing.F) {
	f.Add([]byte(`{"Kind": "service-resolver", "Name": "web", "ConnectTimeout": "15s", "Subsets": {"v1": {"Filter": "x"}}, "Failover": {"*": {"Datacenters": ["dc2"]}}}`))
	f.Add([]byte(`[{"Name": "a", "Redirect": {"Service": "b"}}] {"Name": "c"}`))
	// Every decoder: aliases, durations both ways, integers at their limits, load balancers,
	// sameness groups, policies; and the errors: wrong types, a key given twice, unknown fields.
	f.Add([]byte(`{"kind":"service-resolver","name":"w","default_subset":"v1","subsets":{"v1":{"filter":"x","only_passing":true}},
	  "connect_timeout":5000000000,"request_timeout":"1m","redirect":null,"failover":{"*":{"service_subset":"v1","sameness_group":"g","policy":{"mode":"order-by-locality","regions":["r"]}}},
	  "load_balancer":{"policy":"ring_hash","ring_hash_config":{"minimum_ring_size":1,"maximum_ring_size":18446744073709551615},
	    "hash_policies":[{"field":"cookie","field_value":"c","cookie_config":{"session":false,"ttl":552000000000,"path":"/"},"source_ip":false,"terminal":true}]},
	  "prioritize_by_locality":{"mode":"failover"},"Meta":{"k":"v"},"CreateIndex":1,"ModifyIndex":2}`))
	f.Add([]byte(`{"Name":"w","Redirect":{"Service":"a","Peer":"east","SamenessGroup":"g","Partition":"p","Datacenter":"dc2"},"Failover":{"*":{"Targets":[{"Peer":"east","ServiceSubset":"x","Datacenter":"d"}]}}}`))
	f.Add([]byte(`{"Name":"w","ConnectTimeout":-1,"RequestTimeout":"-1s","LoadBalancer":{"LeastRequestConfig":{"ChoiceCount":4294967296},"HashPolicies":[{"CookieConfig":{"TTL":true}}]}}`))
	f.Add([]byte(`{"Name":"w","Name":"x","Subsets":{"A":{},"":{}},"Failover":{"v9":{}},"Polcy":1}`))
	f.Add([]byte(`[{"Name":"w"},1,"x",null,[]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := loadResolvers(data)
		if err != nil {
			return
		}
		for _, r := range rs {
			if err := r.Validate(); err != nil {
				t.Fatalf("accepted an invalid resolver: %v", err)
			}
		}
	})
}

package istiotest

import (
	"encoding/json"
	"os"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// AddressVector is one ServiceEntry of the addresses vectors
// (visibility/inventory/testdata/istio-addresses.json; its README says how they were
// recorded) and the addresses Istio's conversion gave each of its hosts.
type AddressVector struct {
	ServiceEntry map[string]any  `json:"serviceEntry"`
	Hosts        []HostAddresses `json:"hosts"`
	// Data is the ServiceEntry as kubectl prints it: in JSON for the even vectors of the
	// file, in YAML for the odd ones.
	Data []byte `json:"-"`
}

// HostAddresses is a host of a ServiceEntry and the addresses Istio gave it, in its order.
type HostAddresses struct {
	Host      string   `json:"host"`
	Addresses []string `json:"addresses"`
}

// AddressVectors reads the addresses vectors at path, failing the test if it cannot.
func AddressVectors(t testing.TB, path string) []AddressVector {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vectors []AddressVector
	if err := json.Unmarshal(b, &vectors); err != nil {
		t.Fatal(err)
	}
	for i := range vectors {
		v := &vectors[i]
		if i%2 == 0 {
			v.Data, err = json.Marshal(v.ServiceEntry)
		} else {
			v.Data, err = yaml.Marshal(v.ServiceEntry)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return vectors
}

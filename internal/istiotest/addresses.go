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

// CompareAddressVectors holds meshscope to every host of the addresses vectors at path: load
// reads each vector's Data (as kubectl prints the entry) into what is checked and says how
// many services it holds, which must be one; compare is given each vector in turn (with its
// index) and what load read, and returns the check of one of its hosts, which reports (with
// t.Errorf) and returns false where meshscope disagrees with Istio. It logs how many hosts
// agree and fails the test when none was compared.
func CompareAddressVectors[L any](t testing.TB, path string, load func([]byte) (L, int, error), compare func(i int, v AddressVector, loaded L) func(HostAddresses) bool) {
	t.Helper()
	vectors := AddressVectors(t, path)
	agree, hosts := 0, 0
	for i, v := range vectors {
		loaded, services, err := load(v.Data)
		if err != nil {
			t.Fatalf("entry %d: Load refused %s: %v", i, v.Data, err)
		}
		if services != 1 {
			t.Fatalf("entry %d: %d services", i, services)
		}
		check := compare(i, v, loaded)
		for _, h := range v.Hosts {
			hosts++
			if check(h) {
				agree++
			}
		}
	}
	t.Logf("%d of %d hosts of %d ServiceEntries agree with Istio", agree, hosts, len(vectors))
	if agree == 0 {
		t.Fatal("no host was compared")
	}
}

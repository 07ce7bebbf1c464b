package inventory

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// addressVector is one ServiceEntry of testdata/istio-addresses.json and the addresses
// Istio's conversion gave each of its hosts (see testdata/README.md).
type addressVector struct {
	ServiceEntry map[string]any  `json:"serviceEntry"`
	Hosts        []hostAddresses `json:"hosts"`
}

type hostAddresses struct {
	Host      string   `json:"host"`
	Addresses []string `json:"addresses"`
}

// TestAddressesAgainstIstio holds Load and Service.AddressesFor to the addresses
// Istio gives each ServiceEntry host (testdata/istio-addresses.json), in Istio's order. Each
// entry is read as kubectl prints it, in JSON or YAML. (Package ambient holds its DNS
// answers to the same vectors.)
func TestAddressesAgainstIstio(t *testing.T) {
	b, err := os.ReadFile("testdata/istio-addresses.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []addressVector
	if err := json.Unmarshal(b, &vectors); err != nil {
		t.Fatal(err)
	}
	agree, hosts := 0, 0
	for i, v := range vectors {
		var data []byte
		if i%2 == 0 {
			data, err = json.Marshal(v.ServiceEntry)
		} else {
			data, err = yaml.Marshal(v.ServiceEntry)
		}
		if err != nil {
			t.Fatal(err)
		}
		inv, err := Load(data, "")
		if err != nil {
			t.Fatalf("entry %d: Load refused %s: %v", i, data, err)
		}
		if len(inv.Services) != 1 {
			t.Fatalf("entry %d: %d services", i, len(inv.Services))
		}
		s := inv.Services[0]
		for _, h := range v.Hosts {
			hosts++
			var got []string
			for _, p := range s.AddressesFor(h.Host) {
				if p.IsSingleIP() {
					got = append(got, p.Addr().String())
				} else {
					got = append(got, p.String())
				}
			}
			if !slices.Equal(got, h.Addresses) && !(len(got) == 0 && len(h.Addresses) == 0) {
				t.Errorf("entry %d host %s: Istio gives %v; meshscope %v\n%s", i, h.Host, h.Addresses, got, data)
				continue
			}
			agree++
		}
	}
	t.Logf("%d of %d hosts of %d ServiceEntries agree with Istio", agree, hosts, len(vectors))
	if agree == 0 {
		t.Fatal("no host was compared")
	}
}

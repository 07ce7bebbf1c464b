package inventory

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
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
// Istio gives each ServiceEntry host (testdata/istio-addresses.json), in Istio's order, and
// the index to whether DNS answers for the host: a query for it (for a wildcard host, a name
// it covers) is answered exactly when the host has an address. Each entry is read as kubectl
// prints it, in JSON or YAML.
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
		ix, err := NewIndex(nil, inv)
		if err != nil {
			t.Fatalf("entry %d: NewIndex: %v", i, err)
		}
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
			query := h.Host
			if h.Host[0] == '*' {
				query = "meshscope-probe" + h.Host[1:] // a name the wildcard covers
			}
			// DNS answers when the host has an address, or when a wildcard host of the entry
			// that covers the query has one (the lookup falls through to it).
			wantAnswer := slices.ContainsFunc(v.Hosts, func(w hostAddresses) bool {
				return len(w.Addresses) > 0 && (w.Host == h.Host || w.Host[0] == '*' && strings.HasSuffix(query, w.Host[1:]))
			})
			_, answered := ix.LookupHost(s.Namespace, query)
			if !slices.Equal(got, h.Addresses) && !(len(got) == 0 && len(h.Addresses) == 0) || answered != wantAnswer {
				t.Errorf("entry %d host %s: Istio gives %v; meshscope %v, DNS answers %t\n%s", i, h.Host, h.Addresses, got, answered, data)
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

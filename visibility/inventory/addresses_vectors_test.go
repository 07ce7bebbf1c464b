package inventory

import (
	"slices"
	"testing"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// TestAddressesAgainstIstio holds Load and Service.AddressesFor to the addresses
// Istio gives each ServiceEntry host (testdata/istio-addresses.json), in Istio's order. Each
// entry is read as kubectl prints it, in JSON or YAML. (Package ambient holds its DNS
// answers to the same vectors.)
func TestAddressesAgainstIstio(t *testing.T) {
	vectors := istiotest.AddressVectors(t, "testdata/istio-addresses.json")
	agree, hosts := 0, 0
	for i, v := range vectors {
		data := v.Data
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

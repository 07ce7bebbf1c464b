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
	load := func(data []byte) (*Inventory, int, error) {
		inv, err := Load(data, "")
		if err != nil {
			return nil, 0, err
		}
		return inv, len(inv.Services), nil
	}
	istiotest.CompareAddressVectors(t, "testdata/istio-addresses.json", load, func(i int, v istiotest.AddressVector, inv *Inventory) func(istiotest.HostAddresses) bool {
		s := inv.Services[0]
		return func(h istiotest.HostAddresses) bool {
			var got []string
			for _, p := range s.AddressesFor(h.Host) {
				if p.IsSingleIP() {
					got = append(got, p.Addr().String())
				} else {
					got = append(got, p.String())
				}
			}
			if !slices.Equal(got, h.Addresses) && !(len(got) == 0 && len(h.Addresses) == 0) {
				t.Errorf("entry %d host %s: Istio gives %v; meshscope %v\n%s", i, h.Host, h.Addresses, got, v.Data)
				return false
			}
			return true
		}
	})
}

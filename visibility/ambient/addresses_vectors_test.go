package ambient

import (
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestDNSAgainstIstioAddresses holds the index to the addresses Istio gives each
// ServiceEntry host: a query for the host (for a wildcard host, a name it covers) is
// answered exactly when the host has an address, or a wildcard host of the entry that
// covers the query has one. Each entry is read as kubectl prints it, in JSON or YAML; that
// the addresses are Istio's is the inventory's test.
func TestDNSAgainstIstioAddresses(t *testing.T) {
	load := func(data []byte) (*inventory.Inventory, int, error) {
		inv, err := inventory.Load(data, "")
		if err != nil {
			return nil, 0, err
		}
		return inv, len(inv.Services), nil
	}
	istiotest.CompareAddressVectors(t, "../inventory/testdata/istio-addresses.json", load, func(i int, v istiotest.AddressVector, inv *inventory.Inventory) func(istiotest.HostAddresses) bool {
		s := inv.Services[0]
		ix, err := New(nil, inv)
		if err != nil {
			t.Fatalf("entry %d: New: %v", i, err)
		}
		return func(h istiotest.HostAddresses) bool {
			query := h.Host
			if h.Host[0] == '*' {
				query = "meshscope-probe" + h.Host[1:] // a name the wildcard covers
			}
			// DNS answers when the host has an address, or when a wildcard host of the entry
			// that covers the query has one (the lookup falls through to it).
			wantAnswer := slices.ContainsFunc(v.Hosts, func(w istiotest.HostAddresses) bool {
				return len(w.Addresses) > 0 && (w.Host == h.Host || w.Host[0] == '*' && strings.HasSuffix(query, w.Host[1:]))
			})
			if _, answered := ix.LookupHost(s.Namespace, query); answered != wantAnswer {
				t.Errorf("entry %d host %s: Istio gives %v; DNS answers %t\n%s", i, h.Host, h.Addresses, answered, v.Data)
				return false
			}
			return true
		}
	})
}

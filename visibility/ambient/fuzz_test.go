package ambient

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// FuzzNew builds the index of whatever inventory.Load reads from the input, for the newest
// release and for 1.29 and 1.28 (whose ztunnel ranks otherwise), and holds its lookups to
// their explanations: for every host of every service (and names a wildcard covers, and
// short names) and every address, LookupHost, AnswerHost and ExplainHost, LookupAddress,
// AnswerAddress and ExplainAddress give one answer, or one set of undetermined candidates;
// Conflicts and Lint do not fail.
func FuzzNew(f *testing.F) {
	// The inventory's fuzz seeds: every kind and field the loader reads, in every shape.
	seeds, err := filepath.Glob(filepath.Join("..", "inventory", "testdata", "seeds", "*"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seeds: %v", err)
	}
	for _, name := range seeds {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := inventory.Load(data, "")
		if err != nil {
			return
		}
		// The loader makes every check New makes (inv.Validate), but for two services of one
		// kind with one namespace and name.
		for _, istio := range []string{"", "1.29", "1.28"} {
			ix, err := New(&mesh.Config{Istio: istio}, inv)
			if err != nil {
				for _, e := range fielderr.Split(err) {
					if !errors.Is(e, inventory.ErrDuplicate) {
						t.Fatalf("Load accepted what New refuses: %v", e)
					}
				}
				return
			}
			checkLookups(t, ix, inv)
		}
	})
}

// checkLookups holds ix's lookups of inv's hosts and addresses to their explanations.
func checkLookups(t *testing.T, ix *Index, inv *inventory.Inventory) {
	{
		for _, s := range inv.Services {
			for _, h := range s.Hosts {
				first, _, _ := strings.Cut(h, ".")
				queries := []string{h, first, h + "." + s.Namespace + ".svc.cluster.local"}
				if strings.HasPrefix(h, "*") {
					queries = append(queries, "a"+h[1:], "a.b"+h[1:]) // names the wildcard covers
				}
				for _, q := range queries {
					for _, client := range []string{s.Namespace, ""} {
						got, ok := ix.LookupHost(client, q)
						e, o := ix.ExplainHost(client, q), ix.AnswerHost(client, q)
						if ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer || ok != o.Found || !slices.Equal(o.Undetermined, e.Undetermined) {
							t.Fatalf("%s, %s from %q: LookupHost gives %v %v, AnswerHost %v, ExplainHost %v", ix.Release(), q, client, got.Ref(), ok, o, e)
						}
					}
				}
				for _, p := range s.AddressesFor(h) {
					got, ok := ix.LookupAddress(s.Namespace, p.Addr())
					e, o := ix.ExplainAddress(s.Namespace, p.Addr()), ix.AnswerAddress(s.Namespace, p.Addr())
					if ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer || ok != o.Found || !slices.Equal(o.Undetermined, e.Undetermined) {
						t.Fatalf("%s, %s from %q: LookupAddress gives %v %v, AnswerAddress %v, ExplainAddress %v", ix.Release(), p.Addr(), s.Namespace, got.Ref(), ok, o, e)
					}
				}
			}
		}
		ix.Conflicts()
		ix.Lint()
	}
}

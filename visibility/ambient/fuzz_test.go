package ambient

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// FuzzNew builds the index of whatever inventory.Load reads from the input and holds its
// lookups to their explanations: for every host of every service (and names a wildcard
// covers, and short names) and every address, LookupHost and ExplainHost, LookupAddress and
// ExplainAddress give one answer; Conflicts and Lint do not fail.
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
		ix, err := New(nil, inv)
		if err != nil {
			for _, e := range fielderr.Split(err) {
				if !errors.Is(e, inventory.ErrDuplicate) {
					t.Fatalf("Load accepted what New refuses: %v", e)
				}
			}
			return
		}
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
						if e := ix.ExplainHost(client, q); ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer {
							t.Fatalf("%s from %q: LookupHost gives %v %v, ExplainHost %v", q, client, got.Ref(), ok, e.Answer)
						}
					}
				}
				for _, p := range s.AddressesFor(h) {
					got, ok := ix.LookupAddress(s.Namespace, p.Addr())
					if e := ix.ExplainAddress(s.Namespace, p.Addr()); ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer {
						t.Fatalf("%s from %q: LookupAddress gives %v %v, ExplainAddress %v", p.Addr(), s.Namespace, got.Ref(), ok, e.Answer)
					}
				}
			}
		}
		ix.Conflicts()
		ix.Lint()
	})
}

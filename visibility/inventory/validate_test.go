package inventory

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// refValidateServices is the literal reference of what Validate says of an inventory's
// services: each service in order with its own problems, and then, if a service of its kind,
// namespace and name came before it, that it is a second one (restated here on purpose, as a
// map from each name to its first service).
func refValidateServices(services []Service) []string {
	type key struct {
		kind            Kind
		namespace, name string
	}
	first := map[key]int{}
	var out []string
	for i := range services {
		s := &services[i]
		var lines []string
		for _, p := range checkService(nil, s) {
			lines = append(lines, p.Error())
		}
		k := key{s.Kind, s.Namespace, s.Name}
		if j, dup := first[k]; dup {
			lines = append(lines, fmt.Sprintf("a second %s %s/%s (the first is Services[%d])", kindWords(s.Kind), s.Namespace, s.Name, j))
		} else {
			first[k] = i
		}
		for _, l := range lines {
			out = append(out, fmt.Sprintf("Services[%d] (%s %s/%s): %s", i, s.Kind, s.Namespace, s.Name, l))
		}
	}
	return out
}

// TestValidateAgainstReference: on random lists of services, short (scanned for repeats)
// and long (bucketed), with problems of their own, repeated names, or both, Validate reports
// what the reference does, in its order, and a repeat as ErrDuplicate.
func TestValidateAgainstReference(t *testing.T) {
	r := newRand(81, 82)
	for range longtest.N(300, 3000) {
		n := r.IntN(3 * scanRepeatsUpTo)
		if r.IntN(5) == 0 {
			n = r.IntN(300)
		}
		names := 1 + r.IntN(n+1)
		inv := &Inventory{Services: make([]Service, n)}
		for i := range inv.Services {
			s := Service{Kind: Kind(r.IntN(2)), Namespace: []string{"shop", "web"}[r.IntN(2)], Name: fmt.Sprintf("s%d", r.IntN(names)),
				Hosts: []string{"db.example.com"}}
			switch r.IntN(8) {
			case 0:
				s.Hosts = []string{"a..b"}
			case 1:
				s.Namespace = ""
			case 2:
				s.Ports, s.Kind = []uint32{80, 80, 0}, ServiceEntry
			}
			inv.Services[i] = s
		}
		want := refValidateServices(inv.Services)
		err := inv.Validate()
		got := istiotest.ErrorTexts(err)
		require.Equal(t, want, got)
		var dup bool
		for _, l := range want {
			dup = dup || strings.Contains(l, ": a second ")
		}
		require.Equal(t, dup, errors.Is(err, ErrDuplicate))
	}
}

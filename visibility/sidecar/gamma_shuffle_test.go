package sidecar

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaAnswers spells every answer of a conversion, with routes named rather than indexed.
func gammaAnswers(t testing.TB, inv *inventory.Inventory, g *gammaRoutes) []string {
	var out []string
	for i := range g.vss {
		v := &g.vss[i]
		out = append(out, fmt.Sprintf("%s/%s %s %v %v %s %s", v.vs.Namespace, v.vs.Name, v.vs.CreationTime, v.vs.Hosts, v.vs.Gateways,
			gammaParentsAnnotation(inv, v), gammaSpecJSON(t, v)))
		for _, e := range v.http {
			r := &inv.Routes[e.src.route]
			out = append(out, fmt.Sprintf("  %s/%s/%s rule %d match %d", r.Kind, r.Namespace, r.Name, e.src.rule, e.src.match))
		}
	}
	return append(out, fmt.Sprint(g.status))
}

// TestGammaShuffledInput: the order of the inventory's routes, services, ReferenceGrants and
// Gateways changes no answer, in the cases of the vectors (every fourth; all of them under
// MESHSCOPE_LONG).
func TestGammaShuffledInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(52002, 11))
	for _, c := range sampled(loadGammaVectors(t), 4) {
		_, inv, v := c.load(t)
		want := gammaAnswers(t, inv, convertRoutes(inv, v.Discovered))
		for range 3 {
			s := *inv
			s.Routes = istiotest.Shuffled(rng, inv.Routes)
			s.Services = istiotest.Shuffled(rng, inv.Services)
			s.ReferenceGrants = istiotest.Shuffled(rng, inv.ReferenceGrants)
			s.Gateways = istiotest.Shuffled(rng, inv.Gateways)
			require.Equal(t, want, gammaAnswers(t, &s, convertRoutes(&s, v.Discovered)), "case %d", c.ID)
		}
	}
}

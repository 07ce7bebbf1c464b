package main

import (
	"testing"

	"github.com/meshscope/meshscope/internal/clitest"
)

var namesProgram = clitest.New(".")

func TestMain(m *testing.M) { clitest.Main(m, namesProgram) }

// TestProgram runs the built program as a user does and checks the exit status and the
// lines that matter.
func TestProgram(t *testing.T) {
	for _, c := range []clitest.Case{
		{Name: "the tour", Args: []string{"-trust-domain", "1234.consul"}, Stdout: []string{"peered service             web.default.retail.east.external.1234.consul"}},
		{Name: "one name explained", Args: []string{"-parse", "spiffe://1234.consul/gateway/mesh/dc/dc1"}, Stdout: []string{"SPIFFE ID: a mesh gateway"}},
		{Name: "-parse with an unset variable is not the tour", Args: []string{"-parse", ""}, Code: 2, LastStderr: "-parse needs an SNI name or a SPIFFE ID"},
		{Name: "a name that does not parse", Args: []string{"-parse", "spiffe://1234.consul/ns/a%2Fb/sa/x"}, Code: 1, LastStderr: "malformed SPIFFE ID"},
		{Name: "a component that is not a label", Args: []string{"-peer", "East"}, Code: 1},
		{Name: "a positional argument", Args: []string{"web"}, Code: 2, LastStderr: `unexpected argument "web"`},
		{Name: "-h lists the exit statuses", Args: []string{"-h"}, Stdout: []string{"Exit status:\n  0  the report was printed\n"}},
		{Name: "-h says a name part the tour cannot hold is status 1", Args: []string{"-h"}, Stdout: []string{"or a flag's value was refused: -parse given a name that does not parse; a name part\n"}},
	} {
		t.Run(c.Name, func(t *testing.T) { namesProgram.Check(t, c) })
	}
}

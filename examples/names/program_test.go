package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/clitest"
)

var namesProgram = clitest.New(".")

func TestMain(m *testing.M) { clitest.Main(m, namesProgram) }

// TestProgram runs the built program as a user does and checks the exit status and the
// lines that matter.
func TestProgram(t *testing.T) {
	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		stdout     string
		lastStderr string
	}{
		{"the tour", []string{"-trust-domain", "1234.consul"}, 0, "peered service             web.default.retail.east.external.1234.consul", ""},
		{"one name explained", []string{"-parse", "spiffe://1234.consul/gateway/mesh/dc/dc1"}, 0, "SPIFFE ID: a mesh gateway", ""},
		{"-parse with an unset variable is not the tour", []string{"-parse", ""}, 2, "", "-parse needs an SNI name or a SPIFFE ID"},
		{"a name that does not parse", []string{"-parse", "spiffe://1234.consul/ns/a%2Fb/sa/x"}, 1, "", "malformed SPIFFE ID"},
		{"a component that is not a label", []string{"-peer", "East"}, 1, "", ""},
		{"a positional argument", []string{"web"}, 2, "", `unexpected argument "web"`},
		{"-h lists the exit statuses", []string{"-h"}, 0, "Exit status:\n  0  the report was printed\n", ""},
		{"-h says a name part the tour cannot hold is status 1", []string{"-h"}, 0, "or a flag's value was refused: -parse given a name that does not parse; a name part\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := namesProgram.Run(t, tt.args...)
			assert.Equal(t, tt.code, r.Code, r.Stderr)
			assert.Contains(t, r.Stdout, tt.stdout)
			if tt.lastStderr != "" {
				assert.Contains(t, r.LastStderr(), tt.lastStderr)
			}
		})
	}
}

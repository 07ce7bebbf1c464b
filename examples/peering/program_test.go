package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	buildOnce sync.Once
	buildDir  string // removed by TestMain
	binary    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// program builds the peering program once, outside the source tree.
func program(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "peering-test")
		if buildErr != nil {
			return
		}
		binary = filepath.Join(buildDir, "peering")
		out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	require.NoError(t, buildErr)
	return binary
}

// TestProgram runs the built program as a user does, on the files in testdata, and checks
// the exit status and the lines that matter.
func TestProgram(t *testing.T) {
	bin := program(t)
	own := []string{"-config", "testdata/config.json", "-catalog", "testdata/catalog.json", "-health", "testdata/health.json",
		"-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1"}
	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		lastStderr string
	}{
		{"the sample", nil, 0, []string{"PEER east", "PEER west"}, ""},
		{"your own files, a byte-order mark and a mesh entry among them", own, 0, []string{
			"default/default/ledger  tcp       ledger-v2.default.default.dc1",
			"NOTE EntrySkipped testdata/config.json: value 5 (mesh mesh)",
			"WARNING PeerTargetResolvedLocally chain default/default/payments, target ledger.default.default.external.east",
			"WARNING UnknownKind default/default/reports (peer east)",
		}, ""},
		{"a gate that fails says why", append(own, "-fail-on", "warning"), 3, nil,
			"peering: -fail-on warning: 4 findings at WARNING or above: WARNING UnknownKind default/default/ledger-v2 (peer east)"},
		{"an unset variable", []string{"-config", "", "-catalog", "testdata/catalog.json"}, 2, nil, ""},
		{"a missing catalog under a * rule", []string{"-config", "testdata/config.json", "-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1"}, 2, nil,
			"peering: -catalog is required"},
		{"a misspelt field", append(own, "-config", "testdata/misspelt.json"), 1, nil,
			`peering: testdata/misspelt.json: value 1 (service-defaults payments): (top level): unknown field "Protcol" (did you mean "Protocol"?)`},
		{"the wrong datacenter", append(own[:len(own)-2:len(own)-2], "-datacenter", "dc2"), 1, nil,
			`peering: -datacenter "dc2": every mesh gateway instance of -health is in another datacenter (gw-1 in dc1)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.code, code, stderr.String())
			for _, want := range tt.stdout {
				assert.Contains(t, words(stdout.String()), words(want))
			}
			if tt.lastStderr != "" {
				lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
				assert.True(t, strings.HasPrefix(lines[len(lines)-1], tt.lastStderr), "last line of stderr: %q", lines[len(lines)-1])
			}
			for _, line := range strings.Split(stdout.String(), "\n") {
				assert.NotContains(t, line, "default/default/mesh-gateway ", "never replicated")
				assert.NotContains(t, line, "default/default/payments-sidecar-proxy", "never replicated")
			}
		})
	}
}

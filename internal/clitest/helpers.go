package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Main runs the tests of m, then removes the programs built for them, and exits with the
// tests' status: a package's TestMain is
//
//	func TestMain(m *testing.M) { clitest.Main(m, program) }
func Main(m *testing.M, programs ...*Program) {
	code := m.Run()
	for _, p := range programs {
		p.Clean()
	}
	os.Exit(code)
}

// Call runs a program's run function — main's body: the arguments, stdout and stderr in, the
// exit status out — in the test's process, and returns what it gave: the exit status, stdout
// and stderr.
func Call(run RunFunc, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// Write writes content to a file called name in a directory the test removes when it ends,
// and returns the file's path.
func Write(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Words returns s with every run of white space, line breaks included, as one space: the
// programs wrap long lines at 120 columns.
func Words(s string) string { return strings.Join(strings.Fields(s), " ") }

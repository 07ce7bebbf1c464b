// Package clitest runs the example programs in their tests as a user does: built once with
// `go build` outside the source tree, then run with real files, so that a test sees the exit
// status, stdout and stderr a shell or a CI job sees. Program.Check holds a run to a Case (the
// status, lines of stdout, the last line of stderr).
//
// A program's run function (main's body) is called in the test's process by Call, and checked
// by OK (status 0, stdout returned), JSON (-o json decoded), ContainsWords (lines wrapped at any
// column) and Refused (a table of refusals: status, message, nothing on stdout):
//
//	rep := clitest.JSON[report](t, run, "-mesh", mesh, "-inventory", inv)
//	clitest.Refused(t, run, own, []clitest.Refusal{
//		{Name: "an empty -apply", Args: []string{"-apply", ""}, Code: 2, Msg: "-apply given an empty value"},
//	})
package clitest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Program is an example program built for its tests.
type Program struct {
	once sync.Once
	dir  string // the package to build, "." for the test's own
	bin  string
	err  error
}

// New returns the program of the package in dir ("." for the one being tested), to be built
// on first use. Call Clean from TestMain when the tests are done.
func New(dir string) *Program { return &Program{dir: dir} }

// Result is what one run gave.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// LastStderr is the last line the run wrote to stderr ("" for none).
func (r Result) LastStderr() string {
	lines := strings.Split(strings.TrimRight(r.Stderr, "\n"), "\n")
	return lines[len(lines)-1]
}

// Run builds the program if it is not built yet and runs it with args in the test's working
// directory (the package's, so that testdata/… names its files).
func (p *Program) Run(t testing.TB, args ...string) Result {
	t.Helper()
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", "meshscope-program")
		if err != nil {
			p.err = err
			return
		}
		p.bin = filepath.Join(dir, "program")
		args := []string{"build", "-o", p.bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command("go", append(args, p.dir)...).CombinedOutput(); err != nil {
			p.err = errors.New(string(out))
		}
	})
	if p.err != nil {
		t.Fatalf("building %s: %v", p.dir, p.err)
	}
	cmd := exec.Command(p.bin, args...)
	if raceEnabled {
		// A program built with -race sleeps a second at exit by default, to let reports
		// drain; a test runs it a hundred times.
		cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", p.bin, err)
	}
	return Result{Code: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// Clean removes the built program.
func (p *Program) Clean() {
	if p.bin != "" {
		os.RemoveAll(filepath.Dir(p.bin))
	}
}

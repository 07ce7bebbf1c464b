package clitest

import (
	"encoding/json"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunFunc is a program's run function, main's body: the arguments, stdout and stderr in, the
// exit status out.
type RunFunc = func(args []string, stdout, stderr io.Writer) int

// OK calls run with args as Call does, fails the test unless it exits 0 (showing what it wrote
// to stderr), and returns what it wrote to stdout.
func OK(t testing.TB, run RunFunc, args ...string) string {
	t.Helper()
	code, out, errOut := Call(run, args...)
	require.Equal(t, 0, code, errOut)
	return out
}

// JSON calls run with args and "-o json" as OK does, and returns stdout decoded into a T.
func JSON[T any](t testing.TB, run RunFunc, args ...string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(OK(t, run, slices.Concat(args, []string{"-o", "json"})...)), &v))
	return v
}

// ContainsWords checks that out, its white space folded as Words folds it, holds each of
// wants.
func ContainsWords(t testing.TB, out string, wants ...string) {
	t.Helper()
	out = Words(out)
	for _, want := range wants {
		assert.Contains(t, out, want)
	}
}

// Refusal is a run the program refuses: its arguments, the exit status it gives and a part
// of what it writes to stderr. A refusal writes nothing to stdout.
type Refusal struct {
	Name string
	Args []string
	Code int
	Msg  string
}

// Refused runs each refusal in a subtest of its name, with own before its arguments, and
// checks the exit status, the message and an empty stdout.
func Refused(t *testing.T, run RunFunc, own []string, refusals []Refusal) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.Name, func(t *testing.T) {
			code, out, errOut := Call(run, slices.Concat(own, r.Args)...)
			assert.Equal(t, r.Code, code, errOut)
			assert.Empty(t, out, "a refusal prints no report")
			assert.Contains(t, errOut, r.Msg)
		})
	}
}

// Case is a run of a built program and what it must give: the exit status, text stdout
// holds, and text the last line of stderr holds ("" for no check).
type Case struct {
	Name       string
	Args       []string
	Code       int
	Stdout     []string
	LastStderr string
}

// Check runs the program with c's arguments, checks what c says the run gives, and returns
// the run for the checks a package adds.
func (p *Program) Check(t *testing.T, c Case) Result {
	t.Helper()
	r := p.Run(t, c.Args...)
	assert.Equal(t, c.Code, r.Code, r.Stderr)
	for _, want := range c.Stdout {
		assert.Contains(t, r.Stdout, want)
	}
	if c.LastStderr != "" {
		assert.Contains(t, r.LastStderr(), c.LastStderr)
	}
	return r
}

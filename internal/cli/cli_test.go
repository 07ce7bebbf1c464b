package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/report"
)

func TestReadFile(t *testing.T) {
	sample := fstest.MapFS{"sample/a.yaml": {Data: []byte("embedded")}}
	b, name, err := ReadFile(sample, "", "a.yaml")
	require.NoError(t, err)
	assert.Equal(t, "embedded", string(b))
	assert.Equal(t, "sample/a.yaml", name)

	p := filepath.Join(t.TempDir(), "mine.yaml")
	require.NoError(t, os.WriteFile(p, []byte("mine"), 0o600))
	b, name, err = ReadFile(sample, p, "a.yaml")
	require.NoError(t, err)
	assert.Equal(t, "mine", string(b))
	assert.Equal(t, p, name)

	_, _, err = ReadFile(sample, filepath.Join(t.TempDir(), "missing"), "a.yaml")
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestEmit(t *testing.T) {
	var out, errOut strings.Builder
	assert.True(t, CheckFormat("prog", "json", &errOut))
	assert.False(t, CheckFormat("prog", "xml", &errOut))
	assert.Equal(t, "prog: -o must be table or json, got \"xml\"\n", errOut.String())
	errOut.Reset()
	assert.True(t, CheckFormat("prog", "dot", &errOut, "dot"))
	assert.False(t, CheckFormat("prog", "svg", &errOut, "dot"))
	assert.Equal(t, "prog: -o must be table, json or dot, got \"svg\"\n", errOut.String())
	errOut.Reset()

	code := Emit("prog", &out, &errOut, "json", map[string]int{"a": 1}, nil)
	assert.Equal(t, OK, code)
	assert.Equal(t, "{\n  \"a\": 1\n}\n", out.String())

	out.Reset()
	errOut.Reset()
	code = Emit("prog", &out, &errOut, "table", nil, func(w io.Writer) error { _, err := io.WriteString(w, "T\n"); return err })
	assert.Equal(t, OK, code)
	assert.Equal(t, "T\n", out.String())

	code = Emit("prog", &out, &errOut, "table", nil, func(io.Writer) error { return errors.New("broken pipe") })
	assert.Equal(t, Failed, code)
	assert.Equal(t, "prog: broken pipe\n", errOut.String())
}

func TestParse(t *testing.T) {
	newFS := func() *flag.FlagSet {
		fs := flag.NewFlagSet("prog", flag.ContinueOnError)
		fs.String("x", "", "an x")
		return fs
	}
	tests := []struct {
		name           string
		args           []string
		done           bool
		code           int
		stdout, stderr string
	}{
		{"flags", []string{"-x", "1"}, false, OK, "", ""},
		{"help", []string{"-h"}, true, OK, "what it does.\n\nFlags:\n  -x string\n    \tan x\n", ""},
		{"bad flag", []string{"-y"}, true, Usage, "", "prog: flag provided but not defined: -y\n\nwhat it does.\n\nFlags:\n  -x string\n    \tan x\n"},
		{"positional", []string{"file.yaml"}, true, Usage, "", "prog: unexpected argument \"file.yaml\": every input is given with a flag (see -h)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			done, code := Parse(newFS(), tt.args, "what it does.\n", &out, &errOut)
			assert.Equal(t, tt.done, done)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, out.String())
			assert.Equal(t, tt.stderr, errOut.String())
		})
	}
}

func TestGate(t *testing.T) {
	redundant, shadowed := report.NewCode("Redundant", report.Note), report.NewCode("Shadowed", report.Warning)
	fs := []report.Finding{report.New("policies[1]", redundant, "n"), report.New("policies[2]", shadowed, "w")}
	tests := []struct {
		name   string
		code   int
		level  string
		want   int
		stderr string
	}{
		{"no gate", OK, "", OK, ""},
		{"below the level", OK, "error", OK, ""},
		{"at the level", OK, "warning", Findings, "p: -fail-on warning: 1 finding at WARNING or above: WARNING Shadowed policies[2]\n"},
		{"notes count for note", OK, "note", Findings, "p: -fail-on note: 2 findings at NOTE or above: NOTE Redundant policies[1], WARNING Shadowed policies[2]\n"},
		{"a failure stays a failure", Failed, "note", Failed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errOut strings.Builder
			assert.Equal(t, tt.want, Gate("p", &errOut, tt.code, tt.level, fs))
			assert.Equal(t, tt.stderr, errOut.String())
		})
	}
	var errOut strings.Builder
	assert.False(t, CheckFailOn("p", "info", &errOut))
	assert.Equal(t, "p: -fail-on: \"info\" is not a level: want note, warning or error\n", errOut.String())
	assert.True(t, CheckFailOn("p", "", &errOut))
	assert.True(t, CheckFailOn("p", "note", &errOut))
}

func TestWrap(t *testing.T) {
	var b strings.Builder
	Wrap(&b, "", strings.Repeat("word ", 60)+strings.Repeat("x", 130))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	require.Len(t, lines, 4)
	for _, l := range lines[:3] {
		assert.LessOrEqual(t, len(l), Width)
	}
	assert.True(t, strings.HasPrefix(lines[1], "    word"), "continuation lines are indented")
	assert.Equal(t, "    "+strings.Repeat("x", 130), lines[3], "a word longer than a line stays whole")

	b.Reset()
	Wrap(&b, "  ", "short")
	assert.Equal(t, "  short\n", b.String())
}

func TestExitStatus(t *testing.T) {
	for _, tt := range []struct {
		name    string
		gate    bool
		checked []string
		want    string
	}{
		{"with -fail-on", true, nil, "what.\n\nFlags:\n\nExit status:\n  0  the report was printed\n" +
			"  1  an input was wrong (every problem is printed, a line each, naming the file) or the output\n     failed\n" +
			"  2  a usage error: an unknown flag or a value no input could make right, an argument that is\n" +
			"     not a flag, flags that do not go together, or an input missing or given empty (the problem\n     is printed)\n" +
			"  3  -fail-on: findings at or above its level (the last line on stderr names them)\n"},
		// A flag whose value only the input can refuse: status 1, as the text says.
		{"flag values the input refuses", false, []string{"-client naming a namespace the inventory does not have", "-addr not an IP"},
			"what.\n\nFlags:\n\nExit status:\n  0  the report was printed\n" +
				"  1  an input was wrong (every problem is printed, a line each, naming the file), the output\n" +
				"     failed, or a flag's value was refused: -client naming a namespace the inventory does not\n     have; -addr not an IP\n" +
				"  2  a usage error: an unknown flag or a value no input could make right (other than those of\n" +
				"     status 1), an argument that is not a flag, flags that do not go together, or an input\n" +
				"     missing or given empty (the problem is printed)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			done, code := Parse(flag.NewFlagSet("prog", flag.ContinueOnError), []string{"-h"}, "what.\n"+ExitStatus(tt.gate, tt.checked...), &out, &errOut)
			assert.True(t, done)
			assert.Equal(t, OK, code)
			assert.Equal(t, tt.want, out.String())
			for _, line := range strings.Split(out.String(), "\n") {
				assert.LessOrEqual(t, len(line), 100, "%q", line)
			}
		})
	}
}

func TestGivenAndMissing(t *testing.T) {
	parse := func(args ...string) *flag.FlagSet {
		fs := flag.NewFlagSet("p", flag.ContinueOnError)
		fs.String("mesh", "", "")
		fs.String("inventory", "", "")
		fs.String("o", "table", "")
		require.NoError(t, fs.Parse(args))
		return fs
	}
	var errOut strings.Builder
	given, ok := Given("p", parse("-mesh", "m.yaml", "-o", "json"), &errOut, nil, "mesh", "inventory")
	assert.True(t, ok)
	assert.Equal(t, map[string]bool{"mesh": true, "o": true}, given)
	assert.False(t, Missing("p", given, &errOut, "-mesh", "-inventory|-cluster"))
	assert.Equal(t, "p: with your own input, also give -inventory or -cluster (the embedded sample is used only when no input flag is given)\n", errOut.String())
	assert.True(t, Missing("p", map[string]bool{"cluster": true, "mesh": true}, &errOut, "-mesh", "-inventory|-cluster"))

	errOut.Reset()
	_, ok = Given("p", parse("-mesh", "", "-inventory", "i.yaml", "-o", ""), &errOut, nil, "mesh", "inventory")
	assert.False(t, ok)
	assert.Equal(t, "p: -mesh given an empty value (an unset variable?): name a file, or give none of the input flags to run on the embedded sample\n", errOut.String())
}

// TestGivenSaysWhatToName: an input flag given empty is told what its value names: a file,
// unless the program says otherwise for the flag.
func TestGivenSaysWhatToName(t *testing.T) {
	names := map[string]string{"datacenter": "the local datacenter", "zone": "the local datacenter"}
	for _, tt := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"a flag that takes a name", []string{"-datacenter", ""},
			"p: -datacenter given an empty value (an unset variable?): name the local datacenter, or give none of the input flags to run on the embedded sample\n"},
		{"a flag that takes a file", []string{"-mesh", ""},
			"p: -mesh given an empty value (an unset variable?): name a file, or give none of the input flags to run on the embedded sample\n"},
		{"several, each told what it takes", []string{"-mesh", "", "-datacenter", "", "-inventory", "", "-zone", ""},
			"p: -datacenter, -zone given an empty value (an unset variable?): name the local datacenter, or give none of the input flags to run on the embedded sample\n" +
				"p: -inventory, -mesh given an empty value (an unset variable?): name a file, or give none of the input flags to run on the embedded sample\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("p", flag.ContinueOnError)
			for _, f := range []string{"mesh", "inventory", "datacenter", "zone"} {
				fs.String(f, "", "")
			}
			require.NoError(t, fs.Parse(tt.args))
			var errOut strings.Builder
			_, ok := Given("p", fs, &errOut, names, "mesh", "inventory", "datacenter", "zone")
			assert.False(t, ok)
			assert.Equal(t, tt.stderr, errOut.String())
		})
	}
}

// TestFiles: a repeatable file flag keeps every file in order, and one given empty makes the
// flag read as empty, which Given refuses.
func TestFiles(t *testing.T) {
	var files Files
	fs := flag.NewFlagSet("p", flag.ContinueOnError)
	fs.Var(&files, "apply", "")
	require.NoError(t, fs.Parse([]string{"-apply", "a.yaml", "-apply", "b.yaml"}))
	assert.Equal(t, Files{"a.yaml", "b.yaml"}, files)
	var stderr strings.Builder
	_, ok := Given("p", fs, &stderr, nil, "apply")
	assert.True(t, ok)
	require.NoError(t, fs.Parse([]string{"-apply", ""}))
	_, ok = Given("p", fs, &stderr, nil, "apply")
	assert.False(t, ok)
	assert.Contains(t, stderr.String(), "p: -apply given an empty value")
}

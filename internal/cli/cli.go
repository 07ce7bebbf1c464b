// Package cli holds what the example programs share: reading a user's file or the embedded
// sample in its place, and printing a report as a table or as JSON with the exit status a
// shell expects.
package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
)

// Exit statuses.
const (
	OK     = 0 // the report was printed
	Failed = 1 // the input (or the output) failed; the error was printed
	Usage  = 2 // the flags were wrong
)

// ReadFile returns the contents of the file at name and the name to mention in messages; an
// empty name reads sampleName from sample instead, mentioned as "sample/<sampleName>".
func ReadFile(sample fs.FS, name, sampleName string) ([]byte, string, error) {
	if name == "" {
		p := path.Join("sample", sampleName)
		b, err := fs.ReadFile(sample, p)
		return b, p, err
	}
	b, err := os.ReadFile(name)
	return b, name, err
}

// CheckFormat reports whether format is "table", "json" or one of the program's other
// formats (more, such as "dot"), printing the problem otherwise.
func CheckFormat(prog, format string, stderr io.Writer, more ...string) bool {
	formats := append([]string{"table", "json"}, more...)
	if slices.Contains(formats, format) {
		return true
	}
	last := len(formats) - 1
	fmt.Fprintf(stderr, "%s: -o must be %s or %s, got %q\n", prog, strings.Join(formats[:last], ", "), formats[last], format)
	return false
}

// Emit prints report as indented JSON when format is "json", else with text (the table, or
// the program's other format), and returns the exit status: OK, or Failed after printing
// what went wrong.
func Emit(prog string, stdout, stderr io.Writer, format string, report any, text func(io.Writer) error) int {
	var err error
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(report)
	} else {
		err = text(stdout)
	}
	return Fail(prog, stderr, err)
}

// Fail prints err, if any, prefixed by the program's name, and returns the exit status.
func Fail(prog string, stderr io.Writer, err error) int {
	if err == nil {
		return OK
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return Failed
}

// Findings is the exit status when findings at or above the -fail-on level were reported.
const Findings = 3

// ExitStatus is the section of a program's -h text that lists its exit statuses; gate says
// whether the program has -fail-on (and so status 3). Status 2 is a usage error. A flag's
// value refused only once it is looked up in the input (a name the input does not have) or
// put to use is status 1, not 2: checked lists those refusals, in the program's words
// ("-client naming a namespace the inventory does not have").
func ExitStatus(gate bool, checked ...string) string {
	one := "an input was wrong (every problem is printed, a line each, naming the file) or the output failed"
	value := "a value no input could make right"
	if len(checked) > 0 {
		one = "an input was wrong (every problem is printed, a line each, naming the file), the output failed, " +
			"or a flag's value was refused: " + strings.Join(checked, "; ")
		value += " (other than those of status 1)"
	}
	var b strings.Builder
	b.WriteString("\nExit status:\n")
	status := func(code, text string) {
		line := "  " + code + " "
		for _, word := range strings.Fields(text) {
			if len(line)+1+len(word) > 96 && strings.TrimSpace(line) != code {
				b.WriteString(line + "\n")
				line = "    "
			}
			line += " " + word
		}
		b.WriteString(line + "\n")
	}
	status("0", "the report was printed")
	status("1", one)
	status("2", "a usage error: an unknown flag or "+value+", an argument that is not a flag, flags that do not go together, "+
		"or an input missing or given empty (the problem is printed)")
	if gate {
		status("3", "-fail-on: findings at or above its level (the last line on stderr names them)")
	}
	return b.String()
}

// Parse parses args with fs, whose usage text is description followed by the flags (and,
// when description ends with the ExitStatus section, that section after the flags). -h
// prints that text to stdout and stops with status OK; a bad flag or a positional argument
// (every input is a flag) prints the problem and the usage to stderr and stops with status
// Usage. done reports whether the program should stop with code.
func Parse(fs *flag.FlagSet, args []string, description string, stdout, stderr io.Writer) (done bool, code int) {
	fs.SetOutput(io.Discard)
	usage := func(w io.Writer) {
		text, exit, _ := strings.Cut(strings.TrimLeft(description, "\n"), "\nExit status:\n")
		fmt.Fprint(w, text)
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if exit != "" {
			fmt.Fprint(w, "\nExit status:\n"+exit)
		}
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return true, OK
	case err != nil:
		fmt.Fprintf(stderr, "%s: %v\n\n", fs.Name(), err)
		usage(stderr)
		return true, Usage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q: every input is given with a flag (see -h)\n", fs.Name(), fs.Arg(0))
		return true, Usage
	}
	return false, OK
}

// CheckFailOn reports whether level is "" (no gate) or a level (note, warning, error),
// printing the problem otherwise.
func CheckFailOn(prog, level string, stderr io.Writer) bool {
	if level == "" {
		return true
	}
	if _, err := report.ParseLevel(level); err != nil {
		fmt.Fprintf(stderr, "%s: -fail-on: %v\n", prog, err)
		return false
	}
	return true
}

// Gate returns Findings when any finding is at or above level ("" never gates), else code;
// a code other than OK stays as it is. When it returns Findings it prints, as the last line
// on stderr, how many findings made it so and which:
//
//	visibility: -fail-on warning: 2 findings at warning or above: WARNING Shadowed policies[2], ERROR ExportToUnknownNamespace ServiceEntry shop/api
func Gate(prog string, stderr io.Writer, code int, level string, findings []report.Finding) int {
	if code != OK || level == "" {
		return code
	}
	min, err := report.ParseLevel(level)
	if err != nil { // CheckFailOn refused it already
		return Usage
	}
	hit := report.AtLeast(findings, min)
	if len(hit) == 0 {
		return code
	}
	names := make([]string, len(hit))
	for i, f := range hit {
		names[i] = f.Level.String() + " " + f.Code.Name() + " " + f.Path
	}
	noun := "findings"
	if len(hit) == 1 {
		noun = "finding"
	}
	fmt.Fprintf(stderr, "%s: -fail-on %s: %d %s at %s or above: %s\n", prog, level, len(hit), noun, min, strings.Join(names, ", "))
	return Findings
}

// Width is the widest line the programs print outside their tables.
const Width = 120

// Wrap writes text on lines of at most Width bytes, breaking at spaces, the first line
// starting with indent and the others with indent and four spaces more. A word longer than a
// line is not broken.
func Wrap(w io.Writer, indent, text string) {
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = indent + word
		case len(line)+1+len(word) <= Width:
			line += " " + word
		default:
			fmt.Fprintln(w, line)
			line = indent + "    " + word
		}
	}
	if line != "" {
		fmt.Fprintln(w, line)
	}
}

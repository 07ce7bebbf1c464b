// Package cli holds what the example programs share: reading a user's file or the embedded
// sample in its place, and printing a report as a table or as JSON with the exit status a
// shell expects.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// Exit statuses.
const (
	OK    = 0 // the report was printed
	Error = 1 // the input (or the output) failed; the error was printed
	Usage = 2 // the flags were wrong
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

// CheckFormat reports whether format is "table" or "json", printing the problem otherwise.
func CheckFormat(prog, format string, stderr io.Writer) bool {
	if format == "table" || format == "json" {
		return true
	}
	fmt.Fprintf(stderr, "%s: -o must be table or json, got %q\n", prog, format)
	return false
}

// Emit prints report as indented JSON when format is "json", else with table, and returns
// the exit status: OK, or Error after printing what went wrong.
func Emit(prog string, stdout, stderr io.Writer, format string, report any, table func(io.Writer) error) int {
	var err error
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(report)
	} else {
		err = table(stdout)
	}
	return Fail(prog, stderr, err)
}

// InFile puts "name: " before each of the problems joined in err, so that every line of the
// message names the file; nil stays nil.
func InFile(name string, err error) error { return fielderr.In(name, err) }

// Fail prints err, if any, prefixed by the program's name, and returns the exit status.
func Fail(prog string, stderr io.Writer, err error) int {
	if err == nil {
		return OK
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return Error
}

package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Given returns the set of flags the command line set, and refuses an input flag (one of
// inputs) set to an empty value — what `-config "$CONFIG"` gives when the variable is unset
// in a CI job — printing which and why, so that a program never runs on something other than
// what the user named: a line for each thing to name, listing its flags. names says, for an input flag whose value is not a file, what it names
// ("the local datacenter"), for the message; every other input flag names a file. ok is false
// when it refused.
func Given(prog string, fs *flag.FlagSet, stderr io.Writer, names map[string]string, inputs ...string) (given map[string]bool, ok bool) {
	given = map[string]bool{}
	var empty [][]string // flags grouped by what they name, in the order of the flags' names
	var what []string
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if !slices.Contains(inputs, f.Name) || f.Value.String() != "" {
			return
		}
		w := names[f.Name]
		if w == "" {
			w = "a file"
		}
		i := slices.Index(what, w)
		if i < 0 {
			i, what, empty = len(what), append(what, w), append(empty, nil)
		}
		empty[i] = append(empty[i], "-"+f.Name)
	})
	for i, flags := range empty {
		fmt.Fprintf(stderr, "%s: %s given an empty value (an unset variable?): name %s, or give none of the input flags to run on the embedded sample\n", prog, strings.Join(flags, ", "), what[i])
	}
	return given, len(empty) == 0
}

// Missing prints, when some of the input flags were given but not every one in required,
// which are missing, and returns false; each element of required lists the flags any one of
// which will do ("-ca-roots|-trust-domain").
func Missing(prog string, given map[string]bool, stderr io.Writer, required ...string) bool {
	var missing []string
	for _, r := range required {
		if !slices.ContainsFunc(strings.Split(r, "|"), func(name string) bool { return given[strings.TrimPrefix(name, "-")] }) {
			missing = append(missing, strings.ReplaceAll(r, "|", " or "))
		}
	}
	if len(missing) == 0 {
		return true
	}
	fmt.Fprintf(stderr, "%s: with your own input, also give %s (the embedded sample is used only when no input flag is given)\n", prog, strings.Join(missing, ", "))
	return false
}

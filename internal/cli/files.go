package cli

import (
	"slices"
	"strings"
)

// Files is a repeatable flag naming files (-apply a.yaml -apply b.yaml), for flag.Var. Its
// String is "" when any of them was given empty, so that Given refuses it as it refuses an
// input flag given an empty value.
type Files []string

// String lists the files, "" when one is empty.
func (f *Files) String() string {
	if f == nil || slices.Contains(*f, "") {
		return ""
	}
	return strings.Join(*f, ", ")
}

// Set adds a file.
func (f *Files) Set(name string) error {
	*f = append(*f, name)
	return nil
}

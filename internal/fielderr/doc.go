// Package fielderr holds the one structured error type of meshscope, and the path value that
// says where a problem is. Every package exports Error under the name FieldError (a type
// alias), so that a caller can errors.As any error the module returns into one type and read
// where the problem is, the value found, and why.
//
// # Where a problem is
//
// A problem's place has two parts. Error.Field is the field within one object, built by the
// check that finds the problem as a Path: a value spelt as the input it checks — an object
// read from YAML or JSON, or a value built in Go — so that one check serves both and writes
// each field's name once:
//
//	func checkHosts(spec fielderr.Path, hosts []string) (errs []*fielderr.Error) {
//		for i, h := range hosts {
//			if bad(h) { // the path is built only for a problem
//				errs = append(errs, spec.Child("hosts").Index(i).Problemf(h, "%q is no host", h))
//			}
//		}
//		return errs
//	}
//
//	checkHosts(fielderr.Root(fielderr.Object).Child("spec"), hosts) // spec.hosts[1]: …
//	checkHosts(fielderr.Root(fielderr.GoValue), hosts)              // Hosts[1]: …
//
// Where a Go value names a field otherwise than the object, or has no such field, Path.Field
// gives both names in the one step: Field("destination", "") is the object's wrapper of a
// route's destination, which the Go value leaves out; Field("http", "HTTP") is also what
// Child("http") gives, Go's initialisms being known to it.
//
// Error.Where names the object in its input, and is put by whoever walks the objects, since
// one check serves objects found in any input: a reader of a kubectl dump names the document,
// the List item and the object ("inventory.yaml: items[5] (ServiceEntry shop/api)"), a
// Validate method the slice and index ("Services[3] (ServiceEntry a/x)"). In puts it before
// every problem of an object, once the object has problems: neither part of a place is spelt
// for an input that has none.
//
// A check shared by fields in several places takes a function giving the path of what it
// checks, called only for a problem (exportto.Problems, kube.SelectorProblems). A reader that
// spells places as strings, as the strict decoder does, hands its place to the checks as a
// value once, with Dotted: "spec.meshConfig" becomes the root the checks build under.
//
// A reader of a new kind of object follows the same pattern: its checks take the Path of the
// object's spec (Root(Object).Child("spec") when reading, Root(GoValue) when validating a Go
// value) and build the path of a field in the branch that reports a problem there; the reader
// puts the object's Where with In.
package fielderr

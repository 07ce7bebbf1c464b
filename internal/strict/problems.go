package strict

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// Problem is one problem in a document's content — a key given twice, a number that cannot
// be read exactly, an unsupported tag — with where it is, so that a caller can tell which
// part of the document it belongs to (which item of a kubectl List) and judge only the
// parts it reads. Its Err names the path as the user wrote it.
type Problem struct {
	// Path is where the problem is, from the document's root: the keys and list indexes
	// on the way, the first MaxPathSteps of them. Empty for the document's root itself.
	Path []Step
	// Err is the problem, naming the path (under ParseYAML's root; see MaxPathSteps).
	Err error
}

// Step is one step of a Problem's path: the value of key Key of an object, or, when Key is
// "" and Index is 0 or more, element Index of a list.
type Step struct {
	Key   string
	Index int
}

// String spells the step as a path does: ".key" or "[3]".
func (s Step) String() string {
	if s.Key == "" && s.Index >= 0 {
		return fmt.Sprintf("[%d]", s.Index)
	}
	return "." + s.Key
}

// MaxPathSteps bounds the steps of a problem's path that are kept and spelt: a path deeper
// than that keeps its first MaxPathSteps steps in Problem.Path and names its first and last
// MaxPathSteps/2 in the message, with how many are left out between them
// ("[0][0]…936 steps…[0].a"). Each problem then costs O(1) however deep it is, where n
// problems n deep, in a few kilobytes of hostile input, would cost O(n²). No configuration
// people write nests so deep.
const MaxPathSteps = 64

// problemPath returns the steps of path that a problem keeps, in a new slice: the first
// MaxPathSteps; nil for the root.
func problemPath(path []Step) []Step {
	if len(path) == 0 {
		return nil
	}
	return slices.Clone(path[:min(len(path), MaxPathSteps)])
}

// failure is the problem at path (under root) that detail describes, with no value.
func failure(root string, path []Step, detail string) Problem {
	return Problem{Path: problemPath(path), Err: fielderr.New(Display(spell(root, path)), nil, detail, nil)}
}

// givenTwice is the problem of the key that ends path (under root) given twice, on lines
// first and second.
func givenTwice(root string, path []Step, first, second int) Problem {
	k := path[len(path)-1].Key
	return Problem{Path: problemPath(path), Err: fielderr.New(spell(root, path), k, fmt.Sprintf("given twice (lines %d and %d)", first, second), ErrGivenTwice)}
}

// fail records the problem detail describes at the value being read.
func (r *blockReader) fail(detail string) {
	r.problems = append(r.problems, failure(r.root, r.path, detail))
}

// givenTwice records that the key being read was given twice, on lines first and second.
func (r *blockReader) givenTwice(first, second int) Problem {
	return givenTwice(r.root, r.path, first, second)
}

// spell writes path under root as Field and Index do, step by step, in one pass; a path
// deeper than MaxPathSteps with the steps between its first and last MaxPathSteps/2 left
// out.
func spell(root string, path []Step) string {
	var b strings.Builder
	b.WriteString(root)
	for i := 0; i < len(path); i++ {
		if len(path) > MaxPathSteps && i == MaxPathSteps/2 {
			skip := len(path) - MaxPathSteps
			b.WriteString("…" + strconv.Itoa(skip) + " steps…")
			i += skip - 1
			continue
		}
		switch s := path[i]; {
		case s.Key == "" && s.Index >= 0:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case plainName(s.Key):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.Key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// errs returns the problems' errors.
func errs(problems []Problem) []error {
	out := make([]error, len(problems))
	for i, p := range problems {
		out[i] = p.Err
	}
	return out
}

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
	// on the way. Empty for the document's root itself.
	Path []Step
	// Err is the problem, naming the path in full (under ParseYAMLAt's root).
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

// steps returns the path from the document's root to s: the segments below the stream's
// root (the one whose index is rawPath), outermost first.
func (s *pathSeg) steps() []Step {
	n := 0
	for p := s; p != nil && p.index != rawPath; p = p.parent {
		n++
	}
	if n == 0 {
		return nil
	}
	out := make([]Step, n)
	for p := s; p != nil && p.index != rawPath; p = p.parent {
		n--
		if p.index >= 0 {
			out[n] = Step{Index: p.index}
		} else {
			out[n] = Step{Key: strings.Clone(p.key), Index: -1} // (see pathSeg.String)
		}
	}
	return out
}

// problem is the Problem err at path.
func problemAt(path *pathSeg, err error) Problem { return Problem{Path: path.steps(), Err: err} }

// failure is the problem at path that detail describes, with no value.
func failure(path *pathSeg, detail string) Problem {
	return problemAt(path, fielderr.New(Display(path.String()), nil, detail, nil))
}

// givenTwice is the problem of key k given twice in the object at parent, on lines first
// and second.
func givenTwice(parent *pathSeg, k string, first, second int) Problem {
	seg := &pathSeg{parent, k, -1}
	return problemAt(seg, fielderr.New(seg.String(), k, fmt.Sprintf("given twice (lines %d and %d)", first, second), ErrGivenTwice))
}

// fail records the problem detail describes at the value being read.
func (r *blockReader) fail(detail string) {
	path := r.spell(r.path)
	r.problems = append(r.problems, Problem{Path: clonePath(r.path), Err: fielderr.New(Display(path), nil, detail, nil)})
}

// givenTwice records that the key being read was given twice, on lines first and second.
func (r *blockReader) givenTwice(first, second int) Problem {
	k := r.path[len(r.path)-1].Key
	return Problem{Path: clonePath(r.path), Err: fielderr.New(r.spell(r.path), k, fmt.Sprintf("given twice (lines %d and %d)", first, second), ErrGivenTwice)}
}

// clonePath returns a copy of path; nil for the root.
func clonePath(path []Step) []Step {
	if len(path) == 0 {
		return nil
	}
	return slices.Clone(path)
}

// spell writes path as pathSeg.String does, under the stream's root.
func (r *blockReader) spell(path []Step) string { return spell(r.root, path) }

// spell writes path under root as Field and Index do, step by step, in one pass: O(n) for a
// path n deep.
func spell(root string, path []Step) string {
	var b strings.Builder
	b.WriteString(root)
	for _, s := range path {
		switch {
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

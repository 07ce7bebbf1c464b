package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
)

// Level ranks a finding. Its JSON value is its lower-case name; String gives the upper-case
// one a report line starts with.
type Level string

// The levels, lowest first.
const (
	// Note: worth knowing, changes nothing (a policy that only costs evaluation).
	Note Level = "note"
	// Warning: very likely a mistake (a policy no namespace reaches).
	Warning Level = "warning"
	// Error: the configuration does something other than what it says (an exportTo naming
	// a namespace that does not exist).
	Error Level = "error"
)

// Rank orders the levels: Note 1, Warning 2, Error 3; 0 for anything else.
func (l Level) Rank() int {
	switch l {
	case Note:
		return 1
	case Warning:
		return 2
	case Error:
		return 3
	}
	return 0
}

// String returns the level as a report line spells it: "NOTE", "WARNING", "ERROR".
func (l Level) String() string { return strings.ToUpper(string(l)) }

// ParseLevel reads a level by name, in any case: "note", "warning", "error".
func ParseLevel(s string) (Level, error) {
	l := Level(strings.ToLower(s))
	if l.Rank() == 0 {
		return "", fmt.Errorf("%q is not a level: want note, warning or error", s)
	}
	return l, nil
}

// Finding is one lint or check result: where (the path of the field or object it is about,
// as the user wrote it), what (its code, and the level the code gives it) and why.
type Finding struct {
	// Path is what the finding is about: "policies[1].matchingRules[0]",
	// "ServiceEntry shop/api", "serviceSettings[0].hosts[2]".
	Path    string `json:"path"`
	Code    Code   `json:"code"`
	Level   Level  `json:"level"`
	Message string `json:"message"`
}

// New returns the finding about path with code, its level the code's and its message
// formatted from format and args.
func New(path string, code Code, format string, args ...any) Finding {
	return Finding{Path: path, Code: code, Level: code.Level(), Message: fmt.Sprintf(format, args...)}
}

// UnmarshalJSON reads a finding as encoding/json writes it, {path, code, level, message}: its
// Code is the code named "code" at level "level", so a finding read back from meshscope's
// JSON output equals the one reported (its Code == the package's declared code). A level
// other than note, warning or error is refused.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var raw struct {
		Path    string `json:"path"`
		Code    string `json:"code"`
		Level   string `json:"level"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	l, err := ParseLevel(raw.Level)
	if err != nil {
		return fmt.Errorf("finding %s at %q: level: %w", raw.Code, raw.Path, err)
	}
	*f = Finding{Path: raw.Path, Code: NewCode(raw.Code, l), Level: l, Message: raw.Message}
	return nil
}

// String renders the finding as a report line: "WARNING Shadowed policies[2]: …".
func (f Finding) String() string {
	return f.Level.String() + " " + f.Code.name + " " + f.Path + ": " + f.Message
}

// Compare orders findings by path, then code name, then message.
func Compare(a, b Finding) int {
	return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Code.name, b.Code.name), strings.Compare(a.Message, b.Message))
}

// AtLeast returns the findings whose level is at least min, in their order.
func AtLeast(fs []Finding, min Level) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Level.Rank() >= min.Rank() {
			out = append(out, f)
		}
	}
	return out
}

// Change is how one thing differs between two configurations: Key names it; Before and
// After are its value on each side (the zero value: it has none there, and JSON leaves it
// out); Gained and Lost are what it gains and loses, when its value is a set or decides one
// (the namespaces that start or stop seeing an entry, the services a consumer starts or
// stops receiving). A kind of change that has no set uses struct{} for E and leaves them
// empty.
type Change[K, V, E any] struct {
	Key    K   `json:"key"`
	Before V   `json:"before,omitzero"`
	After  V   `json:"after,omitzero"`
	Gained []E `json:"gained,omitempty"`
	Lost   []E `json:"lost,omitempty"`
}

// Delta returns the elements of after missing from before (gained) and of before missing
// from after (lost), each in the order of its own slice and without repeats.
func Delta[E comparable](before, after []E) (gained, lost []E) {
	in := func(xs []E) map[E]bool {
		m := make(map[E]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	had, has := in(before), in(after)
	for _, x := range after {
		if !had[x] {
			gained = append(gained, x)
			had[x] = true // once
		}
	}
	for _, x := range before {
		if !has[x] {
			lost = append(lost, x)
			has[x] = true
		}
	}
	return gained, lost
}

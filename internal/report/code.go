package report

// Code classifies a finding: a name and the one level every finding of that name has.
// Each code is declared once, by the package that reports it (see the package
// documentation). Codes are comparable; a Code prints, and encodes as text and JSON, as its
// name.
type Code struct {
	name  string
	level Level
}

// NewCode returns the code called name, whose findings have level l: a package's one
// declaration of a code it reports (see the package documentation).
func NewCode(name string, l Level) Code { return Code{name: name, level: l} }

// Name is the code's name: "Shadowed".
func (c Code) Name() string { return c.name }

// Level is the level of every finding of the code.
func (c Code) Level() Level { return c.level }

// String is the code's name, as a report line and the JSON output spell it.
func (c Code) String() string { return c.name }

// MarshalText encodes the code as its name (JSON's "code": "Shadowed").
func (c Code) MarshalText() ([]byte, error) { return []byte(c.name), nil }

// Equal reports whether c and d are the same code (name and level), as c == d does; it lets
// go-cmp compare values holding codes.
func (c Code) Equal(d Code) bool { return c == d }

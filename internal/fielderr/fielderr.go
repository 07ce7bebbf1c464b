package fielderr

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a problem with one field of an input.
type Error struct {
	// Where names the input and the object the field belongs to, as the user wrote them:
	// "inventory.yaml: items[5] (ServiceEntry shop/api)", "Services[3] (ServiceEntry a/x)",
	// "value 2". Empty when the field belongs to the value the caller passed.
	Where string
	// Field is the field's path from the object's root, as the user wrote it:
	// "spec.hosts[0]", "Services[1].Consumers[0]", "Service". Empty for the object as a
	// whole.
	Field string
	// Value is the offending value, when there is one: a string, a number, a list.
	Value any
	// Detail says what is wrong, for a person. It is a diagnostic: its wording may change,
	// except where a package's documentation says it is a contract (Consul's messages).
	Detail string
	// Err is the sentinel error callers branch on with errors.Is, if any.
	Err error
}

// Error formats the problem as "Where: Field: Detail", leaving out what is empty.
func (e *Error) Error() string {
	var b strings.Builder
	for _, part := range [...]string{e.Where, e.Field, e.Detail} {
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(part)
	}
	return b.String()
}

// Unwrap returns the sentinel, so that errors.Is(err, ErrX) works through the chain.
func (e *Error) Unwrap() error { return e.Err }

// New returns a problem with field (its value and why), wrapping the sentinel kind (nil for
// none).
func New(field string, value any, detail string, kind error) *Error {
	return &Error{Field: field, Value: value, Detail: detail, Err: kind}
}

// Newf returns a problem of the object where with field and its value, why formatted as
// fmt.Sprintf does, and no sentinel: for a reader that names the object itself (a stream's
// document and item). A check of an object's fields builds a Path and calls Path.Problemf.
func Newf(where, field string, value any, format string, args ...any) *Error {
	return &Error{Where: where, Field: field, Value: value, Detail: fmt.Sprintf(format, args...)}
}

// In puts where before every problem joined in err: a FieldError gets where prepended to its
// Where (a copy: the original is not changed); any other error is wrapped as "where: err".
// nil stays nil, and a join stays a join, so no problem is flattened into another's text.
func In(where string, err error) error {
	if err == nil || where == "" {
		return err
	}
	return rewrite(err, func(c *Error) {
		if c.Where == "" {
			c.Where = where
		} else {
			c.Where = where + ": " + c.Where
		}
	}, func(e error) error { return &wrapped{where, e} })
}

// rewrite returns err with every problem it joins replaced: a FieldError by a copy that
// change changes, any other error by what other makes of it. One problem stays one, and a
// join stays a join.
func rewrite(err error, change func(*Error), other func(error) error) error {
	list := Split(err)
	out := make([]error, len(list))
	for i, e := range list {
		var fe *Error
		if errors.As(e, &fe) && fe == e {
			c := *fe
			change(&c)
			out[i] = &c
			continue
		}
		out[i] = other(e)
	}
	if len(out) == 1 {
		return out[0]
	}
	return errors.Join(out...)
}

// wrapped is an error other than a FieldError, placed.
type wrapped struct {
	where string
	err   error
}

func (w *wrapped) Error() string { return w.where + ": " + w.err.Error() }
func (w *wrapped) Unwrap() error { return w.err }

// Split returns the errors joined in err (err alone when it joins nothing; none for nil).
// Nested joins are flattened into one list, each error kept whole.
func Split(err error) []error {
	if err == nil {
		return nil
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, Split(e)...)
	}
	return out
}

// Collector gathers the problems of one value, each under a path prefix; it allocates only
// when there are some.
type Collector struct {
	errs []error
}

// Add records a problem at field.
func (c *Collector) Add(field string, value any, detail string, kind error) {
	c.errs = append(c.errs, New(field, value, detail, kind))
}

// Put records err (every problem it joins) as it is; nil is ignored.
func (c *Collector) Put(err error) {
	c.errs = append(c.errs, Split(err)...)
}

// Len returns the number of problems recorded.
func (c *Collector) Len() int { return len(c.errs) }

// Err returns the problems joined, nil if there are none.
func (c *Collector) Err() error { return errors.Join(c.errs...) }

// Under puts the field path prefix before the Field of every problem joined in err (a copy:
// the original is not changed): "policies[0]" under "spec.meshConfig.serviceEntryVisibility"
// is "spec.meshConfig.serviceEntryVisibility.policies[0]". An error other than a FieldError
// is kept as it is. nil stays nil, and a join stays a join.
func Under(prefix string, err error) error {
	if err == nil || prefix == "" {
		return err
	}
	return rewrite(err, func(c *Error) {
		switch {
		case c.Field == "" || c.Field == "(top level)":
			c.Field = prefix
		case strings.HasPrefix(c.Field, "["):
			c.Field = prefix + c.Field
		default:
			c.Field = prefix + "." + c.Field
		}
	}, func(e error) error { return e })
}

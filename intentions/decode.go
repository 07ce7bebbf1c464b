package intentions

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// UnmarshalJSON decodes an entry as Consul's write endpoint does — field names in any case,
// Consul's snake_case aliases (path_exact, path_prefix, path_regex, sameness_group,
// verify_claims, legacy_id, legacy_meta, legacy_create_time, legacy_update_time) — but
// strictly. A key Consul would not use is refused in Consul's own words, all such keys in one
// error (ErrUnknownField):
//
//	1 error occurred:
//		* invalid config key "Sources[2].Partition"
//
// (a Namespace key: `…", namespaces are a consul enterprise feature`), the keys of each
// object after those of the objects inside it and, within one object, sorted (Consul's order
// within an object is its map order). A key given twice, or a value of the wrong type, is an
// error in meshscope's words naming its path (Consul converts some wrong types silently). A
// Kind other than "service-intentions" is refused. It does not normalize or validate.
func (e *ConfigEntry) UnmarshalJSON(b []byte) error { return entryhead.Unmarshal(b, e, decodeEntry) }

// Decode reads one entry from JSON, as UnmarshalJSON does.
func Decode(data []byte) (ConfigEntry, error) {
	var e ConfigEntry
	err := e.UnmarshalJSON(data)
	return e, err
}

// LoadEntries reads service-intentions entries as `consul config read -kind
// service-intentions -name <service>` prints them: one JSON value, a stream of values or a
// JSON array. Each entry is decoded as UnmarshalJSON decodes it and validated (Validate);
// every problem of every entry is reported, naming the value when there are several
// ("value 2: …") and the element of an array ("[1]: …"). The entries are returned as
// written, not normalized.
func LoadEntries(data []byte) ([]ConfigEntry, error) {
	return strict.DecodeEntries(data, true, decodeEntry, func(e ConfigEntry) error { return e.Validate() })
}

// The fields Consul decodes into each kind of object, aliases included.
var (
	entryFields      = []string{"Kind", "Name", "Sources", "JWT", "Meta"}
	sourceFields     = []string{"Name", "Action", "Permissions", "Precedence", "Type", "Description", "Peer", "SamenessGroup", "sameness_group", "LegacyID", "legacy_id", "LegacyMeta", "legacy_meta", "LegacyCreateTime", "legacy_create_time", "LegacyUpdateTime", "legacy_update_time"}
	permissionFields = []string{"Action", "HTTP", "JWT"}
	httpFields       = []string{"PathExact", "path_exact", "PathPrefix", "path_prefix", "PathRegex", "path_regex", "Header", "Methods"}
	headerFields     = []string{"Name", "Present", "Exact", "Prefix", "Suffix", "Regex", "Invert"}
	jwtFields        = []string{"Providers"}
	providerFields   = []string{"Name", "VerifyClaims", "verify_claims"}
	claimFields      = []string{"Path", "Value"}
	// raftFields are the top-level keys Consul reads although no field takes them, spelt
	// exactly so.
	raftFields = []string{"CreateIndex", "ModifyIndex"}
)

// reader decodes one entry: the strict decoder for types and repeated keys, and the keys
// Consul would not use, in the order Consul meets them.
type reader struct {
	d       *strict.Decoder
	unknown []string
}

// unused records the keys of the object x at path that are none of known (any case), those
// in exempt (exact spelling) excepted. It is called after the object's own fields are read,
// so that, as in Consul, the keys of inner objects come first.
func (r *reader) unused(x any, path string, known []string, exempt ...string) {
	f, ok := x.(strict.Fields)
	if !ok {
		return
	}
	var keys []string
	for _, m := range f {
		if slices.Contains(exempt, m.Key) || slices.ContainsFunc(known, func(k string) bool { return strings.EqualFold(k, m.Key) }) {
			continue
		}
		keys = append(keys, strict.Child(path, m.Key))
	}
	slices.Sort(keys)
	r.unknown = append(r.unknown, keys...)
}

// err returns the keys Consul would not use as one error in Consul's words, nil if none.
func (r *reader) err() error {
	if len(r.unknown) == 0 {
		return nil
	}
	msgs := make([]string, len(r.unknown))
	for i, k := range r.unknown {
		msgs[i] = fmt.Sprintf("invalid config key %q", k)
		if strings.HasSuffix(strings.ToLower(k), "namespace") {
			msgs[i] += ", namespaces are a consul enterprise feature"
		}
	}
	return &FieldError{Value: slices.Clone(r.unknown), Detail: multiError(msgs), Err: ErrUnknownField}
}

// multiError formats messages as Consul's multi-error does.
func multiError(msgs []string) string {
	if len(msgs) == 1 {
		return fmt.Sprintf("1 error occurred:\n\t* %s\n\n", msgs[0])
	}
	return fmt.Sprintf("%d errors occurred:\n\t* %s\n\n", len(msgs), strings.Join(msgs, "\n\t* "))
}

// object reads the object x at path with read, then records the keys of it Consul would not
// use (after those of the objects read inside it, as Consul orders them). A value that is not
// an object is a problem; null is an absent object.
func (r *reader) object(x any, path string, known []string, read func(o strict.Object)) bool {
	o, ok := r.d.Object(x, path)
	if ok {
		read(o)
		r.unused(x, path, known)
	}
	return ok
}

// list reads the list field of o spelt as any of names, each element with one.
func list[T any](r *reader, o strict.Object, one func(x any, path string) T, names ...string) []T {
	v, p, ok := o.Get(names...)
	if !ok {
		return nil
	}
	var out []T
	for i, item := range r.d.List(v, p) {
		out = append(out, one(item, strict.Index(p, i)))
	}
	return out
}

func decodeEntry(d *strict.Decoder, x any, path string) ConfigEntry {
	return entryhead.Object(d, x, path, func(o strict.Object) (e ConfigEntry) {
		r := &reader{d: d}
		o.String(&e.Kind, "Kind")
		if e.Kind != "" && e.Kind != Kind {
			d.Fail(strict.Child(path, "Kind"), e.Kind, "must be %q, got %q", Kind, e.Kind)
		}
		o.String(&e.Name, "Name")
		e.Sources = list(r, o, r.source, "Sources")
		if v, p, ok := o.Get("JWT"); ok {
			e.JWT = r.jwt(v, p)
		}
		entryhead.Field(d, o, &e.Meta, (*strict.Decoder).StringMap, "Meta")
		entryhead.Field(d, o, &e.CreateIndex, (*strict.Decoder).Uint, "CreateIndex")
		entryhead.Field(d, o, &e.ModifyIndex, (*strict.Decoder).Uint, "ModifyIndex")
		r.unused(x, path, entryFields, raftFields...)
		d.Add(r.err())
		return e
	})
}

func (r *reader) source(x any, path string) (s SourceIntention) {
	r.object(x, path, sourceFields, func(o strict.Object) {
		o.String(&s.Name, "Name")
		o.String(&s.Peer, "Peer")
		o.String(&s.SamenessGroup, "SamenessGroup", "sameness_group")
		s.Action = readAction(o)
		s.Permissions = list(r, o, r.permission, "Permissions")
		if v, p, ok := o.Get("Precedence"); ok {
			n, _ := r.d.Int(v, p, math.MinInt32, math.MaxInt32)
			s.Precedence = int(n)
		}
		o.String(&s.Type, "Type")
		o.String(&s.Description, "Description")
		o.String(&s.LegacyID, "LegacyID", "legacy_id")
		entryhead.Field(r.d, o, &s.LegacyMeta, (*strict.Decoder).StringMap, "LegacyMeta", "legacy_meta")
		s.LegacyCreateTime = r.time(o, "LegacyCreateTime", "legacy_create_time")
		s.LegacyUpdateTime = r.time(o, "LegacyUpdateTime", "legacy_update_time")
	})
	return s
}

func readAction(o strict.Object) Action {
	var a string
	o.String(&a, "Action")
	return Action(a)
}

// time reads a time written as Consul writes it (RFC 3339).
func (r *reader) time(o strict.Object, names ...string) *time.Time {
	v, p, ok := o.Get(names...)
	if !ok {
		return nil
	}
	s := r.d.String(v, p)
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		r.d.Fail(p, s, "%q is not a time in RFC 3339 form such as \"2006-01-02T15:04:05Z\"", s)
		return nil
	}
	return &t
}

func (r *reader) permission(x any, path string) (p Permission) {
	r.object(x, path, permissionFields, func(o strict.Object) {
		p.Action = readAction(o)
		if v, vp, ok := o.Get("HTTP"); ok {
			p.HTTP = r.http(v, vp)
		}
		if v, vp, ok := o.Get("JWT"); ok {
			p.JWT = r.jwt(v, vp)
		}
	})
	return p
}

func (r *reader) http(x any, path string) *HTTPMatch {
	h := &HTTPMatch{}
	ok := r.object(x, path, httpFields, func(o strict.Object) {
		o.String(&h.PathExact, "PathExact", "path_exact")
		o.String(&h.PathPrefix, "PathPrefix", "path_prefix")
		o.String(&h.PathRegex, "PathRegex", "path_regex")
		h.Header = list(r, o, r.header, "Header")
		entryhead.Field(r.d, o, &h.Methods, (*strict.Decoder).Strings, "Methods")
	})
	if !ok {
		return nil
	}
	return h
}

func (r *reader) header(x any, path string) (h HeaderMatch) {
	r.object(x, path, headerFields, func(o strict.Object) {
		o.String(&h.Name, "Name")
		o.String(&h.Exact, "Exact")
		o.String(&h.Prefix, "Prefix")
		o.String(&h.Suffix, "Suffix")
		o.String(&h.Regex, "Regex")
		entryhead.Field(r.d, o, &h.Present, (*strict.Decoder).Bool, "Present")
		entryhead.Field(r.d, o, &h.Invert, (*strict.Decoder).Bool, "Invert")
	})
	return h
}

func (r *reader) jwt(x any, path string) *JWTRequirement {
	j := &JWTRequirement{}
	if !r.object(x, path, jwtFields, func(o strict.Object) { j.Providers = list(r, o, r.provider, "Providers") }) {
		return nil
	}
	return j
}

func (r *reader) provider(x any, path string) (p JWTProvider) {
	r.object(x, path, providerFields, func(o strict.Object) {
		o.String(&p.Name, "Name")
		p.VerifyClaims = list(r, o, r.claim, "VerifyClaims", "verify_claims")
	})
	return p
}

func (r *reader) claim(x any, path string) (c JWTClaim) {
	r.object(x, path, claimFields, func(o strict.Object) {
		entryhead.Field(r.d, o, &c.Path, (*strict.Decoder).Strings, "Path")
		o.String(&c.Value, "Value")
	})
	return c
}

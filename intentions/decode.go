package intentions

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

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
func (e *ConfigEntry) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, true, decodeEntry)
	if err != nil {
		return err
	}
	*e = got
	return nil
}

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

func decodeEntry(d *strict.Decoder, x any, path string) ConfigEntry {
	r := &reader{d: d}
	var e ConfigEntry
	o, ok := d.Object(x, path)
	if !ok {
		return e
	}
	o.String(&e.Kind, "Kind")
	if e.Kind != "" && e.Kind != Kind {
		d.Fail(strict.Child(path, "Kind"), e.Kind, "must be %q, got %q", Kind, e.Kind)
	}
	o.String(&e.Name, "Name")
	if v, p, ok := o.Get("Sources"); ok {
		for i, item := range d.List(v, p) {
			e.Sources = append(e.Sources, r.source(item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get("JWT"); ok {
		e.JWT = r.jwt(v, p)
	}
	if v, p, ok := o.Get("Meta"); ok {
		e.Meta = d.StringMap(v, p)
	}
	if v, p, ok := o.Get("CreateIndex"); ok {
		e.CreateIndex = d.Uint(v, p)
	}
	if v, p, ok := o.Get("ModifyIndex"); ok {
		e.ModifyIndex = d.Uint(v, p)
	}
	r.unused(x, path, entryFields, raftFields...)
	d.Add(r.err())
	return e
}

func (r *reader) source(x any, path string) SourceIntention {
	d := r.d
	var s SourceIntention
	o, ok := d.Object(x, path)
	if !ok {
		return s
	}
	o.String(&s.Name, "Name")
	o.String(&s.Peer, "Peer")
	o.String(&s.SamenessGroup, "SamenessGroup", "sameness_group")
	var action string
	o.String(&action, "Action")
	s.Action = Action(action)
	if v, p, ok := o.Get("Permissions"); ok {
		for i, item := range d.List(v, p) {
			s.Permissions = append(s.Permissions, r.permission(item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get("Precedence"); ok {
		n, _ := d.Int(v, p, math.MinInt32, math.MaxInt32)
		s.Precedence = int(n)
	}
	o.String(&s.Type, "Type")
	o.String(&s.Description, "Description")
	o.String(&s.LegacyID, "LegacyID", "legacy_id")
	if v, p, ok := o.Get("LegacyMeta", "legacy_meta"); ok {
		s.LegacyMeta = d.StringMap(v, p)
	}
	s.LegacyCreateTime = readTime(d, o, "LegacyCreateTime", "legacy_create_time")
	s.LegacyUpdateTime = readTime(d, o, "LegacyUpdateTime", "legacy_update_time")
	r.unused(x, path, sourceFields)
	return s
}

// readTime reads a time written as Consul writes it (RFC 3339).
func readTime(d *strict.Decoder, o strict.Object, names ...string) *time.Time {
	v, p, ok := o.Get(names...)
	if !ok {
		return nil
	}
	s := d.String(v, p)
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		d.Fail(p, s, "%q is not a time in RFC 3339 form such as \"2006-01-02T15:04:05Z\"", s)
		return nil
	}
	return &t
}

func (r *reader) permission(x any, path string) Permission {
	d := r.d
	var p Permission
	o, ok := d.Object(x, path)
	if !ok {
		return p
	}
	var action string
	o.String(&action, "Action")
	p.Action = Action(action)
	if v, vp, ok := o.Get("HTTP"); ok {
		p.HTTP = r.http(v, vp)
	}
	if v, vp, ok := o.Get("JWT"); ok {
		p.JWT = r.jwt(v, vp)
	}
	r.unused(x, path, permissionFields)
	return p
}

func (r *reader) http(x any, path string) *HTTPMatch {
	d := r.d
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	h := &HTTPMatch{}
	o.String(&h.PathExact, "PathExact", "path_exact")
	o.String(&h.PathPrefix, "PathPrefix", "path_prefix")
	o.String(&h.PathRegex, "PathRegex", "path_regex")
	if v, p, ok := o.Get("Header"); ok {
		for i, item := range d.List(v, p) {
			h.Header = append(h.Header, r.header(item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get("Methods"); ok {
		h.Methods = d.Strings(v, p)
	}
	r.unused(x, path, httpFields)
	return h
}

func (r *reader) header(x any, path string) HeaderMatch {
	d := r.d
	var h HeaderMatch
	o, ok := d.Object(x, path)
	if !ok {
		return h
	}
	o.String(&h.Name, "Name")
	o.String(&h.Exact, "Exact")
	o.String(&h.Prefix, "Prefix")
	o.String(&h.Suffix, "Suffix")
	o.String(&h.Regex, "Regex")
	if v, p, ok := o.Get("Present"); ok {
		h.Present = d.Bool(v, p)
	}
	if v, p, ok := o.Get("Invert"); ok {
		h.Invert = d.Bool(v, p)
	}
	r.unused(x, path, headerFields)
	return h
}

func (r *reader) jwt(x any, path string) *JWTRequirement {
	d := r.d
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	j := &JWTRequirement{}
	if v, p, ok := o.Get("Providers"); ok {
		for i, item := range d.List(v, p) {
			j.Providers = append(j.Providers, r.provider(item, strict.Index(p, i)))
		}
	}
	r.unused(x, path, jwtFields)
	return j
}

func (r *reader) provider(x any, path string) JWTProvider {
	d := r.d
	var p JWTProvider
	o, ok := d.Object(x, path)
	if !ok {
		return p
	}
	o.String(&p.Name, "Name")
	if v, vp, ok := o.Get("VerifyClaims", "verify_claims"); ok {
		for i, item := range d.List(v, vp) {
			p.VerifyClaims = append(p.VerifyClaims, r.claim(item, strict.Index(vp, i)))
		}
	}
	r.unused(x, path, providerFields)
	return p
}

func (r *reader) claim(x any, path string) JWTClaim {
	d := r.d
	var c JWTClaim
	o, ok := d.Object(x, path)
	if !ok {
		return c
	}
	if v, p, ok := o.Get("Path"); ok {
		c.Path = d.Strings(v, p)
	}
	o.String(&c.Value, "Value")
	r.unused(x, path, claimFields)
	return c
}

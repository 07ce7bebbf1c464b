package visibility

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Visibility says which data planes receive a ServiceEntry.
type Visibility string

// The visibilities. The zero value "" and Unspecified mean Public.
const (
	// Public: every client namespace sees the entry.
	Public Visibility = "PUBLIC"
	// Namespace: only clients in the entry's own namespace see it.
	Namespace Visibility = "NAMESPACE"
	// None: no data plane receives the entry.
	None Visibility = "NONE"
	// Unspecified is the protobuf zero value, which means Public.
	Unspecified Visibility = "VISIBILITY_UNSPECIFIED"
)

// visibilityNumbers are the protobuf enum numbers Istio accepts for a visibility.
var visibilityNumbers = [...]Visibility{0: Unspecified, 1: None, 2: Namespace, 3: Public}

// Effective returns the visibility v stands for: Public for "" and Unspecified, v otherwise.
func (v Visibility) Effective() Visibility {
	if v == "" || v == Unspecified {
		return Public
	}
	return v
}

func (v Visibility) valid() bool {
	switch v {
	case "", Unspecified, Public, Namespace, None:
		return true
	}
	return false
}

// UnmarshalJSON accepts what Istio's mesh configuration accepts for an enum: the names
// PUBLIC, NAMESPACE, NONE and VISIBILITY_UNSPECIFIED, and the numbers 0 to 3. Anything else —
// a lower-case name, another number, another type — is an error naming the value.
func (v *Visibility) UnmarshalJSON(b []byte) error {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	got, err := decodeVisibility(x)
	if err != nil {
		return err
	}
	*v = got
	return nil
}

func decodeVisibility(x any) (Visibility, error) {
	switch t := x.(type) {
	case nil:
		return "", nil
	case string:
		v := Visibility(t)
		if v.valid() {
			return v, nil
		}
		if up := Visibility(strings.ToUpper(t)); up.valid() && up != "" {
			return "", fmt.Errorf("unsupported value %q: enum names are upper case (%q)", t, up)
		}
		return "", fmt.Errorf("unsupported value %q: supported values: %q, %q, %q, %q", t, Public, Namespace, None, Unspecified)
	case float64:
		if t == float64(int(t)) && t >= 0 && int(t) < len(visibilityNumbers) {
			return visibilityNumbers[int(t)], nil
		}
		return "", fmt.Errorf("unsupported value %v: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)", t)
	}
	return "", fmt.Errorf("must be a string or a number, got %s", jsonType(x))
}

// Config is the mesh-wide ServiceEntry visibility configuration,
// meshConfig.serviceEntryVisibility. A nil *Config means the feature is not configured.
type Config struct {
	// DefaultVisibility applies to entries whose namespace no policy matches; empty means
	// Public.
	DefaultVisibility Visibility `json:"defaultVisibility,omitempty"`
	// Policies are tried in order; the first whose rules all match decides.
	Policies []Policy `json:"policies,omitempty"`
	// ApplyToSidecars narrows the exportTo of every ServiceEntry by its visibility for
	// sidecars and gateways too, not only for the ambient data plane.
	ApplyToSidecars bool `json:"applyToSidecars,omitempty"`
}

// Policy gives Visibility to the entries of every namespace that all of MatchingRules match.
// A policy without rules matches every namespace.
type Policy struct {
	Visibility    Visibility     `json:"visibility,omitempty"`
	MatchingRules []MatchingRule `json:"matchingRules,omitempty"`
}

// MatchingRule matches the namespaces whose labels its selector selects. The selector is
// required; an empty selector {} matches every namespace. A namespace can be selected by name
// with the label kubernetes.io/metadata.name.
type MatchingRule struct {
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`
}

// Validate reports every problem in c, each prefixed by its path
// (policies[1].matchingRules[0].namespaceSelector…): unsupported visibilities, rules without a
// selector, and invalid selectors (unknown operators, In or NotIn without values, Exists or
// DoesNotExist with values, invalid label keys or values). A nil Config is valid.
func (c *Config) Validate() error {
	return errors.Join(c.problems(nil)...)
}

func (c *Config) problems(root *field.Path) []error {
	if c == nil {
		return nil
	}
	var errs []error
	if !c.DefaultVisibility.valid() {
		errs = append(errs, badVisibility(child(root, "defaultVisibility"), c.DefaultVisibility))
	}
	for i, p := range c.Policies {
		pp := child(root, "policies").Index(i)
		if !p.Visibility.valid() {
			errs = append(errs, badVisibility(pp.Child("visibility"), p.Visibility))
		}
		for j, r := range p.MatchingRules {
			rp := pp.Child("matchingRules").Index(j).Child("namespaceSelector")
			if r.NamespaceSelector == nil {
				errs = append(errs, field.Required(rp, "a rule without a selector would never match (Istio drops it); use {} to match every namespace"))
				continue
			}
			errs = append(errs, selectorProblems(r.NamespaceSelector, rp)...)
		}
	}
	return errs
}

// selectorProblems validates a selector with apimachinery and orders the problems
// deterministically (apimachinery walks matchLabels in map order).
func selectorProblems(s *metav1.LabelSelector, p *field.Path) []error {
	list := metavalidation.ValidateLabelSelector(s, metavalidation.LabelSelectorValidationOptions{}, p)
	errs := make([]error, 0, len(list))
	for _, e := range list {
		errs = append(errs, e)
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

func badVisibility(p *field.Path, v Visibility) error {
	supported := []Visibility{Public, Namespace, None, Unspecified}
	if up := Visibility(strings.ToUpper(string(v))); up.valid() {
		return field.Invalid(p, string(v), fmt.Sprintf("enum names are upper case (%q)", up))
	}
	return field.NotSupported(p, string(v), supported)
}

func child(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

// UnmarshalJSON decodes a serviceEntryVisibility block strictly. It accepts the camelCase
// field names and the snake_case ones protobuf allows (default_visibility, apply_to_sidecars,
// matching_rules, namespace_selector), and the enum names and numbers Visibility accepts.
// Everything else is an error naming its path: an unknown field (Istio drops it silently, so
// a misspelt selector field becomes a selector that matches every namespace), a field given
// twice, a value of the wrong type. The label selector is a Kubernetes LabelSelector, whose
// fields are matchLabels and matchExpressions (key, operator, values) only. Every problem is
// reported.
func (c *Config) UnmarshalJSON(b []byte) error {
	x, err := decodeAny(b)
	if err != nil {
		return err
	}
	got, errs := decodeConfig(x, nil)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	*c = *got
	return nil
}

// UnmarshalJSON decodes one policy as strictly as Config.UnmarshalJSON does.
func (p *Policy) UnmarshalJSON(b []byte) error {
	x, err := decodeAny(b)
	if err != nil {
		return err
	}
	var errs []error
	got := decodePolicy(x, nil, &errs)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	*p = got
	return nil
}

// UnmarshalJSON decodes one matching rule as strictly as Config.UnmarshalJSON does.
func (r *MatchingRule) UnmarshalJSON(b []byte) error {
	x, err := decodeAny(b)
	if err != nil {
		return err
	}
	var errs []error
	got := decodeRule(x, nil, &errs)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	*r = got
	return nil
}

func decodeAny(b []byte) (any, error) {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return x, nil
}

// object is a JSON object being decoded: its fields, which ones were read, and its path.
type object struct {
	path   *field.Path
	fields map[string]any
	errs   *[]error
}

func asObject(x any, p *field.Path, errs *[]error) (object, bool) {
	m, ok := x.(map[string]any)
	if !ok {
		if x != nil {
			*errs = append(*errs, wrongType(p, "an object", x))
		}
		return object{}, false
	}
	return object{path: p, fields: m, errs: errs}, true
}

func wrongType(p *field.Path, want string, x any) error {
	return field.Invalid(p, shorten(x), "must be "+want+", got "+jsonType(x))
}

func pathString(p *field.Path) string {
	if p == nil {
		return "(top level)"
	}
	return p.String()
}

// take returns the value of the field named by any of its spellings, and its path.
func (o object) take(names ...string) (any, *field.Path, bool) {
	var found string
	var v any
	for _, n := range names {
		x, ok := o.fields[n]
		if !ok {
			continue
		}
		if found != "" {
			*o.errs = append(*o.errs, fmt.Errorf("%s: field given twice, as %q and %q", pathString(o.path), found, n))
			continue
		}
		found, v = n, x
	}
	if found == "" || v == nil {
		return nil, nil, false
	}
	return v, child(o.path, names[0]), true
}

// unknown reports every field not among known, suggesting the known field it resembles.
func (o object) unknown(known ...string) {
	var extra []string
	for k := range o.fields {
		if !slices.Contains(known, k) {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		hint := ""
		for _, want := range known {
			if a, b := fold(k), fold(want); a == b || len(b) >= 5 && editDistance(a, b) <= 2 {
				hint = fmt.Sprintf(" (did you mean %q?)", want)
				break
			}
		}
		*o.errs = append(*o.errs, fmt.Errorf("%s: unknown field %q%s", pathString(o.path), k, hint))
	}
}

// fold lower-cases s and drops '_' and '-', so that match_labels resembles matchLabels.
func fold(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// The field names, camelCase first, then the snake_case alias protobuf accepts.
const (
	defVis, defVisSnake = "defaultVisibility", "default_visibility"
	pols                = "policies"
	apply, applySnake   = "applyToSidecars", "apply_to_sidecars"
	vis                 = "visibility"
	rules, rulesSn      = "matchingRules", "matching_rules"
	sel, selSnake       = "namespaceSelector", "namespace_selector"
)

func decodeConfig(x any, root *field.Path) (*Config, []error) {
	var errs []error
	o, ok := asObject(x, root, &errs)
	if !ok {
		if x == nil {
			return &Config{}, nil
		}
		return nil, errs
	}
	o.unknown(defVis, defVisSnake, pols, apply, applySnake)
	var c Config
	if v, p, ok := o.take(defVis, defVisSnake); ok {
		vis, err := decodeVisibility(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		}
		c.DefaultVisibility = vis
	}
	if v, p, ok := o.take(pols); ok {
		list, isList := v.([]any)
		if !isList {
			errs = append(errs, wrongType(p, "a list", v))
		}
		for i, item := range list {
			c.Policies = append(c.Policies, decodePolicy(item, p.Index(i), &errs))
		}
	}
	if v, p, ok := o.take(apply, applySnake); ok {
		b, isBool := v.(bool)
		if !isBool {
			errs = append(errs, wrongType(p, "a boolean", v))
		}
		c.ApplyToSidecars = b
	}
	return &c, errs
}

func decodePolicy(x any, p *field.Path, errs *[]error) Policy {
	var pol Policy
	o, ok := asObject(x, p, errs)
	if !ok {
		return pol
	}
	o.unknown(vis, rules, rulesSn)
	if v, vp, ok := o.take(vis); ok {
		got, err := decodeVisibility(v)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %w", vp, err))
		}
		pol.Visibility = got
	}
	if v, rp, ok := o.take(rules, rulesSn); ok {
		list, isList := v.([]any)
		if !isList {
			*errs = append(*errs, wrongType(rp, "a list", v))
		}
		for i, item := range list {
			pol.MatchingRules = append(pol.MatchingRules, decodeRule(item, rp.Index(i), errs))
		}
	}
	return pol
}

func decodeRule(x any, p *field.Path, errs *[]error) MatchingRule {
	var r MatchingRule
	o, ok := asObject(x, p, errs)
	if !ok {
		return r
	}
	o.unknown(sel, selSnake)
	if v, sp, ok := o.take(sel, selSnake); ok {
		r.NamespaceSelector = decodeSelector(v, sp, errs)
	}
	return r
}

// decodeSelector reads a Kubernetes LabelSelector: camelCase fields only, as the Kubernetes
// API defines them.
func decodeSelector(x any, p *field.Path, errs *[]error) *metav1.LabelSelector {
	o, ok := asObject(x, p, errs)
	if !ok {
		return nil
	}
	o.unknown("matchLabels", "matchExpressions")
	s := &metav1.LabelSelector{}
	if v, lp, ok := o.take("matchLabels"); ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			*errs = append(*errs, wrongType(lp, "an object of label values", v))
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			str, isStr := m[k].(string)
			if !isStr {
				*errs = append(*errs, wrongType(lp.Key(k), "a string", m[k]))
				continue
			}
			if s.MatchLabels == nil {
				s.MatchLabels = map[string]string{}
			}
			s.MatchLabels[k] = str
		}
	}
	if v, ep, ok := o.take("matchExpressions"); ok {
		list, isList := v.([]any)
		if !isList {
			*errs = append(*errs, wrongType(ep, "a list", v))
		}
		for i, item := range list {
			s.MatchExpressions = append(s.MatchExpressions, decodeRequirement(item, ep.Index(i), errs))
		}
	}
	return s
}

func decodeRequirement(x any, p *field.Path, errs *[]error) metav1.LabelSelectorRequirement {
	var r metav1.LabelSelectorRequirement
	o, ok := asObject(x, p, errs)
	if !ok {
		return r
	}
	o.unknown("key", "operator", "values")
	str := func(name string) string {
		v, vp, ok := o.take(name)
		if !ok {
			return ""
		}
		s, isStr := v.(string)
		if !isStr {
			*errs = append(*errs, wrongType(vp, "a string", v))
		}
		return s
	}
	r.Key = str("key")
	r.Operator = metav1.LabelSelectorOperator(str("operator"))
	if v, vp, ok := o.take("values"); ok {
		list, isList := v.([]any)
		if !isList {
			*errs = append(*errs, wrongType(vp, "a list of strings", v))
		}
		for i, item := range list {
			s, isStr := item.(string)
			if !isStr {
				*errs = append(*errs, wrongType(vp.Index(i), "a string", item))
				continue
			}
			r.Values = append(r.Values, s)
		}
	}
	return r
}

func jsonType(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// shorten returns a value for an error message: scalars as they are, containers by type.
func shorten(x any) any {
	switch x.(type) {
	case []any, map[string]any:
		return jsonType(x)
	}
	return x
}

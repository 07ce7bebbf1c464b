package visibility

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"

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
	x, err := strict.ParseJSON(b)
	if err != nil {
		return err
	}
	got, err := decodeVisibility(x)
	if err != nil {
		return &FieldError{Value: x, Detail: err.Error()}
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
	case json.Number:
		if i, err := strconv.Atoi(string(t)); err == nil && i >= 0 && i < len(visibilityNumbers) {
			return visibilityNumbers[i], nil
		}
		return "", fmt.Errorf("unsupported value %s: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)", t)
	}
	return "", fmt.Errorf("must be a string or a number, got %s", strict.Describe(x))
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
				errs = append(errs, fromField(field.Required(rp, "a rule without a selector would never match (Istio drops it); use {} to match every namespace")))
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
		errs = append(errs, fromField(e))
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

func badVisibility(p *field.Path, v Visibility) error {
	supported := []Visibility{Public, Namespace, None, Unspecified}
	if up := Visibility(strings.ToUpper(string(v))); up.valid() {
		return fromField(field.Invalid(p, string(v), fmt.Sprintf("enum names are upper case (%q)", up)))
	}
	return fromField(field.NotSupported(p, string(v), supported))
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
	got, err := strict.Unmarshal(b, false, decodeConfig)
	if err != nil {
		return err
	}
	*c = *got
	return nil
}

// UnmarshalJSON decodes one policy as strictly as Config.UnmarshalJSON does.
func (p *Policy) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodePolicy)
	if err != nil {
		return err
	}
	*p = got
	return nil
}

// UnmarshalJSON decodes one matching rule as strictly as Config.UnmarshalJSON does.
func (r *MatchingRule) UnmarshalJSON(b []byte) error {
	got, err := strict.Unmarshal(b, false, decodeRule)
	if err != nil {
		return err
	}
	*r = got
	return nil
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

func decodeVisibilityAt(d *strict.Decoder, x any, path string) Visibility {
	v, err := decodeVisibility(x)
	if err != nil {
		d.Fail(path, x, "%v", err)
	}
	return v
}

// decodeConfig decodes a block at path; null is the empty (enabled, all-default) block.
func decodeConfig(d *strict.Decoder, x any, path string) *Config {
	var c Config
	o, ok := d.Object(x, path)
	if !ok {
		return &c
	}
	o.Check(defVis, defVisSnake, pols, apply, applySnake)
	if v, p, ok := o.Get(defVis, defVisSnake); ok {
		c.DefaultVisibility = decodeVisibilityAt(d, v, p)
	}
	if v, p, ok := o.Get(pols); ok {
		for i, item := range d.List(v, p) {
			c.Policies = append(c.Policies, decodePolicy(d, item, strict.Index(p, i)))
		}
	}
	if v, p, ok := o.Get(apply, applySnake); ok {
		c.ApplyToSidecars = d.Bool(v, p)
	}
	return &c
}

func decodePolicy(d *strict.Decoder, x any, path string) Policy {
	var pol Policy
	o, ok := d.Object(x, path)
	if !ok {
		return pol
	}
	o.Check(vis, rules, rulesSn)
	if v, p, ok := o.Get(vis); ok {
		pol.Visibility = decodeVisibilityAt(d, v, p)
	}
	if v, p, ok := o.Get(rules, rulesSn); ok {
		for i, item := range d.List(v, p) {
			pol.MatchingRules = append(pol.MatchingRules, decodeRule(d, item, strict.Index(p, i)))
		}
	}
	return pol
}

func decodeRule(d *strict.Decoder, x any, path string) MatchingRule {
	var r MatchingRule
	o, ok := d.Object(x, path)
	if !ok {
		return r
	}
	o.Check(sel, selSnake)
	if v, p, ok := o.Get(sel, selSnake); ok {
		r.NamespaceSelector = decodeSelector(d, v, p)
	}
	return r
}

// decodeSelector reads a Kubernetes LabelSelector: camelCase fields only, as the Kubernetes
// API defines them.
func decodeSelector(d *strict.Decoder, x any, path string) *metav1.LabelSelector {
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	o.Check("matchLabels", "matchExpressions")
	s := &metav1.LabelSelector{}
	if v, p, ok := o.Get("matchLabels"); ok {
		if m := d.StringMap(v, p); len(m) > 0 {
			s.MatchLabels = m
		}
	}
	if v, p, ok := o.Get("matchExpressions"); ok {
		for i, item := range d.List(v, p) {
			s.MatchExpressions = append(s.MatchExpressions, decodeRequirement(d, item, strict.Index(p, i)))
		}
	}
	return s
}

func decodeRequirement(d *strict.Decoder, x any, path string) metav1.LabelSelectorRequirement {
	var r metav1.LabelSelectorRequirement
	o, ok := d.Object(x, path)
	if !ok {
		return r
	}
	o.Check("key", "operator", "values")
	o.String(&r.Key, "key")
	var op string
	o.String(&op, "operator")
	r.Operator = metav1.LabelSelectorOperator(op)
	if v, p, ok := o.Get("values"); ok {
		r.Values = d.Strings(v, p)
	}
	return r
}

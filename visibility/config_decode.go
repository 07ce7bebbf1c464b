package visibility

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

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
		r.NamespaceSelector = kube.DecodeSelector(d, v, p)
	}
	return r
}

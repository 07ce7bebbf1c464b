package visibility

import (
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
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

// effective returns the visibility v stands for: Public for "" and Unspecified, v otherwise.
func (v Visibility) effective() Visibility {
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
	return errors.Join(c.problems(fielderr.Root(fielderr.Object))...)
}

// problems reports c's problems, their paths under root, each built for a problem only.
func (c *Config) problems(root fielderr.Path) []error {
	if c == nil {
		return nil
	}
	var errs []error
	if !c.DefaultVisibility.valid() {
		errs = append(errs, badVisibility(root.Child("defaultVisibility"), c.DefaultVisibility))
	}
	for i, p := range c.Policies {
		if !p.Visibility.valid() {
			errs = append(errs, badVisibility(root.Child("policies").Index(i).Child("visibility"), p.Visibility))
		}
		for j, r := range p.MatchingRules {
			rule := func() fielderr.Path { return rulePath(root, i, j) }
			if r.NamespaceSelector == nil {
				errs = append(errs, kube.FromField(field.Required(rule().FieldPath(), "a rule without a selector would never match (Istio drops it); use {} to match every namespace")))
				continue
			}
			for _, e := range kube.SelectorProblems(r.NamespaceSelector, rule) {
				errs = append(errs, e)
			}
		}
	}
	return errs
}

// rulePath is the path of the selector of policies[i].matchingRules[j] under root.
func rulePath(root fielderr.Path, i, j int) fielderr.Path {
	return root.Child("policies").Index(i).Child("matchingRules").Index(j).Child("namespaceSelector")
}

func badVisibility(p fielderr.Path, v Visibility) error {
	supported := []Visibility{Public, Namespace, None, Unspecified}
	if up := Visibility(strings.ToUpper(string(v))); up.valid() {
		return kube.FromField(field.Invalid(p.FieldPath(), string(v), fmt.Sprintf("enum names are upper case (%q)", up)))
	}
	return kube.FromField(field.NotSupported(p.FieldPath(), string(v), supported))
}

// Package kube reads Kubernetes-style objects for meshscope's Istio packages: every object of
// a YAML or JSON stream, Lists unwrapped (what `kubectl get … -o yaml` prints), each with
// where it was found (Read); and the label selectors those objects and the mesh
// configuration carry, decoded strictly and validated as the Kubernetes API validates them.
package kube

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// DecodeSelector reads a Kubernetes LabelSelector at path: camelCase fields only, as the
// Kubernetes API defines them (matchLabels, and matchExpressions of key, operator, values).
func DecodeSelector(d *strict.Decoder, x any, path string) *metav1.LabelSelector {
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

// SelectorProblems validates a selector with apimachinery, each problem at its path under the
// path at gives, which is asked for only when there is a problem, in a deterministic order
// (apimachinery walks matchLabels in map order).
func SelectorProblems(s *metav1.LabelSelector, at func() fielderr.Path) []*fielderr.Error {
	opts := metavalidation.LabelSelectorValidationOptions{}
	if len(metavalidation.ValidateLabelSelector(s, opts, nil)) == 0 {
		return nil
	}
	list := metavalidation.ValidateLabelSelector(s, opts, at().FieldPath())
	errs := make([]*fielderr.Error, 0, len(list))
	for _, e := range list {
		errs = append(errs, FromField(e))
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// LabelProblems validates the keys and values of a workload's labels (a workloadSelector's
// labels) as Kubernetes does, each problem at the path at gives, which is asked for only when
// there is a problem.
func LabelProblems(at func() fielderr.Path, ls map[string]string) []*fielderr.Error {
	if validLabels(ls) {
		return nil
	}
	var errs []*fielderr.Error
	for _, e := range metavalidation.ValidateLabels(ls, at().FieldPath()) {
		errs = append(errs, FromField(e))
	}
	return errs
}

// FromField converts apimachinery's field error into a FieldError with the same text.
func FromField(e *field.Error) *fielderr.Error {
	return &fielderr.Error{Field: e.Field, Value: e.BadValue, Detail: e.ErrorBody()}
}

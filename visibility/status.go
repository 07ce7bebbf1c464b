package visibility

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types and reasons written to ServiceEntry status.
const (
	ConditionVisibilityApplied = "istio.io/VisibilityApplied"
	ConditionWaypointBound     = "istio.io/WaypointBound"

	ReasonPublic    = "Public"
	ReasonNamespace = "Namespace"
	ReasonNone      = "None"

	ReasonWaypointAccepted                = "WaypointAccepted"
	ReasonCrossNamespaceWaypointForbidden = "CrossNamespaceWaypointForbidden"
	ReasonNotDelivered                    = "NotDelivered"
)

// Condition returns the istio.io/VisibilityApplied condition for a ServiceEntry with
// decision d: status True, reason Public, Namespace or None, and a message naming the policy
// that decided. It returns nil when the feature is disabled (no condition is written then).
// Kubernetes Services never get one; do not call Condition for them. LastTransitionTime and
// ObservedGeneration are left for the caller, which knows the object.
func (r *Resolver) Condition(d Decision) *metav1.Condition {
	if !r.Enabled() {
		return nil
	}
	v := d.Visibility.effective()
	reason := ReasonPublic
	switch v {
	case Namespace:
		reason = ReasonNamespace
	case None:
		reason = ReasonNone
	}
	msg := fmt.Sprintf("visibility %s set by policies[%d]", v, d.Policy)
	if d.Policy < 0 {
		msg = fmt.Sprintf("visibility %s: no policy matched the namespace, the default applies", v)
	}
	return &metav1.Condition{
		Type:    ConditionVisibilityApplied,
		Status:  metav1.ConditionTrue,
		Reason:  reason,
		Message: msg + "; " + describeVisibility(v),
	}
}

func describeVisibility(v Visibility) string {
	switch v.effective() {
	case Namespace:
		return "only workloads in the entry's own namespace can discover and reach it"
	case None:
		return "no data plane receives the entry"
	}
	return "every namespace can discover and reach it"
}

// WaypointBinding returns the istio.io/WaypointBound condition for binding a waypoint in
// waypointNamespace to an entry in namespace with visibility v. A NAMESPACE entry refuses a
// waypoint from another namespace (reason CrossNamespaceWaypointForbidden); a NONE entry
// binds no waypoint at all, since no data plane receives it (NotDelivered); otherwise the
// binding is accepted (WaypointAccepted).
func WaypointBinding(namespace, waypointNamespace string, v Visibility) metav1.Condition {
	c := metav1.Condition{Type: ConditionWaypointBound}
	switch {
	case v.effective() == None:
		c.Status, c.Reason = metav1.ConditionFalse, ReasonNotDelivered
		c.Message = "the entry's visibility is NONE: no data plane receives it, so no waypoint can serve it"
	case v.effective() == Namespace && waypointNamespace != namespace:
		c.Status, c.Reason = metav1.ConditionFalse, ReasonCrossNamespaceWaypointForbidden
		c.Message = fmt.Sprintf("the entry's visibility is NAMESPACE: the waypoint in namespace %q may not serve an entry of namespace %q", waypointNamespace, namespace)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonWaypointAccepted
		c.Message = fmt.Sprintf("bound to the waypoint in namespace %q", waypointNamespace)
	}
	return c
}

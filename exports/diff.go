package exports

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
)

// Change is how one thing differs between two configurations: Key names it, Before and
// After are its value on each side (the zero value when it has none, left out of JSON), and
// Gained and Lost are the elements of a set it gains and loses. It is the one change shape
// of meshscope's packages.
type Change[K, V, E any] = report.Change[K, V, E]

// ConsumerChange is what one consumer (Key) gains and loses between two configurations: the
// services it starts (Gained) and stops (Lost) receiving. A consumer has no value of its
// own, so Before and After are empty.
type ConsumerChange = Change[Consumer, struct{}, ServiceName]

// Diff compares two compiled configurations over a catalog and returns, for every consumer
// (peer, partition or sameness group) whose set of services changes, the services it gains
// and loses. Consumers are sorted peers first, then partitions, then sameness groups, each by
// name; services by partition, namespace and name. Either side may be nil (nothing exported).
// This is the dry run of an exported-services change: nothing is applied.
func Diff(before, after *Exports, catalog []ServiceName) []ConsumerChange {
	changes := map[Consumer]*ConsumerChange{}
	get := func(c Consumer) *ConsumerChange {
		ch := changes[c]
		if ch == nil {
			ch = &ConsumerChange{Key: c}
			changes[c] = ch
		}
		return ch
	}
	services := sortUnique(canonicalAll(catalog))
	for _, s := range services {
		b, _ := before.Match(s)
		a, _ := after.Match(s)
		if slices.Equal(b.Consumers, a.Consumers) {
			continue
		}
		gained, lost := report.Delta(b.Consumers, a.Consumers)
		for _, c := range gained {
			ch := get(c)
			ch.Gained = append(ch.Gained, s)
		}
		for _, c := range lost {
			ch := get(c)
			ch.Lost = append(ch.Lost, s)
		}
	}
	out := make([]ConsumerChange, 0, len(changes))
	for _, ch := range changes {
		out = append(out, *ch)
	}
	slices.SortFunc(out, func(a, b ConsumerChange) int { return compareConsumers(a.Key, b.Key) })
	return out
}

func canonicalAll(s []ServiceName) []ServiceName {
	out := make([]ServiceName, len(s))
	for i, n := range s {
		out[i] = n.Canonical()
	}
	return out
}

func compareConsumers(a, b Consumer) int {
	rank := func(c Consumer) int {
		switch {
		case c.Peer != "":
			return 0
		case c.Partition != "":
			return 1
		}
		return 2
	}
	if d := rank(a) - rank(b); d != 0 {
		return d
	}
	return cmp.Or(strings.Compare(a.Peer, b.Peer), strings.Compare(a.Partition, b.Partition), strings.Compare(a.SamenessGroup, b.SamenessGroup))
}

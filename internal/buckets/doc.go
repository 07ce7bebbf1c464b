// Package buckets finds a list's items by their keys' hashes: Sort puts the items into
// buckets by the top bits of their hashes with a counting sort — in time linear in the list,
// in two allocations, each bucket keeping its items in list order — and an item whose key is
// k is then in k's bucket, which holds about one item:
//
//	seed := maphash.MakeSeed()
//	hashes := make([]uint64, len(names))
//	for i, s := range names {
//		hashes[i] = maphash.String(seed, s)
//	}
//	t, repeats := buckets.Sort(hashes, func(i, j int32) bool { return names[i] == names[j] })
//	h := maphash.String(seed, "db")
//	for _, s := range t.Bucket(h) {
//		if s.Hash == h && names[s.Item] == "db" {
//			// names[s.Item] is the first "db" of the list
//		}
//	}
//
// and repeats lists the names that an earlier name of the list repeats (found by reading the
// filled buckets in turn: only the items of a bucket are compared with one another). A
// caller that only wants the repeats — a check that refuses a name given twice — asks
// Repeats, which sorts only the items' places.
//
// Built once and only read after, a Table is what a Go map from keys to items would be, in
// less work: a map reads the group each key goes to, at random, before writing the key
// there, where the counting sort scatters the items with writes the processor does not wait
// for, and reads the buckets in order; the slots hold no pointer (BenchmarkSort, beside a
// pre-sized Go map of the same keys). The hashes are the caller's: it seeds them (maphash), so
// that which keys share a bucket cannot be chosen by whoever writes the list.
package buckets

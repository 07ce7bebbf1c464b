package strict

// The block reader's stacks: the collections it is in, and the members and items of those
// collections, which it copies out at their exact sizes when a collection ends (see
// block.go).

// collection is a mapping or a sequence being read, block or flow. The reader keeps the
// one it is reading in a variable and those around it on a stack of its own (open), on
// the heap, rather than in nested calls: input nested n deep would otherwise grow the
// goroutine's stack n frames deep, which the collector walks, frame by frame, in every
// cycle, making the cost of deep input grow faster than its size.
type collection struct {
	mapping bool
	col     int // a block collection's column
	base    int // where its members or items start on the reader's stacks
	seen    int // a mapping's key map, once it has many keys: r.seen[seen-1] (see find)
	// The member whose value is being read (its key ends the reader's path): the line of
	// its key, the index of the member that has the key already (-1 when none does), and
	// how many problems there were before its value.
	line, first, mark int
}

// begin returns a new collection, its members or items to come on the reader's stacks.
func (r *blockReader) begin(mapping bool, col int) collection {
	if mapping {
		return collection{mapping: true, col: col, base: len(r.members)}
	}
	return collection{col: col, base: len(r.items)}
}

// resume pops the collection around the one just read off the stack of open ones, if there
// is one above base.
func (r *blockReader) resume(base int) (collection, bool) {
	if len(r.open) == base {
		return collection{}, false
	}
	c := r.open[len(r.open)-1]
	r.open = r.open[:len(r.open)-1]
	return c, true
}

// end pops the members or items of the collection c off the reader's stacks, as its value.
func (r *blockReader) end(c *collection) any {
	if c.seen > 0 {
		clear(r.seen[c.seen-1:])
		r.seen = r.seen[:c.seen-1]
	}
	if c.mapping {
		return r.fields(c.base)
	}
	return r.list(c.base)
}

// startMember starts the member key of the mapping c: key is on the current line, and its
// value is read next.
func (r *blockReader) startMember(c *collection, key string) {
	c.line = r.line
	c.first = r.find(c, key)
	c.mark = len(r.problems)
	if len(r.path) == cap(r.path) {
		r.path = grow(r.path)
	}
	r.path = append(r.path, Step{Key: key, Index: -1})
}

// startItem starts the next item of the sequence c.
func (r *blockReader) startItem(c *collection) {
	if len(r.path) == cap(r.path) {
		r.path = grow(r.path)
	}
	r.path = append(r.path, Step{Index: len(r.items) - c.base})
}

// finish ends the member or item of c being read with its value v. A key given twice keeps
// its first value, as the full reader does, and the second is not judged: the problems
// found in it give way to the key's.
func (r *blockReader) finish(c *collection, v any) {
	switch {
	case !c.mapping:
		r.items = append(r.items, v)
	case c.first >= 0:
		r.problems = append(r.problems[:c.mark], r.givenTwice(r.mlines[c.base+c.first], c.line))
	default:
		r.add(c, r.path[len(r.path)-1].Key, v)
	}
	r.path = r.path[:len(r.path)-1]
}

// slab is how many members or items a slab holds.
const slab = 1024

// fields pops the members from base on the stack, as an object.
func (r *blockReader) fields(base int) Fields {
	r.mlines = r.mlines[:base]
	return pop(&r.members, &r.mslab, base)
}

// list pops the items from base on the stack, as a list.
func (r *blockReader) list(base int) []any { return pop(&r.items, &r.islab, base) }

// pop removes the values from base on stack and returns them at their exact size (a
// non-nil empty slice for none), copied into the slab when they are few, else into their
// own array.
func pop[T any](stack, slabp *[]T, base int) []T {
	vals := (*stack)[base:]
	var out []T
	switch n := len(vals); {
	case n == 0:
		out = make([]T, 0)
	case n > slab/4:
		out = make([]T, n)
		copy(out, vals)
	default:
		if len(*slabp)+n > cap(*slabp) {
			*slabp = make([]T, 0, slab)
		}
		at := len(*slabp)
		*slabp = append(*slabp, vals...)
		out = (*slabp)[at:len(*slabp):len(*slabp)]
	}
	clear(vals)
	*stack = (*stack)[:base]
	return out
}

// find returns the index (from its base) of key among the members of the mapping c, or -1:
// a scan while the mapping is small, a map (made on demand, kept up to date by add) when
// large.
func (r *blockReader) find(c *collection, key string) int {
	m := r.members[c.base:]
	if c.seen == 0 && len(m) < scanLimit {
		for i := range m {
			if m[i].Key == key {
				return i
			}
		}
		return -1
	}
	if c.seen == 0 {
		seen := make(map[string]int, 2*len(m))
		for i, f := range m {
			seen[f.Key] = i
		}
		r.seen = append(r.seen, seen)
		c.seen = len(r.seen)
	}
	if i, ok := r.seen[c.seen-1][key]; ok {
		return i
	}
	return -1
}

// add pushes the member key: v onto the mapping c.
func (r *blockReader) add(c *collection, key string, v any) {
	r.members = append(r.members, Member{key, v})
	r.mlines = append(r.mlines, c.line)
	if c.seen > 0 {
		r.seen[c.seen-1][key] = len(r.members) - 1 - c.base
	}
}

// grow returns s in a new array of twice its capacity. The stacks as deep as the input (the
// path, the collections around the one being read) grow so, which keeps a stack n deep at
// O(n) bytes in all, where append would grow a large one by a quarter at a time. Each push
// is written where it is made, as "if len(s) == cap(s) { s = grow(s) }" and an append to s
// itself, rather than in a function that returns the stack: appending in place compiles to
// a store and a new length.
func grow[T any](s []T) []T {
	t := make([]T, len(s), max(2*cap(s), 8))
	copy(t, s)
	return t
}

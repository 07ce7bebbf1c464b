package strict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
)

// nestedLists is n kubectl Lists nested in one another, each holding a Namespace and the
// next, as JSON.
func nestedLists(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(`{"kind": "List", "items": [{"kind": "Namespace", "metadata": {"name": "shop"}}, `)
	}
	b.WriteString(`{}` + strings.Repeat("]}", n))
	return b.String()
}

// TestNestingIsLinear: the readers keep the collections they are in on stacks of their
// own, on the heap, not on the goroutine's stack, so that reading input nested n deep costs
// O(n), allocations and the collector's work alike: at 4x the depth, at most 5x the bytes
// allocated, and the goroutine's stack does not grow. (Nested block mappings are left out:
// each level is indented further, so the input itself grows with the square of the depth.)
func TestNestingIsLinear(t *testing.T) {
	yamlDoc := func(data []byte) error {
		docs, err := ParseYAML(data, "")
		if err != nil {
			return err
		}
		if len(docs) != 1 {
			return fmt.Errorf("%d documents", len(docs))
		}
		return docs[0].Err
	}
	jsonDoc := func(data []byte) error {
		_, err := ParseJSON(data)
		return err
	}
	for _, tc := range []struct {
		name  string
		input func(n int) string // nested n deep
		parse func([]byte) error
	}{
		{"JSON Lists", func(n int) string { return nestedLists(n / 2) }, jsonDoc},
		{"JSON Lists, read as YAML", func(n int) string { return nestedLists(n / 2) }, yamlDoc},
		{"JSON arrays", func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }, jsonDoc},
		{"JSON objects", func(n int) string { return strings.Repeat(`{"a": `, n) + "1" + strings.Repeat("}", n) }, jsonDoc},
		{"flow sequences", func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }, yamlDoc},
		{"flow mappings", func(n int) string { return strings.Repeat("{a: ", n) + "1" + strings.Repeat("}", n) }, yamlDoc},
		{"block sequences", func(n int) string { return strings.Repeat("- ", n) + "1\n" }, yamlDoc},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1000
			small, large := []byte(tc.input(n)), []byte(tc.input(4*n))
			require.NoError(t, tc.parse(small))
			require.NoError(t, tc.parse(large))
			_, smallBytes := growth.Allocated(func() { _ = tc.parse(small) })
			_, largeBytes := growth.Allocated(func() { _ = tc.parse(large) })
			assert.Less(t, largeBytes, 5*smallBytes, "bytes allocated %d deep: %v, %d deep: %v", n, smallBytes, 4*n, largeBytes)
			smallStack := growth.StackGrown(t, func() { _ = tc.parse(small) })
			largeStack := growth.StackGrown(t, func() { _ = tc.parse(large) })
			assert.Less(t, largeStack, smallStack+64<<10, "goroutine stack grown %d deep: %v bytes, %d deep: %v", n, smallStack, 4*n, largeStack)
		})
	}
}

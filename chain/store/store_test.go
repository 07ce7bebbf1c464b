package store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/internal/longtest"
)

// TestStoreApplyOneAtATime: on random writes, one Store.Apply per write, one Config.Apply per
// write and one Config.Apply of them all give the same outcomes and store the same entries.
func TestStoreApplyOneAtATime(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range longtest.N(40, 1000) {
		writes, all := randomData(t, r)
		var once Config
		want, err := once.Apply(all)
		require.NoError(t, err)

		st, err := New(Config{})
		require.NoError(t, err)
		var each Config
		for i, w := range writes {
			got, err := st.Apply(w)
			require.NoError(t, err)
			require.Equal(t, want[i].Accepted, got[0].Accepted, "write %d of %s", i, all)
			require.Equal(t, want[i].Reasons, got[0].Reasons, "write %d of %s", i, all)
			got, err = each.Apply(w)
			require.NoError(t, err)
			require.Equal(t, want[i].Reasons, got[0].Reasons, "write %d of %s", i, all)
		}
		c := st.Config()
		require.Equal(t, once.Entries, c.Entries, "%s", all)
		require.Equal(t, once.Exports, c.Exports, "%s", all)
		require.Equal(t, once.Entries, each.Entries, "%s", all)
	}
}

// TestStoreConfigIsACopy: a Config read from a Store keeps what it held while the Store takes
// more writes, and a Store keeps what it holds while the Config it was made from changes.
func TestStoreConfigIsACopy(t *testing.T) {
	c, err := Load([]byte(`{"Kind":"service-resolver","Name":"api","ConnectTimeout":"1s"}
{"Kind":"service-defaults","Name":"api","Protocol":"http"}`))
	require.NoError(t, err)
	st, err := New(c)
	require.NoError(t, err)
	c.Entries.Resolvers = append(c.Entries.Resolvers, chain.ServiceResolver{Name: "web"})
	c.Entries.Protocols = nil
	held := st.Config()
	require.Len(t, held.Entries.Resolvers, 1, "New keeps the entries, not the Config's slices")
	require.Len(t, held.Entries.Protocols, 1)

	_, err = st.Apply([]byte(`{"Kind":"service-resolver","Name":"api","ConnectTimeout":"2s"}
{"Kind":"service-defaults","Name":"web","Protocol":"http"}
{"Kind":"ingress-gateway","Name":"ingress"}`))
	require.NoError(t, err)
	assert.Equal(t, "1s", held.Entries.Resolvers[0].ConnectTimeout.String(), "a Config read before keeps what it held")
	assert.Len(t, held.Entries.Protocols, 1)
	assert.Empty(t, held.Findings)
	now := st.Config()
	assert.Equal(t, "2s", now.Entries.Resolvers[0].ConnectTimeout.String())
	assert.Len(t, now.Entries.Protocols, 2)
	assert.Len(t, now.Findings, 1)

	err = held.Add("b.json", []byte(`{"Kind":"service-defaults","Name":"web","Protocol":"tcp"}`))
	require.NoError(t, err, "the Store's writes are not in the record of an earlier Config")
	err = now.Add("b.json", []byte(`{"Kind":"service-defaults","Name":"web","Protocol":"tcp"}`))
	assert.EqualError(t, err, `b.json: value 1 (service-defaults web): a second service-defaults entry for web; the first is Entries.Protocols["default/default/web"]`,
		"a Config read from a Store names an entry by its place")
}

// FuzzStoreApply: a Store takes any data as a Config does — the same outcomes, the same
// entries stored — and what it holds reads back into a Store.
func FuzzStoreApply(f *testing.F) {
	f.Add([]byte(configRead))
	f.Add([]byte(`{"Kind":"service-resolver","Name":"a","Redirect":{"Service":"b"}} {"Kind":"service-defaults","Name":"b","Protocol":"http"}`))
	addRandomSeeds(f, 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		want, werr := c.Apply(data)
		st, err := New(Config{})
		if err != nil {
			t.Fatal(err)
		}
		got, gerr := st.Apply(data)
		if (werr == nil) != (gerr == nil) || len(want) != len(got) {
			t.Fatalf("Config.Apply: %v, %d outcomes; Store.Apply: %v, %d", werr, len(want), gerr, len(got))
		}
		for i := range want {
			if want[i].String() != got[i].String() {
				t.Fatalf("write %d: Config.Apply %s, Store.Apply %s", i, want[i], got[i])
			}
		}
		held := st.Config()
		if _, err := New(held); err != nil {
			t.Fatalf("what a Store holds does not read back: %v", err)
		}
		if len(held.Entries.Resolvers) != len(c.Entries.Resolvers) || len(held.Entries.Protocols) != len(c.Entries.Protocols) || len(held.Findings) != len(c.Findings) {
			t.Fatal("the Store holds other entries than the Config")
		}
	})
}

// TestConfigCopies: copies of one Config, written at once in several goroutines, each get
// their own writes — the Store the Config was a view of is claimed by one of them, the others
// read their own — and the Config copied keeps what it held.
func TestConfigCopies(t *testing.T) {
	var base Config
	_, err := base.Apply([]byte(`{"Kind":"service-resolver","Name":"api"} {"Kind":"service-defaults","Name":"api","Protocol":"http"}`))
	require.NoError(t, err)
	var wg sync.WaitGroup
	got := make([]Config, 8)
	for i := range got {
		wg.Go(func() {
			c := base
			for j := range 20 {
				outs, err := c.Apply(fmt.Appendf(nil, `{"Kind":"service-defaults","Name":"s%d-%d","Protocol":"http"} {"Kind":"service-resolver","Name":"api","ConnectTimeout":"%ds"}`, i, j, i+1))
				if err != nil || !outs[0].Accepted || !outs[1].Accepted {
					t.Error(err, outs)
				}
			}
			got[i] = c
		})
	}
	wg.Wait()
	for i, c := range got {
		assert.Len(t, c.Entries.Protocols, 21, "copy %d", i)
		assert.Equal(t, fmt.Sprintf("%ds", i+1), c.Entries.Resolvers[0].ConnectTimeout.String(), "copy %d", i)
	}
	assert.Len(t, base.Entries.Protocols, 1)
	assert.Zero(t, base.Entries.Resolvers[0].ConnectTimeout)
}
